"""A client's public accept raced by an edit of the proposal's company or deal (session 23; docs/decisions/
proposals.md, "Lock order of the public accept").

The accept reads the proposal without a lock, locks the company and the deal it names, then the proposal. An edit
of the proposal committed in between (a staff update naming another deal or company) left the accept holding the
proposal with a company or deal it had not locked: it locked that one late, after the proposal, the reverse of the
order of that row's delete (the row, then the proposal through ON DELETE SET NULL). With such a delete holding
the new row, the two waited for each other: a deadlock (40P01), one of them failing.

Against the concurrency tests' live server (each side commits for real); deterministic: another transaction holds
the old row, so the accept waits between its read of the proposal and its lock of it while the edit commits and the
delete takes the new row.
"""
from __future__ import annotations

import secrets
import threading
import time
from datetime import date, timedelta

from sqlalchemy import insert, select, text

from tests.concurrency.test_concurrency import (
    TIMEOUT,
    _call,
    pytestmark,  # noqa: F401 - Postgres only, as there
)

ACCEPT = {"name": "Client", "email": "client@example.com"}
TABLE = {"deal": "deals", "company": "companies"}


def _parent(conn, kind: str) -> str:
    from chalicelib.areas.deals.models import Company, Deal

    if kind == "deal":
        return conn.execute(insert(Deal).values(title=f"Deal {secrets.token_hex(3)}", status="open", currency="AUD")
                            .returning(Deal.id)).scalar_one()
    return conn.execute(insert(Company).values(name=f"Company {secrets.token_hex(3)}", status="prospect")
                        .returning(Company.id)).scalar_one()


def _sent_proposal(sessions, kind: str) -> dict:
    """A sent, shared proposal naming a first `kind` row (`old`), and a second such row (`new`), committed."""
    from chalicelib.areas.pages.models import Page
    from chalicelib.areas.proposals.models import Proposal

    ids = {"token": secrets.token_urlsafe(32)}
    with sessions() as db:
        conn = db.connection()
        ids["old"], ids["new"] = _parent(conn, kind), _parent(conn, kind)
        page = conn.execute(insert(Page).values(title="Raced", content="", entity_type="proposal")
                            .returning(Page.id)).scalar_one()
        ids["proposal"] = conn.execute(insert(Proposal).values(
            title="Raced", page_id=page, status="sent", currency="AUD", share_token=ids["token"], share_enabled=True,
            valid_until=date.today() + timedelta(days=30), **{f"{kind}_id": ids["old"]})
            .returning(Proposal.id)).scalar_one()
        db.commit()
    return ids


def _proposal(sessions, proposal_id):
    from chalicelib.areas.proposals.models import Proposal

    with sessions() as db:
        return db.get(Proposal, proposal_id)


def _status(sessions, kind: str, row_id: str):
    from chalicelib.areas.deals.models import Company, Deal

    model = {"deal": Deal, "company": Company}[kind]
    with sessions() as db:
        return db.scalar(select(model.status).where(model.id == row_id))


def _accept_during_edit(base, sessions, ids, kind, *, before_release=None):
    """The accept started while another transaction holds the `old` row (FOR UPDATE: an edit of that deal or
    company), so it has read the proposal (naming `old`) and waits before locking the proposal; meanwhile an edit of
    the proposal naming `new` instead commits, `before_release()` runs (it may take the new row), and the `old` row
    is let go. Answers the accept's thread and its answers."""
    answers = []
    accepting = threading.Thread(target=lambda: answers.append(
        _call(base, "POST", f"/api/proposals/public/{ids['token']}/accept", "", ACCEPT)))
    with sessions() as holder:
        holder.execute(text(f"SELECT id FROM {TABLE[kind]} WHERE id = :id FOR UPDATE"), {"id": ids["old"]})
        accepting.start()
        time.sleep(1.0)  # the accept has read the proposal (naming `old`) and waits for `old`
        assert accepting.is_alive(), "the accept did not wait for the old row"
        with sessions() as edit:  # the proposal's edit: not locked by anyone yet
            edit.execute(text(f"UPDATE proposals SET {kind}_id = :new WHERE id = :id"),
                         {"new": ids["new"], "id": ids["proposal"]})
            edit.commit()
        if before_release is not None:
            before_release()
        holder.rollback()
    return accepting, answers


def _check_no_deadlock(base, sessions, kind):
    ids = _sent_proposal(sessions, kind)
    taken, go, deleted = threading.Event(), threading.Event(), []

    def delete_new():  # a delete of the new row: the row first, then (ON DELETE SET NULL) the proposal
        with sessions() as other:
            try:
                other.execute(text(f"SELECT id FROM {TABLE[kind]} WHERE id = :id FOR UPDATE"), {"id": ids["new"]})
                taken.set()
                go.wait(TIMEOUT)
                other.execute(text(f"DELETE FROM {TABLE[kind]} WHERE id = :id"), {"id": ids["new"]})
                other.commit()
                deleted.append("committed")
            except Exception as exc:  # noqa: BLE001 - the test reports what it got (a deadlock: 40P01)
                deleted.append(exc)

    deleting = threading.Thread(target=delete_new)

    def take_new():
        deleting.start()
        assert taken.wait(TIMEOUT), "the delete did not take the new row"

    accepting, answers = _accept_during_edit(base, sessions, ids, kind, before_release=take_new)
    time.sleep(1.0)  # the accept has the old row; it holds the proposal (now naming `new`) or waits for `new`
    go.set()  # the delete's SET NULL needs the proposal
    deleting.join(TIMEOUT * 2)
    accepting.join(TIMEOUT * 2)
    assert deleted and answers, "a side did not finish"
    # both succeed: the delete goes on, the accept (after it) accepts the proposal without the deleted row
    assert (deleted, answers[0]) == (["committed"], (200, {"success": True})), (deleted, answers)
    proposal = _proposal(sessions, ids["proposal"])
    assert (proposal.status, getattr(proposal, f"{kind}_id")) == ("accepted", None)
    assert _status(sessions, kind, ids["old"]) == ("open" if kind == "deal" else "prospect")  # not the old row


def test_an_accept_raced_by_a_deal_change_and_that_deals_delete_does_not_deadlock(live):
    base, sessions = live
    _check_no_deadlock(base, sessions, "deal")


def test_an_accept_raced_by_a_company_change_and_that_companys_delete_does_not_deadlock(live):
    base, sessions = live
    _check_no_deadlock(base, sessions, "company")


def test_an_accept_raced_by_a_deal_change_wins_the_new_deal_not_the_old(live):
    """(No delete.) The accept acts on the proposal as the edit left it: the new deal won, the old one untouched."""
    base, sessions = live
    ids = _sent_proposal(sessions, "deal")
    accepting, answers = _accept_during_edit(base, sessions, ids, "deal")
    accepting.join(TIMEOUT * 2)
    assert answers and answers[0] == (200, {"success": True}), answers
    proposal = _proposal(sessions, ids["proposal"])
    assert (proposal.status, proposal.deal_id) == ("accepted", ids["new"])
    assert (_status(sessions, "deal", ids["new"]), _status(sessions, "deal", ids["old"])) == ("won", "open")


def test_an_accept_raced_by_a_company_change_makes_the_new_company_a_client(live):
    base, sessions = live
    ids = _sent_proposal(sessions, "company")
    accepting, answers = _accept_during_edit(base, sessions, ids, "company")
    accepting.join(TIMEOUT * 2)
    assert answers and answers[0] == (200, {"success": True}), answers
    proposal = _proposal(sessions, ids["proposal"])
    assert (proposal.status, proposal.company_id) == ("accepted", ids["new"])
    assert (_status(sessions, "company", ids["new"]), _status(sessions, "company", ids["old"])) == (
        "client", "prospect")
