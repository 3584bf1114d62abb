"""Session 28's money audit: an invoice never totals below zero (the ledger approves none; a fixed price left to bill
counts none), every amount the service accepts is answered to the cent, a ledger total that parts from the invoice's
is reported by the sync, and an invoice that owes nothing is never overdue (docs/decisions/invoices.md, session 28)."""
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select

from chalicelib.core.models import HistoryEntry
from chalicelib.core.timeutil import org_today
from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item
from tests.areas.invoices.test_notices import _overdue, _scan, team  # noqa: F401 - the notices tests' team
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal tests' client
from tests.factories import exact_json, make_user


def lines_path(invoice_id):
    return f"/api/invoices/{invoice_id}/line-items"


def add(api, user, invoice_id, **body):
    return api.post(lines_path(invoice_id), as_=user, json={"description": "Work", **body})


def detail(api, user, invoice_id):
    return api.get(f"/api/invoices/{invoice_id}", as_=user).json["invoice"]


def generate(api, user, budget):
    return api.post("/api/invoices", as_=user, json={"budget_id": budget.id, "generate_from_budget": True})


# ---------------------------------------------------------------- totals below zero

def test_a_discount_larger_than_the_lines_is_a_400_naming_the_line(api, db, exec_user):
    invoice = make_invoice(db)
    assert add(api, exec_user, invoice.id, quantity=1, unit_price="100").status == 201
    below = add(api, exec_user, invoice.id, quantity=1, unit_price="-150", description="Refund")
    assert below.status == 400, below
    assert {d["field"] for d in below.json["details"]} == {"quantity", "unit_price"}
    found = detail(api, exec_user, invoice.id)
    assert (found["subtotal"], found["total"]) == (100.0, 110.0)
    down_to_zero = add(api, exec_user, invoice.id, quantity=1, unit_price="-100", description="Discount")
    assert down_to_zero.status == 201, down_to_zero
    assert detail(api, exec_user, invoice.id)["total"] == 0.0


def test_an_edit_that_takes_the_invoice_below_zero_is_a_400_naming_the_field_sent(api, db, exec_user):
    invoice = make_invoice(db)
    assert add(api, exec_user, invoice.id, quantity=1, unit_price="100").status == 201
    discount = add(api, exec_user, invoice.id, quantity=1, unit_price="-50").json["item"]
    edited = api.put(f"{lines_path(invoice.id)}/{discount['id']}", as_=exec_user, json={"quantity": 3})
    assert edited.status == 400, edited
    assert [d["field"] for d in edited.json["details"]] == ["quantity"]
    assert detail(api, exec_user, invoice.id)["subtotal"] == 50.0


def test_removing_the_line_a_discount_rests_on_is_a_409(api, db, exec_user):
    invoice = make_invoice(db)
    work = add(api, exec_user, invoice.id, quantity=1, unit_price="100").json["item"]
    assert add(api, exec_user, invoice.id, quantity=1, unit_price="-60").status == 201
    removed = api.delete(f"{lines_path(invoice.id)}/{work['id']}", as_=exec_user)
    assert removed.status == 409, removed
    assert detail(api, exec_user, invoice.id)["subtotal"] == 40.0


def test_the_sandbox_ledger_refuses_to_approve_an_invoice_below_zero_as_xero_does(api, db, exec_user):
    """An invoice below zero made before the rule (written directly) still pushes as a draft; its approval is the
    ledger's refusal, a 502 as the live adapter answers Xero's, and nothing is written."""
    invoice = make_invoice(db, company_id=make_company(db, name="Refund Pty").id, subtotal=Decimal("-100"),
                           tax=Decimal("-10"), total=Decimal("-110"))
    make_invoice_item(db, invoice, quantity=Decimal("1"), unit_price=Decimal("-100"))
    assert api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user).status == 200
    approved = api.post(f"/api/invoices/{invoice.id}/ledger-approve", as_=exec_user)
    assert approved.status == 502, approved
    assert approved.json["error"].startswith("The accounting ledger refused the request: "), approved.json
    assert detail(api, exec_user, invoice.id)["status"] == "finalised"


def test_an_invoice_below_zero_does_not_raise_what_is_left_of_a_fixed_price(api, db, exec_user):
    """Fixed price 1,000.00 billed whole; an invoice of -200.00 on the budget (made before the rule) bills nothing,
    so nothing is left to generate (it was 200.00 more)."""
    budget = make_budget(db, budget_type="fixed_price", total_amount=Decimal("1000"), name="Site",
                         company_id=make_company(db, name="Fixed Pty").id)
    assert generate(api, exec_user, budget).json["invoice"]["subtotal"] == 1000.0
    make_invoice(db, budget_id=budget.id, subtotal=Decimal("-200"), tax=Decimal("-20"), total=Decimal("-220"))
    again = generate(api, exec_user, budget)
    assert again.status == 409, again


def test_an_invoice_below_zero_does_not_make_room_for_an_invoice_taken_out_of_voided(api, db, exec_user):
    budget = make_budget(db, budget_type="fixed_price", total_amount=Decimal("1000"), name="Site",
                         company_id=make_company(db, name="Fixed Pty").id)
    assert generate(api, exec_user, budget).status == 201
    make_invoice(db, budget_id=budget.id, subtotal=Decimal("-200"), tax=Decimal("-20"), total=Decimal("-220"))
    voided = make_invoice(db, budget_id=budget.id, status="voided", subtotal=Decimal("200"), tax=Decimal("20"),
                          total=Decimal("220"))
    back = api.put(f"/api/invoices/{voided.id}", as_=exec_user, json={"status": "draft"})
    assert back.status == 409, back


# ---------------------------------------------------------------- amounts answered to the cent

def test_an_invoice_total_the_json_number_cannot_hold_to_the_cent_is_a_400(api, db, exec_user):
    """90.1 x 999,999,999,999.99 totals 99,109,999,999,999.01, answered .02 (a double above 2^46 cannot tell the
    cents apart)."""
    invoice = make_invoice(db)
    refused = add(api, exec_user, invoice.id, quantity="90.1", unit_price="999999999999.99")
    assert refused.status == 400, refused
    assert {d["field"] for d in refused.json["details"]} == {"quantity", "unit_price"}


def test_an_invoice_total_the_service_accepts_is_answered_to_the_cent(api, db, exec_user):
    invoice = make_invoice(db)
    made = add(api, exec_user, invoice.id, quantity="63.3", unit_price="999999999999.99")
    assert made.status == 201, made
    assert exact_json(made)["item"]["amount"] == Decimal("63299999999999.37")
    found = exact_json(api.get(f"/api/invoices/{invoice.id}", as_=exec_user))["invoice"]
    assert (found["subtotal"], found["tax"]) == (Decimal("63299999999999.37"), Decimal("6329999999999.94"))
    assert found["total"] == found["amount_due"] == Decimal("69629999999999.31")


def test_a_line_too_large_to_answer_is_a_400_even_when_others_offset_it(api, db, exec_user):
    """Two lines cancelling out keep the total small while one line's amount could grow past what a JSON number
    answers to the cent."""
    invoice = make_invoice(db)
    assert add(api, exec_user, invoice.id, quantity="60", unit_price="999999999999").status == 201
    offset = add(api, exec_user, invoice.id, quantity="60", unit_price="-999999999999").json["item"]
    assert add(api, exec_user, invoice.id, quantity="60", unit_price="999999999999").status == 201
    grown = api.put(f"{lines_path(invoice.id)}/{offset['id']}", as_=exec_user, json={"quantity": "120"})
    assert grown.status == 400, grown
    assert [d["field"] for d in grown.json["details"]] == ["quantity"]


# ---------------------------------------------------------------- a ledger total that parts from the invoice's

def _approved_in_ledger(api, db, user):
    """An invoice of 2 x 500 (1,100.00 with GST) pushed and approved; answers (invoice id, its sandbox row)."""
    from chalicelib.areas.invoices.models import Invoice
    from chalicelib.providers.ledger.models import LedgerSandboxInvoice

    invoice = make_invoice(db, company_id=make_company(db, name="Edited Pty").id)
    assert add(api, user, invoice.id, quantity=2, unit_price="500").status == 201
    for move in ("push-to-ledger", "ledger-approve"):
        assert api.post(f"/api/invoices/{invoice.id}/{move}", as_=user).status == 200, move
    db.expire_all()
    return invoice.id, db.get(LedgerSandboxInvoice, db.get(Invoice, invoice.id).ledger_invoice_id)


def _edited_in_ledger(db, row, total):
    row.total = Decimal(total)  # as a line added to the authorised invoice in Xero
    db.flush()


def _sync(api, db, user, invoice_id):
    """A batch sync that reads this invoice again (its last read set back past the route's cooldown)."""
    from chalicelib.areas.invoices.models import Invoice

    db.get(Invoice, invoice_id).ledger_synced_at = None
    db.flush()
    synced = api.post("/api/invoices/sync-ledger", as_=user)
    assert synced.status == 200, synced
    return [e["error"] for e in synced.json["errors"] if e["invoice_id"] == invoice_id]


def _total_entries(db, invoice_id):
    db.expire_all()
    return db.scalars(select(HistoryEntry.changes).where(HistoryEntry.entity_id == invoice_id,
                                                         HistoryEntry.action == "ledger_total_differs")
                      .order_by(HistoryEntry.created_at)).all()


def test_a_ledger_total_that_parts_from_the_invoice_is_reported_by_the_sync_and_ours_kept(api, db, exec_user):
    from chalicelib.providers.ledger.sandbox import record_payment

    invoice_id, row = _approved_in_ledger(api, db, exec_user)
    _edited_in_ledger(db, row, "1650.00")
    record_payment(db, row.id, "1650.00", on=date(2026, 4, 2), reference="EFT")
    reported = _sync(api, db, exec_user, invoice_id)
    assert reported == ["the ledger invoice totals AUD 1,650.00, this invoice AUD 1,100.00"]
    found = detail(api, exec_user, invoice_id)
    assert (found["status"], found["amount_paid"], found["total"]) == ("paid", 1650.0, 1100.0)


def test_a_ledger_total_that_parts_is_recorded_once_per_distinct_total(api, db, exec_user):
    invoice_id, row = _approved_in_ledger(api, db, exec_user)
    _edited_in_ledger(db, row, "1650.00")
    assert _sync(api, db, exec_user, invoice_id) and _sync(api, db, exec_user, invoice_id)  # reported each run
    assert _total_entries(db, invoice_id) == [
        {"total": 1100.0, "currency": "AUD", "ledger_total": 1650.0, "ledger_currency": "AUD"}]
    _edited_in_ledger(db, row, "1705.00")
    _sync(api, db, exec_user, invoice_id)
    assert [entry["ledger_total"] for entry in _total_entries(db, invoice_id)] == [1650.0, 1705.0]


def test_a_ledger_total_that_agrees_reports_nothing(api, db, exec_user):
    invoice_id, _ = _approved_in_ledger(api, db, exec_user)
    assert _sync(api, db, exec_user, invoice_id) == []
    assert _total_entries(db, invoice_id) == []


# ---------------------------------------------------------------- an invoice that owes nothing

def test_an_invoice_that_owes_nothing_is_not_told_overdue(api, db, client, team):  # noqa: F811
    """A free proposal's accept makes an invoice of 0.00; sent and past its due date it owes nothing."""
    creator = make_user(db, access_level="executive")
    _overdue(db, team, creator, days=3, total=Decimal("0"), subtotal=Decimal("0"), tax=Decimal("0"),
             amount_paid=Decimal("0"), amount_due=Decimal("0"))
    _overdue(db, team, creator, days=3, total=Decimal("0"), amount_paid=Decimal("0"), amount_due=None)
    assert _scan(client) == {"overdue": 0, "notified": 0}


def test_an_invoice_that_owes_nothing_is_not_overdue_in_the_portal(portal, db):  # noqa: F811
    mine = make_client(db)
    late = org_today() - timedelta(days=5)
    free = make_invoice(db, status="sent", company_id=mine.id, due_date=late, amount_due=Decimal("0"))
    owing = make_invoice(db, status="sent", company_id=mine.id, due_date=late, total=Decimal("110"),
                         amount_due=None)
    listed = {i["id"]: i["is_overdue"] for i in portal.get("/invoices", mine).json["invoices"]}
    assert listed == {free.id: 0, owing.id: 1}
    assert portal.get(f"/invoices/{free.id}", mine).json["invoice"]["is_overdue"] == 0
