"""adplatforms-sync under Lambda's timeout and retries (session 22's retries audit): the connections are synced
least recently synced (or tried) first, never-synced first, and no connection is started once the run's time
budget (SYNC_SECONDS of the function's 120 s) is spent; the rest is left to the next run (`left`)."""
import json
from datetime import timedelta

import pytest

from chalicelib.areas.portal.models import AdConnection
from chalicelib.core import crypto
from chalicelib.core.ids import utcnow
from tests.areas.portal.conftest import make_client


class Killed(BaseException):
    """The function's timeout: nothing after it runs in this invocation."""


def _google(db, company, n, **kw):
    connection = AdConnection(id=f"00000000-0000-4000-8000-00000000000{n}", company_id=company.id,
                              platform="google_ads", display_name=f"Google {n}", account_id=f"{n}" * 10,
                              secret=crypto.encrypt(json.dumps({"customer_id": f"{n}" * 10, "refresh_token": f"t-{n}"})),
                              **kw)
    db.add(connection)
    db.flush()
    return connection


@pytest.fixture
def clock(app, monkeypatch):  # `app`: every area's models loaded
    from chalicelib.core import timeutil

    now = {"t": 5000.0}
    monkeypatch.setattr(timeutil, "clock", lambda: now["t"])
    return now


def _slow_reads(monkeypatch, clock, seconds, read, kill_after=None):
    """Every platform read takes `seconds` of the clock; with `kill_after`, the read after that many in one
    invocation is the function's timeout."""
    from chalicelib.providers.adplatforms.sandbox import SandboxAdPlatform

    real = SandboxAdPlatform.daily_metrics

    def slow(self, since, until):
        if kill_after is not None and len(read[-1]) == kill_after:
            raise Killed()
        clock["t"] += seconds
        read[-1].append(self.seed)
        return real(self, since, until)

    monkeypatch.setattr(SandboxAdPlatform, "daily_metrics", slow)


def test_the_sync_stops_starting_connections_past_its_budget_and_the_next_run_takes_the_rest(db, set_env, clock,
                                                                                             monkeypatch):
    from chalicelib.areas.portal.jobs import adplatforms_sync
    from chalicelib.areas.portal.service_connections import SYNC_SECONDS

    set_env(ADPLATFORMS_BACKFILL_DAYS="2", ADPLATFORMS_RESYNC_DAYS="2")
    company = make_client(db, dashboard=True)
    conns = [_google(db, company, n) for n in (1, 2, 3)]
    read: list[list[str]] = []
    _slow_reads(monkeypatch, clock, SYNC_SECONDS / 2 + 1, read)  # two reads spend the budget
    read.append([])
    first = adplatforms_sync()
    assert (first["connections"], first["synced"], first["left"]) == (3, 2, 1)
    assert read[-1] == [conns[0].id, conns[1].id]
    read.append([])
    second = adplatforms_sync()
    # the one left, never synced, comes first; then the least recently synced
    assert read[-1] == [conns[2].id, conns[0].id]
    assert (second["synced"], second["left"]) == (2, 1)
    db.expire_all()
    assert all(db.get(AdConnection, c.id).last_synced_at is not None for c in conns)


def test_a_run_killed_at_its_timeout_leaves_the_next_invocation_the_connections_it_did_not_reach(db, set_env, clock,
                                                                                                  monkeypatch):
    """A run killed part-way (the scheduled invocation, then Lambda's two retries): each retry started again from
    the first connection in (company_id, id) order, synced seconds ago, and was killed at the same point; the last
    connection was never synced. Now the retry starts with the connections not synced yet."""
    from chalicelib.areas.portal.jobs import adplatforms_sync

    set_env(ADPLATFORMS_BACKFILL_DAYS="2", ADPLATFORMS_RESYNC_DAYS="2")
    conns = [_google(db, make_client(db, dashboard=True), n) for n in (1, 2, 3)]
    read: list[list[str]] = []
    _slow_reads(monkeypatch, clock, 1, read, kill_after=2)
    for _attempt in range(2):
        read.append([])
        with pytest.raises(Killed):
            adplatforms_sync()
    db.expire_all()
    assert all(db.get(AdConnection, c.id).last_synced_at is not None for c in conns), read


def test_the_order_is_least_recently_synced_or_tried_first(db, set_env, clock, monkeypatch):
    """Never synced first (id order among them), then by the last sync, or, for a connection in `error`, the last
    failed try (its `updated_at`): a connection failing slowly at the head of every run would starve the others."""
    from chalicelib.areas.portal.service_connections import sync_connections

    set_env(ADPLATFORMS_RESYNC_DAYS="2")
    company = make_client(db, dashboard=True)
    now = utcnow()
    recent = _google(db, company, 1, last_synced_at=now - timedelta(hours=1), backfilled_at=now)
    failed = _google(db, company, 2, status="error", last_sync_error="x", last_synced_at=now - timedelta(days=9),
                     backfilled_at=now)
    failed.updated_at = now - timedelta(minutes=30)
    old = _google(db, company, 3, last_synced_at=now - timedelta(days=2), backfilled_at=now)
    never_b = _google(db, company, 5)
    never_a = _google(db, company, 4)
    db.flush()
    read: list[list[str]] = [[]]
    _slow_reads(monkeypatch, clock, 0, read)
    outcome = sync_connections(backfill=True)
    assert outcome["synced"] == 5 and "left" not in outcome
    assert read[0] == [never_a.id, never_b.id, old.id, recent.id, failed.id]
