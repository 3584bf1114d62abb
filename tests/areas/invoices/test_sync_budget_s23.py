"""Session 23 (time budgets of the scheduled jobs): the hourly ledger invoice sync starts no ledger call once
LEDGER_SYNC_SECONDS are spent (the function has 300 s, infra/areas.json; a run killed at its timeout kept nothing
of the page in flight and EventBridge's two retries met the same kill). It answers `more`; the pages it wrote stay
committed, and the next run goes on with the invoices it did not reach (least recently synced first), not from the
first page again. The clock (core.timeutil.clock) advances 100 s per ledger call here; pages of 2 invoices."""
from __future__ import annotations

from chalicelib.core import timeutil

from .test_jobs import REFUSED, _ledger_failing, _paid_in_ledger, _synced
from .test_ledger_reads_s26 import ledger_read_long_ago


class Clock:
    now, step = 1000.0, 100.0  # the time a ledger call takes

    def __call__(self):
        return self.now


def _slow_ledger(monkeypatch, failing=None, page=2):
    """The sandbox ledger, each call 100 s long on the patched clock; answers (calls, the clock, call start times)."""
    from chalicelib.areas.invoices import jobs
    from chalicelib.providers.ledger.sandbox import SandboxLedger

    clock = Clock()
    monkeypatch.setattr(timeutil, "clock", clock)
    monkeypatch.setattr(jobs, "LEDGER_SYNC_SECONDS", 250, raising=False)
    calls = _ledger_failing(monkeypatch, failing or {}, page=page)
    counted, started = SandboxLedger.get_invoices, []

    def get_invoices(self, ledger_invoice_ids):
        started.append(clock.now)
        clock.now += clock.step
        return counted(self, ledger_invoice_ids)

    monkeypatch.setattr(SandboxLedger, "get_invoices", get_invoices)
    return calls, clock, started


def test_a_run_stops_at_its_budget_and_the_next_one_goes_on(db, aws, monkeypatch):
    from chalicelib.areas.invoices.jobs import ledger_invoice_sync

    invoices = _paid_in_ledger(db, 10)
    calls, clock, started = _slow_ledger(monkeypatch)
    begun = clock.now
    first = ledger_invoice_sync()
    assert first["more"] is True and first["updated"] == 6 and first["errors"] == [], first
    assert started == [begun, begun + 100, begun + 200]  # at 300 s the 250 s are spent: no fourth page
    assert _synced(db, invoices) == [("paid", True)] * 6 + [("approved", False)] * 4

    calls.clear()
    clock.step = 50.0  # a quicker ledger: the whole run fits
    second = ledger_invoice_sync()  # goes on with the 4 left first, not the first page again
    assert "more" not in second and second["updated"] == 4 and second["errors"] == [], second
    assert calls[:2] == [[i.ledger_invoice_id for i in invoices[6:8]], [i.ledger_invoice_id for i in invoices[8:]]]
    assert len(calls) == 5  # then the 6 the first run synced, least recently synced first: unchanged
    assert _synced(db, invoices) == [("paid", True)] * 10

    calls.clear()
    third = ledger_invoice_sync()  # run again: nothing changes
    assert third["updated"] == 0 and "more" not in third, third
    assert len(calls) == 5


def test_splitting_a_refused_page_stops_at_the_budget_too(db, aws, monkeypatch):
    """A refused page asked again in halves (up to SPLIT_CALLS more calls) starts none of them past the budget: the
    invoices not asked are neither synced nor failures, and the next run asks them first."""
    from chalicelib.areas.invoices.jobs import ledger_invoice_sync
    from chalicelib.core.errors import BadGateway

    invoices = _paid_in_ledger(db, 8)
    bad = invoices[5]
    calls, clock, started = _slow_ledger(monkeypatch, {bad.ledger_invoice_id: lambda: BadGateway(REFUSED)}, page=8)
    begun = clock.now
    first = ledger_invoice_sync()
    # the page (0 s), its left half (100 s, answered), its right half (200 s, refused); at 300 s none more
    assert started == [begun, begun + 100, begun + 200], calls
    assert first["more"] is True and first["updated"] == 4 and first["errors"] == [], first
    assert _synced(db, invoices) == [("paid", True)] * 4 + [("approved", False)] * 4

    calls.clear()
    clock.step = 1.0  # a quick ledger: the whole run fits
    second = ledger_invoice_sync()
    assert second["errors"] == [{"invoice_id": bad.id, "invoice_number": bad.invoice_number, "error": REFUSED}]
    assert second["updated"] == 3 and "more" not in second, second
    assert calls[0][:4] == [i.ledger_invoice_id for i in invoices[4:]]  # the invoices not reached come first
    assert _synced(db, invoices) == [("paid", True)] * 5 + [("approved", False)] + [("paid", True)] * 2


def test_a_page_is_one_request_of_the_live_ledger(db, aws, monkeypatch):
    """The live ledger asks Xero for 50 ids a request (IDS_PER_CALL): a page of 500 invoices was ten requests, one
    step of up to 250 s that no budget of the function's 300 s could leave room for. A page now holds at most 50."""
    from chalicelib.areas.invoices.jobs import ledger_invoice_sync
    from chalicelib.providers.ledger.live import IDS_PER_CALL
    from chalicelib.providers.ledger.sandbox import SandboxLedger

    invoices = _paid_in_ledger(db, 2 * IDS_PER_CALL + 3)
    original, calls = SandboxLedger.get_invoices, []

    def get_invoices(self, ledger_invoice_ids):
        calls.append(len(ledger_invoice_ids))
        return original(self, ledger_invoice_ids)

    monkeypatch.setattr(SandboxLedger, "get_invoices", get_invoices)
    answer = ledger_invoice_sync()
    assert answer["updated"] == len(invoices) and answer["errors"] == [] and "more" not in answer, answer
    assert calls == [IDS_PER_CALL, IDS_PER_CALL, 3]


def test_the_batch_route_stops_starting_pages_after_its_time_and_says_more(api, db, exec_user, aws, monkeypatch):
    """Session 23 review: the batch route had no budget; a run past the API function's 29 s was killed mid-page, its
    earlier pages committed, no run recorded, the client answered 504. It starts no page after MANUAL_SYNC_SECONDS
    and answers `more: 1`; calling again goes on with the invoices it did not reach."""
    from chalicelib.areas.invoices import service_ledger_sync

    invoices = _paid_in_ledger(db, 6)
    calls, clock, started = _slow_ledger(monkeypatch)
    clock.step = 3.0  # each page of 2: 3 s
    first = api.post("/api/invoices/sync-ledger", as_=exec_user)
    assert first.status == 200, first
    assert first.json["more"] == 1 and first.json["updated"] == 4, first.json  # pages at 0 and 3 s; at 6 s: none
    assert len(started) == 2 and service_ledger_sync.MANUAL_SYNC_SECONDS < 6
    ledger_read_long_ago(db)  # past the requested sync's cooldown: the 4 read are read again after the 2 (session 26)
    second = api.post("/api/invoices/sync-ledger", as_=exec_user)
    assert second.status == 200 and second.json["updated"] == 2 and "more" in second.json, second.json
    assert _synced(db, invoices) == [("paid", True)] * 6
