"""The invoice notifications (docs/decisions/invoices.md, "Notifications"): `invoice_created`, `invoice_paid` and
`invoice_overdue`, listed on the preferences screen (core/notify_catalogue.py).

Who is told: the owner and the delivery manager of the project the invoice's budget belongs to, and for paid and
overdue also the invoice's creator; never the one who acted; only those who may read the invoice (active,
`invoices:view`, the invoice in their scope). An invoice without a project tells its creator only (paid, overdue).
`invoice_paid` once per invoice becoming paid (an update to `paid`, or a ledger sync finding it paid);
`invoice_overdue` once per invoice and due date, by the hourly `invoice-overdue-scan` job. Core notify de-duplicates
a repeat within 5 minutes: the tests move earlier notices out of that window to show the rule, not the window,
holds."""
import json
from datetime import timedelta
from types import SimpleNamespace
from decimal import Decimal

import pytest
from sqlalchemy import select, update

from chalicelib.areas.invoices.models import Invoice
from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from chalicelib.core.timeutil import org_today
from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_company, make_deal
from tests.areas.invoices.factories import make_invoice
from tests.areas.invoices.test_ledger_reads_s26 import ledger_read_long_ago
from tests.areas.projects.factories import make_project
from tests.factories import grant, make_user

KINDS = ("invoice_created", "invoice_paid", "invoice_overdue")


@pytest.fixture
def team(db):
    """A project of Acme with an owner (employee) and a delivery manager (lead), its budget, and a boss (executive)
    who acts; an outsider (employee, not on the project)."""
    owner = make_user(db, name="Olga Owner")
    delivery = make_user(db, access_level="lead", name="Dan Delivery")
    boss = make_user(db, access_level="executive", name="Bea Boss")
    outsider = make_user(db)
    company = make_company(db, name="Acme Pty")
    project = make_project(db, name="Site", owner_id=owner.id, delivery_manager_id=delivery.id,
                           company_id=company.id)
    budget = make_budget(db, resource_id=project.id, company_id=company.id, budget_type="fixed_price",
                         total_amount=Decimal("1000"))
    return SimpleNamespace(owner=owner, delivery=delivery, boss=boss, outsider=outsider, company=company,
                           project=project, budget=budget)


def told(api, user, kind=None):
    """The user's invoice notifications as they list them (GET /api/notifications), newest first."""
    response = api.get("/api/notifications", as_=user)
    assert response.status == 200, response
    return [n for n in response.json["notifications"] if n["type"] in ((kind,) if kind else KINDS)]


def nobody_told(db, *users):
    db.expire_all()
    return db.scalars(select(Notification.type).where(Notification.user_id.in_([u.id for u in users]),
                                                      Notification.type.in_(KINDS))).all() == []


def out_of_window(db):
    """Every notification made so far moved past core notify's 5-minute de-duplication window."""
    db.execute(update(Notification).values(created_at=utcnow() - timedelta(minutes=6)))
    db.flush()


def create(api, user, **body):
    response = api.post("/api/invoices", as_=user, json=body)
    assert response.status == 201, response
    return response.json["invoice"]


def set_status(api, user, invoice_id, status, **more):
    response = api.put(f"/api/invoices/{invoice_id}", as_=user, json={"status": status, **more})
    assert response.status == 200, response
    return response.json["invoice"]


# ---------------------------------------------------------------- invoice_created

def test_a_created_invoice_tells_the_owner_and_delivery_manager_of_its_project(api, db, team):
    invoice = create(api, team.boss, budget_id=team.budget.id, company_id=team.company.id)
    for person in (team.owner, team.delivery):
        [notice] = told(api, person)
        assert notice["type"] == "invoice_created"
        assert notice["title"] == f"Invoice created: {invoice['invoice_number']} for Acme Pty"
        assert notice["body"] == "Created by Bea Boss."
        assert (notice["resource_type"], notice["resource_id"], notice["action_url"], notice["actor_id"]) == (
            "invoice", invoice["id"], f"/invoices/{invoice['id']}", team.boss.id)
        assert api.get(f"/api/invoices/{invoice['id']}", as_=person).status == 200  # each may read it
    assert told(api, team.boss) == [] and nobody_told(db, team.outsider)


def test_a_generated_invoice_tells_them_too_but_never_the_one_who_made_it(api, db, team):
    """The owner generates it from the budget: the delivery manager is told, the owner (the actor) is not. The company
    is the budget's, taken by the generation."""
    grant(db, team.owner, "invoices", "update")
    invoice = create(api, team.owner, budget_id=team.budget.id, generate_from_budget=True)
    assert [n["title"] for n in told(api, team.delivery)] == [
        f"Invoice created: {invoice['invoice_number']} for Acme Pty"]
    assert told(api, team.owner) == []


def test_an_invoice_without_a_project_tells_nobody_it_was_created(api, db, team):
    """No budget, or a deal's budget (no project): nobody manages a project of it. The same boss then makes one of the
    project's budget, and those are told (of that invoice only)."""
    create(api, team.boss, company_id=team.company.id)
    deal_budget = make_budget(db, resource_type="deal", resource_id=make_deal(db, company_id=team.company.id).id)
    create(api, team.boss, budget_id=deal_budget.id)
    assert nobody_told(db, team.owner, team.delivery, team.boss, team.outsider)
    invoice = create(api, team.boss, budget_id=team.budget.id)
    assert [n["resource_id"] for n in told(api, team.owner)] == [invoice["id"]]
    assert [n["title"] for n in told(api, team.delivery)] == [f"Invoice created: {invoice['invoice_number']}"]


def test_only_those_who_may_read_the_invoice_are_told(api, db, team):
    """A delivery manager whose invoices permission was taken away, and a deactivated owner, are told nothing; the
    owner of another project the same delivery manager delivers is told of its invoice."""
    grant(db, team.delivery, "invoices", "none")
    team.owner.is_active = False
    db.flush()
    other = make_user(db)
    project = make_project(db, name="Other", owner_id=other.id, delivery_manager_id=team.delivery.id)
    budget = make_budget(db, resource_id=project.id)
    create(api, team.boss, budget_id=team.budget.id)
    invoice = create(api, team.boss, budget_id=budget.id)
    assert nobody_told(db, team.owner, team.delivery)
    assert [n["resource_id"] for n in told(api, other)] == [invoice["id"]]


def test_the_draft_a_proposals_acceptance_makes_tells_nobody(api, db):
    """The accept's automation makes the project (owned by the proposal's owner), its budget and a draft invoice: the
    owner is told `proposal_accepted`, not also `invoice_created`. An invoice staff then make of that budget is told."""
    from tests.areas.proposals.priced import priced_sent

    owner = make_user(db, access_level="executive", name="Pat Proposer")
    colleague = make_user(db, access_level="executive")
    pid = priced_sent(api, owner, [{"title": "Build", "items": [{"description": "Site", "quantity": 1,
                                                                 "unit_price": 500}]}],
                      company_id=make_company(db, name="Acme").id)
    token = api.put(f"/api/proposals/{pid}/share", as_=owner, json={"share_enabled": True}).json["share_token"]
    accepted = api.post(f"/api/proposals/public/{token}/accept", json={"name": "Ann", "email": "ann@acme.test"})
    assert accepted.status == 200, accepted
    proposal = api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]
    assert proposal["invoice_id"]
    assert told(api, owner) == []
    made = create(api, colleague, budget_id=proposal["budget_id"])
    assert [n["resource_id"] for n in told(api, owner)] == [made["id"]]


# ---------------------------------------------------------------- invoice_paid, by update

def test_an_update_to_paid_tells_the_managers_and_the_creator_once(api, db, team):
    creator = make_user(db, access_level="lead", name="Cal Creator")
    grant(db, creator, "invoices", "update")
    project_reader = make_project(db, owner_id=team.owner.id, delivery_manager_id=team.delivery.id,
                                  members=[creator])  # the creator reads the project of this budget
    budget = make_budget(db, resource_id=project_reader.id)
    invoice = create(api, creator, budget_id=budget.id, company_id=team.company.id)
    out_of_window(db)
    set_status(api, team.boss, invoice["id"], "sent")
    assert told(api, team.owner, "invoice_paid") == []  # not paid yet
    set_status(api, team.boss, invoice["id"], "paid")
    for person in (team.owner, team.delivery, creator):
        [notice] = told(api, person, "invoice_paid")
        assert notice["title"] == f"Invoice paid: {invoice['invoice_number']} for Acme Pty"
        assert notice["body"] == "Marked paid by Bea Boss."
        assert (notice["resource_type"], notice["resource_id"], notice["action_url"]) == (
            "invoice", invoice["id"], f"/invoices/{invoice['id']}")
    assert told(api, team.boss) == []
    out_of_window(db)
    set_status(api, team.boss, invoice["id"], "paid", notes="Thanks")  # already paid: not told again
    response = api.put(f"/api/invoices/{invoice['id']}", as_=team.boss, json={"notes": "Paid by EFT"})
    assert response.status == 200
    assert len(told(api, creator, "invoice_paid")) == 1
    # paid again after being set back: it became paid anew, and is told anew
    set_status(api, team.boss, invoice["id"], "sent")
    out_of_window(db)
    set_status(api, team.boss, invoice["id"], "paid")
    assert len(told(api, creator, "invoice_paid")) == 2


def test_an_invoice_without_a_project_tells_its_creator_it_was_paid_unless_they_cannot_read_it(api, db, team):
    """Without a budget the creator is told. A creator who cannot read the invoice (it was moved to a budget of a
    project they do not see) is not; the project's managers are. The actor is never told, creator or not."""
    creator = make_user(db, access_level="lead")
    grant(db, creator, "invoices", "update")
    own = create(api, creator, company_id=team.company.id)
    moved = create(api, creator)
    set_status(api, team.boss, moved["id"], "finalised", budget_id=team.budget.id)
    assert api.get(f"/api/invoices/{moved['id']}", as_=creator).status == 404
    set_status(api, team.boss, own["id"], "paid")
    set_status(api, team.boss, moved["id"], "paid")
    assert [n["resource_id"] for n in told(api, creator)] == [own["id"]]
    assert [n["resource_id"] for n in told(api, team.owner)] == [moved["id"]]
    mine = create(api, team.boss)
    set_status(api, team.boss, mine["id"], "paid")
    assert told(api, team.boss) == []


# ---------------------------------------------------------------- invoice_paid, by the ledger sync

def _in_ledger(db, invoice: Invoice, status: str = "AUTHORISED") -> None:
    """Link the invoice to a sandbox ledger invoice of its total in this ledger status (approved here)."""
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice

    row = LedgerSandboxInvoice(invoice_number=invoice.invoice_number, contact_name="Acme Pty", status=status,
                               currency=invoice.currency, total=invoice.total, amount_paid=Decimal("0"), lines=[],
                               payments=[], pdf=b"%PDF-1.4")
    db.add(row)
    db.flush()
    invoice.ledger_invoice_id, invoice.ledger_status, invoice.status = row.id, status, "approved"
    db.flush()


def _ledger_invoices(db, team, creator, count: int) -> list[Invoice]:
    invoices = []
    for _ in range(count):
        invoice = make_invoice(db, company_id=team.company.id, budget_id=team.budget.id, created_by=creator.id,
                               total=Decimal("1100"), amount_due=Decimal("1100"))
        _in_ledger(db, invoice)
        invoices.append(invoice)
    return invoices


def _pay_in_ledger(db, invoices) -> None:
    from chalicelib.providers.ledger.sandbox import record_payment

    for invoice in invoices:
        record_payment(db, invoice.ledger_invoice_id, "1100.00", reference="EFT")


def test_a_ledger_sync_that_finds_an_invoice_paid_tells_once(api, db, client, team):
    """Through the route (the boss syncs: not told) and the hourly job. Paid in part: nobody told; paid in full: told
    once; synced again (out of the de-duplication window): not told again, nor by the detail's live read."""
    from chalicelib.providers.ledger.sandbox import record_payment

    creator = make_user(db, access_level="executive")
    [invoice] = _ledger_invoices(db, team, creator, 1)
    record_payment(db, invoice.ledger_invoice_id, "100.00")
    assert api.post("/api/invoices/sync-ledger", as_=team.boss).json["updated"] == 1
    assert nobody_told(db, team.owner, team.delivery, creator)  # partially paid
    record_payment(db, invoice.ledger_invoice_id, "1000.00")
    ledger_read_long_ago(db)  # past the requested sync's cooldown (session 26)
    assert api.post("/api/invoices/sync-ledger", as_=team.boss).json["updated"] == 1
    for person in (team.owner, team.delivery, creator):
        [notice] = told(api, person, "invoice_paid")
        assert notice["title"] == f"Invoice paid: {invoice.invoice_number} for Acme Pty"
        assert notice["body"] == "Paid in the ledger: AUD 1,100.00 received."
        assert notice["actor_id"] == team.boss.id
    assert told(api, team.boss) == []
    out_of_window(db)
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    assert client.lambda_.invoke("ledger_invoice_sync", event).payload["errors"] == []
    ledger_read_long_ago(db)  # past the detail's window, so that the detail reads the ledger (session 26)
    assert api.get(f"/api/invoices/{invoice.id}", as_=creator).status == 200  # its live read
    assert api.post(f"/api/invoices/{invoice.id}/sync-ledger", as_=team.boss).status == 200
    assert [len(told(api, person, "invoice_paid")) for person in (team.owner, team.delivery, creator)] == [1, 1, 1]


def test_the_hourly_sync_tells_with_no_actor_and_a_hand_paid_invoice_is_not_told_again(api, db, client, team):
    """The job has no actor: the creator is told too. An invoice set to paid by hand (told then) and later paid in
    the ledger is not told again."""
    creator = make_user(db, access_level="executive")
    first, by_hand = _ledger_invoices(db, team, creator, 2)
    set_status(api, team.boss, by_hand.id, "paid")
    out_of_window(db)
    _pay_in_ledger(db, [first, by_hand])
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    assert client.lambda_.invoke("ledger_invoice_sync", event).payload["updated"] == 2
    for person in (team.owner, team.delivery, creator):
        assert [n["resource_id"] for n in told(api, person, "invoice_paid")] == [first.id, by_hand.id]
        [from_ledger, hand] = told(api, person, "invoice_paid")
        assert from_ledger["actor_id"] is None and hand["body"] == "Marked paid by Bea Boss."


def test_a_sync_tells_any_number_of_paid_invoices_in_the_same_statements(api, db, team, count_queries, aws):
    """With the notifications queue configured (as deployed). A sync run in which 2 invoices became paid costs the
    statements of one in which 12 did (each told to three people: the owner and the delivery manager scoped readers,
    the creator an executive)."""
    counts = []
    for size in (2, 12):
        creator = make_user(db, access_level="executive")
        invoices = _ledger_invoices(db, team, creator, size)
        _pay_in_ledger(db, invoices)
        with count_queries() as counter:
            answer = api.post("/api/invoices/sync-ledger", as_=team.boss)
        assert answer.status == 200 and answer.json["updated"] == size, answer
        counts.append(counter.count)
        assert len(told(api, creator, "invoice_paid")) == size
        out_of_window(db)
    assert counts[0] == counts[1], counts


# ---------------------------------------------------------------- invoice_overdue

def _overdue(db, team, creator, *, days: int = 1, **values) -> Invoice:
    values = {"status": "sent", "company_id": team.company.id, "budget_id": team.budget.id, "created_by": creator.id,
              "issued_date": org_today() - timedelta(days=40), "due_date": org_today() - timedelta(days=days),
              "total": Decimal("1100"), "amount_paid": Decimal("100"), "amount_due": Decimal("1000"), **values}
    return make_invoice(db, **values)


def _scan(client):
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    return client.lambda_.invoke("invoice_overdue_scan", event).payload


def test_the_overdue_scan_through_the_scheduled_handler_tells_once(api, db, client, team):
    creator = make_user(db, access_level="executive")
    late = _overdue(db, team, creator, days=3)
    approved = _overdue(db, team, creator, status="approved", amount_due=None)
    not_late = [_overdue(db, team, creator, days=0),                                   # due today
                _overdue(db, team, creator, status="draft"), _overdue(db, team, creator, status="finalised"),
                _overdue(db, team, creator, status="paid"), _overdue(db, team, creator, status="voided"),
                _overdue(db, team, creator, payment_status="paid"),                    # paid in the ledger
                _overdue(db, team, creator, due_date=None)]
    stamped = {i.id: i.updated_at for i in (late, approved)}
    assert _scan(client) == {"overdue": 2, "notified": 6}
    for person in (team.owner, team.delivery, creator):
        assert sorted(n["resource_id"] for n in told(api, person)) == sorted([late.id, approved.id])
    [notice] = [n for n in told(api, creator) if n["resource_id"] == late.id]
    assert notice["type"] == "invoice_overdue" and notice["actor_id"] is None
    assert notice["title"] == f"Invoice overdue: {late.invoice_number} for Acme Pty"
    assert notice["body"] == f"It was due on {late.due_date.isoformat()}; AUD 1,000.00 is outstanding."
    [other] = [n for n in told(api, creator) if n["resource_id"] == approved.id]
    assert other["body"].endswith("AUD 1,000.00 is outstanding.")  # total less amount paid, no amount due yet
    out_of_window(db)
    assert _scan(client) == {"overdue": 0, "notified": 0}  # run again: nothing new
    assert len(told(api, creator)) == 2
    db.expire_all()
    assert {i.id: db.get(Invoice, i.id).updated_at for i in (late, approved)} == stamped  # no change of the invoice
    assert all(db.get(Invoice, i.id).overdue_noticed_for is None for i in not_late)


def test_the_overdue_scan_through_the_cli_and_a_new_due_date_is_told_again(api, db, team, capsys):
    """Once per invoice and due date: moved to another date that has passed too, it is told again; an invoice without
    a project tells its creator only."""
    from chalicelib import cli

    creator = make_user(db, access_level="executive")
    late = _overdue(db, team, creator, days=5)
    loose = _overdue(db, team, creator, budget_id=None)
    capsys.readouterr()
    assert cli.main(["job", "invoice-overdue-scan"]) == 0
    assert json.loads(capsys.readouterr().out) == {"overdue": 2, "notified": 4}
    assert sorted(n["resource_id"] for n in told(api, creator)) == sorted([late.id, loose.id])
    assert [n["resource_id"] for n in told(api, team.owner)] == [late.id]
    out_of_window(db)
    assert cli.main(["job", "invoice-overdue-scan"]) == 0
    assert json.loads(capsys.readouterr().out) == {"overdue": 0, "notified": 0}
    moved = (org_today() - timedelta(days=2)).isoformat()
    assert api.put(f"/api/invoices/{late.id}", as_=team.boss, json={"due_date": moved}).status == 200
    assert cli.main(["job", "invoice-overdue-scan"]) == 0
    assert json.loads(capsys.readouterr().out) == {"overdue": 1, "notified": 3}
    [again, first] = [n for n in told(api, creator) if n["resource_id"] == late.id]
    assert again["body"].startswith(f"It was due on {moved};")
    # a due date moved into the future is not overdue: nothing until it passes
    assert api.put(f"/api/invoices/{loose.id}", as_=team.boss,
                   json={"due_date": (org_today() + timedelta(days=7)).isoformat()}).status == 200
    assert cli.main(["job", "invoice-overdue-scan"]) == 0
    assert json.loads(capsys.readouterr().out) == {"overdue": 0, "notified": 0}


def test_the_overdue_scan_tells_only_readers(api, db, client, team):
    """A creator who cannot read the invoice (outside its project), a delivery manager without invoices:view and a
    deactivated owner are told nothing."""
    creator = make_user(db)  # an employee who is not on the project
    grant(db, team.delivery, "invoices", "none")
    late = _overdue(db, team, creator)
    assert _scan(client) == {"overdue": 1, "notified": 1}
    assert [n["resource_id"] for n in told(api, team.owner)] == [late.id]
    assert nobody_told(db, creator, team.delivery, team.outsider)


def test_the_overdue_scan_costs_the_same_statements_for_few_and_many_invoices(db, team, count_queries, aws):
    """2 and 12 overdue invoices, each of its own project (an owner and a delivery manager each, scoped readers) and
    creator: the same statements."""
    from chalicelib.areas.invoices import jobs

    counts = []
    for size in (2, 12):
        for _ in range(size):
            project = make_project(db, owner_id=make_user(db).id, delivery_manager_id=make_user(db, access_level="lead").id)
            budget = make_budget(db, resource_id=project.id)
            _overdue(db, team, make_user(db, access_level="executive"), budget_id=budget.id)
        with count_queries() as counter:
            assert jobs.invoice_overdue_scan() == {"overdue": size, "notified": 3 * size}
        counts.append(counter.count)
    assert counts[0] == counts[1], counts
