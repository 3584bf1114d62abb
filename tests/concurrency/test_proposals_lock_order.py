"""A client's public accept raced by the delete of a row the proposal names (docs/decisions/proposals.md,
"Concurrency").

A delete of the proposal's deal (or company) locks that row, then its `proposals.deal_id` (`company_id`) ON DELETE
SET NULL updates the proposal. The accept used to lock the proposal first, then move the deal to won and write rows
naming the company (and, writing the proposal's row a second time, check each of its foreign keys again, taking the
contact's row too): each held the row the other needed next, a deadlock (40P01, a 500; audit 9). The accept now
locks the company (FOR KEY SHARE) and the deal (FOR UPDATE) before the proposal, and writes the proposal's row once:
- a delete first: the accept waits for it and accepts the proposal without that row (200 `accepted`);
- the accept first: the deal's delete waits for it (its transaction ends: rolled back here, leaving nothing
  committed), then goes on; both succeed;
- a contact's delete holding the contact: the accept no longer needs that row.
A 409 on either side would not do: each test asserts both outcomes and the rows left.
"""
import os
import secrets
import threading
import time
from datetime import date, timedelta

import pytest
from sqlalchemy import insert, select, text

from chalicelib.areas.clients.models import Contract
from chalicelib.areas.deals.models import Company, Contact, Deal
from chalicelib.areas.pages.models import Page
from chalicelib.areas.projects.models import Project
from chalicelib.areas.proposals.models import Proposal
from tests.concurrency.conftest import committed_rows, own_unit_of_work, paused_in_thread

pytestmark = pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite",
                                reason="row locks between two connections need Postgres")

ACCEPT = {"name": "Client", "email": "client@example.com"}


def _forget(conn, ids) -> None:
    from sqlalchemy import delete

    conn.execute(delete(Proposal).where(Proposal.id == ids["proposal"]))
    conn.execute(delete(Page).where(Page.id == ids["page"]))
    for model, key in ((Deal, "deal"), (Contact, "contact"), (Company, "company")):
        if key in ids:
            conn.execute(delete(model).where(model.id == ids[key]))


@pytest.fixture(scope="module")
def made(engine):
    """The committed rows of this module's tests (`committed_rows`)."""
    yield from committed_rows(engine, _forget)


def _committed_sent_proposal(engine, made, *, deal=False, company=False, contact=False) -> dict:
    """Ids of a sent, shared proposal (`proposal`, `token`) naming a new `deal`, `company`, `contact` as asked,
    committed by another connection."""
    ids = {"token": secrets.token_urlsafe(32)}
    with engine.connect() as other:
        if company:
            ids["company"] = other.execute(insert(Company).values(name=f"Raced {secrets.token_hex(3)}")
                                           .returning(Company.id)).scalar_one()
        if contact:
            ids["contact"] = other.execute(insert(Contact).values(first_name="Raced")
                                           .returning(Contact.id)).scalar_one()
        if deal:
            ids["deal"] = other.execute(insert(Deal).values(title="Raced deal", status="open", currency="AUD")
                                        .returning(Deal.id)).scalar_one()
        ids["page"] = other.execute(insert(Page).values(title="Raced", content="", entity_type="proposal")
                                    .returning(Page.id)).scalar_one()
        ids["proposal"] = other.execute(insert(Proposal).values(
            title="Raced", deal_id=ids.get("deal"), company_id=ids.get("company"), contact_id=ids.get("contact"),
            page_id=ids["page"], status="sent", currency="AUD", share_token=ids["token"], share_enabled=True,
            valid_until=date.today() + timedelta(days=30)).returning(Proposal.id)).scalar_one()
        other.commit()
    made.append(ids)
    return ids


def _accepted(db, proposal_id) -> Proposal:
    """The proposal as the test's transaction (the API's) sees it, with the checks every accept passes."""
    db.expire_all()
    proposal = db.get(Proposal, proposal_id)
    assert (proposal.status, proposal.responder_name) == ("accepted", "Client")
    assert db.get(Project, proposal.project_id) is not None and db.get(Contract, proposal.contract_id) is not None
    return proposal


@pytest.mark.parametrize("parent", ["deal", "company"])
def test_an_accept_that_waited_for_a_delete_accepts_without_the_row(api, db, engine, made, parent):
    ids = _committed_sent_proposal(engine, made, **{parent: True})
    table = {"deal": "deals", "company": "companies"}[parent]
    locker = engine.connect()
    transaction = locker.begin()
    # the delete, first: its DELETE locks the row before its ON DELETE SET NULL reaches the proposal
    locker.execute(text(f"SELECT id FROM {table} WHERE id = :id FOR UPDATE"), {"id": ids[parent]})
    answers = []
    worker = threading.Thread(target=lambda: answers.append(
        api.post(f"/api/proposals/public/{ids['token']}/accept", json=ACCEPT)))
    worker.start()
    time.sleep(0.5)  # the accept waits for the row (before it locks the proposal)
    locker.execute(text(f"DELETE FROM {table} WHERE id = :id"), {"id": ids[parent]})  # ... then SET NULL
    transaction.commit()  # a deadlock would raise here or answer the accept 500 (409 with core.http's safety net)
    locker.close()
    worker.join(30)
    assert answers, "the accept did not finish"
    assert (answers[0].status, answers[0].json) == (200, {"success": True}), answers[0]
    proposal = _accepted(db, ids["proposal"])
    assert (proposal.deal_id, proposal.company_id) == (None, None)
    assert db.get(Project, proposal.project_id).company_id is None


def test_a_deal_delete_that_waited_for_an_accept_goes_on_after_it(api, db, engine, made, monkeypatch, exec_user):
    from chalicelib.areas.proposals import service_onboarding, service_public
    from chalicelib.core.context import Context

    ids = _committed_sent_proposal(engine, made, deal=True, company=True)
    outcomes = []
    # the accept holds the company, the deal and the proposal by then
    gate, holder = paused_in_thread(monkeypatch, service_onboarding, "run_onboarding")

    def run_accept():
        holder.add(threading.get_ident())
        uow = own_unit_of_work(engine)
        try:
            service_public.accept(Context(uow=uow), share_token=ids["token"], cookie=None, **ACCEPT)
            outcomes.append((uow.session.scalar(select(Proposal.status).where(Proposal.id == ids["proposal"])),
                             uow.session.scalar(select(Deal.status).where(Deal.id == ids["deal"]))))
        except Exception as exc:  # noqa: BLE001 - the test reports what it got
            outcomes.append(exc)
        finally:
            uow.session.rollback()  # the end of the accept's transaction, leaving the database as it was (no project,
            uow.session.close()     # budget, invoice or contract committed for other tests to count)

    accepting = threading.Thread(target=run_accept)
    accepting.start()
    time.sleep(0.3)  # the accept holds its rows and waits at its pause
    answers = []
    deleting = threading.Thread(target=lambda: answers.append(api.delete(f"/api/deals/deals/{ids['deal']}",
                                                                         as_=exec_user)))
    deleting.start()
    time.sleep(0.3)  # the delete waits for the accept (for the deal's row)
    gate.set()
    accepting.join(30)
    deleting.join(30)
    assert answers and outcomes, "a side did not finish"
    # the accept did its work (the deal won) while the delete waited; the delete then went on
    assert (answers[0].status, answers[0].json, outcomes) == (200, {"ok": True}, [("accepted", "won")]), (
        answers[0], outcomes)
    db.expire_all()
    assert db.get(Deal, ids["deal"]) is None and db.get(Proposal, ids["proposal"]).deal_id is None


def test_an_accept_does_not_wait_for_a_contact_held_by_its_delete(api, db, engine, made):
    ids = _committed_sent_proposal(engine, made, contact=True)
    locker = engine.connect()
    transaction = locker.begin()
    # a contact's delete, first: its DELETE locks the contact before its ON DELETE SET NULL reaches the proposal
    locker.execute(text("SELECT id FROM contacts WHERE id = :id FOR UPDATE"), {"id": ids["contact"]})
    answers = []
    worker = threading.Thread(target=lambda: answers.append(
        api.post(f"/api/proposals/public/{ids['token']}/accept", json=ACCEPT)))
    worker.start()
    worker.join(10)  # the accept never takes the contact's row: it ends while the delete holds it
    finished = bool(answers)
    transaction.rollback()  # (the delete cannot go on: the accept's transaction is the test's, never committed)
    locker.close()
    worker.join(30)
    # it used to write the proposal's row twice, the second UPDATE taking the contact FOR KEY SHARE (a foreign key
    # check), so the accept held the proposal and waited for the contact, whose delete waits for the proposal
    assert finished, "the accept waited for the contact's row"
    assert (answers[0].status, answers[0].json) == (200, {"success": True}), answers[0]
    assert _accepted(db, ids["proposal"]).contact_id == ids["contact"]
