"""Invoices generated from a budget by its type (decisions.md section 9; issue 15 item 2), and the budget's
invoiced amounts that read them."""
from datetime import date
from decimal import Decimal

from sqlalchemy import func, select

from chalicelib.areas.invoices.models import InvoiceTimeEntry
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.deals.factories import make_company
from tests.areas.projects.factories import make_project
from tests.areas.timesheets.factories import make_entry
from tests.factories import config_item, make_user


def generate(api, user, budget, **extra):
    return api.post("/api/invoices", as_=user, json={"budget_id": budget.id, "generate_from_budget": True, **extra})


def lines(api, user, invoice_id):
    return api.get(f"/api/invoices/{invoice_id}", as_=user).json["line_items"]


def test_sprints_copy_the_budget_lines_every_time(api, db, exec_user):
    company = make_company(db, name="Acme")
    design = config_item(db, "service_type", "design")
    budget = make_budget(db, budget_type="sprints", company_id=company.id)
    make_line_item(db, budget, description="Sprint 2", position=1, quantity=Decimal("1"), unit_price=Decimal("5000"))
    make_line_item(db, budget, description="Sprint 1", position=0, quantity=Decimal("2"), unit_price=Decimal("1250.50"),
                   service_type_id=design.id)
    made = generate(api, exec_user, budget)
    assert made.status == 201, made
    invoice = made.json["invoice"]
    assert invoice["company_id"] == company.id and invoice["company_name"] == "Acme"  # from the budget
    assert (invoice["subtotal"], invoice["tax"], invoice["total"]) == (7501.0, 750.1, 8251.1)
    got = lines(api, exec_user, invoice["id"])
    assert [(l["description"], l["amount"], l["position"]) for l in got] == [("Sprint 1", 2501.0, 0),
                                                                          ("Sprint 2", 5000.0, 1)]
    assert got[0]["service_type_id"] == design.id and got[0]["budget_line_item_id"]
    assert generate(api, exec_user, budget).status == 201  # sprints may be invoiced again
    detail = api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["line_items"]
    assert [i["invoiced_amount"] for i in detail] == [5002.0, 10000.0]


def test_a_retainer_is_invoiced_once_unless_voided(api, db, exec_user):
    budget = make_budget(db, budget_type="retainer")
    make_line_item(db, budget, description="Monthly retainer", unit_price=Decimal("3000"))
    first = generate(api, exec_user, budget)
    assert first.status == 201 and first.json["invoice"]["total"] == 3300
    again = generate(api, exec_user, budget)
    assert again.status == 409 and "once" in again.json["error"]
    assert api.put(f"/api/invoices/{first.json['invoice']['id']}", as_=exec_user,
                   json={"status": "voided"}).status == 200
    assert api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["line_items"][0]["invoiced_amount"] == 0
    assert generate(api, exec_user, budget).status == 201


def test_time_and_materials_bills_approved_time_once(api, db, exec_user):
    worker = make_user(db)
    budget = make_budget(db, budget_type="time_and_materials")
    dev = make_line_item(db, budget, description="Development", unit_price=Decimal("150"))
    design = make_line_item(db, budget, description="Design", unit_price=Decimal("120"), position=1)
    idle = make_line_item(db, budget, description="Nothing logged", unit_price=Decimal("99"), position=2)
    billed = [make_entry(db, worker, budget_id=budget.id, line_item_id=dev.id, hours=Decimal("2.5"), status="approved"),
              make_entry(db, worker, budget_id=budget.id, line_item_id=dev.id, hours=Decimal("1.25"), status="approved"),
              make_entry(db, worker, budget_id=budget.id, line_item_id=design.id, hours=Decimal("1"), status="approved")]
    make_entry(db, worker, budget_id=budget.id, line_item_id=dev.id, hours=Decimal("8"), status="submitted")
    make_entry(db, worker, budget_id=budget.id, line_item_id=dev.id, hours=Decimal("8"), status="approved",
               billable=False)
    make_entry(db, worker, budget_id=budget.id, hours=Decimal("8"), status="approved")  # no line: not priced
    made = generate(api, exec_user, budget)
    assert made.status == 201, made
    got = lines(api, exec_user, made.json["invoice"]["id"])
    assert [(l["description"], l["quantity"], l["unit_price"], l["amount"]) for l in got] == [
        ("Development", 3.75, 150.0, 562.5), ("Design", 1.0, 120.0, 120.0)]
    assert made.json["invoice"]["subtotal"] == 682.5 and made.json["invoice"]["total"] == 750.75
    linked = set(db.scalars(select(InvoiceTimeEntry.time_entry_id)))
    assert {e.id for e in billed} <= linked and len(linked & {e.id for e in billed}) == 3
    # nothing new approved: a second generation has nothing to bill
    again = generate(api, exec_user, budget)
    assert again.status == 409 and "time" in again.json["error"]
    later = make_entry(db, worker, budget_id=budget.id, line_item_id=design.id, hours=Decimal("2"), status="approved",
                       date=date(2026, 3, 9))
    second = generate(api, exec_user, budget)
    assert second.status == 201
    assert [(l["description"], l["quantity"]) for l in lines(api, exec_user, second.json["invoice"]["id"])] == [
        ("Design", 2.0)]
    assert db.scalar(select(InvoiceTimeEntry.invoice_id).where(InvoiceTimeEntry.time_entry_id == later.id)) == \
        second.json["invoice"]["id"]
    # removing a generated line frees its time for the next invoice
    design_line = lines(api, exec_user, second.json["invoice"]["id"])[0]
    api.delete(f"/api/invoices/{second.json['invoice']['id']}/line-items/{design_line['id']}", as_=exec_user)
    third = generate(api, exec_user, budget)
    assert third.status == 201 and third.json["invoice"]["subtotal"] == 240
    detail = api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["line_items"]
    assert [i["invoiced_amount"] for i in detail] == [562.5, 360.0, 0]
    assert idle.id == detail[2]["id"]


def test_fixed_price_bills_the_remainder(api, db, exec_user):
    budget = make_budget(db, budget_type="fixed_price", total_amount=Decimal("10000"), name="Website")
    manual = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id}).json["invoice"]
    api.post(f"/api/invoices/{manual['id']}/line-items", as_=exec_user,
             json={"description": "Deposit", "unit_price": "2500.50"})
    made = generate(api, exec_user, budget)
    assert made.status == 201, made
    got = lines(api, exec_user, made.json["invoice"]["id"])
    assert [(l["description"], l["amount"]) for l in got] == [("Website: remaining fixed price", 7499.5)]
    assert generate(api, exec_user, budget).status == 409  # nothing left
    api.put(f"/api/invoices/{manual['id']}", as_=exec_user, json={"status": "voided"})
    rest = generate(api, exec_user, budget)
    assert rest.status == 201 and rest.json["invoice"]["subtotal"] == 2500.5
    # without total_amount the line items make the price
    by_lines = make_budget(db, budget_type="fixed_price")
    make_line_item(db, by_lines, quantity=Decimal("3"), unit_price=Decimal("100"))
    assert generate(api, exec_user, by_lines).json["invoice"]["subtotal"] == 300


def test_generation_rules_and_errors(api, db, exec_user):
    untyped = make_budget(db)
    response = generate(api, exec_user, untyped)
    assert response.status == 400 and response.json["details"][0]["field"] == "budget_id"
    empty = make_budget(db, budget_type="sprints")
    assert generate(api, exec_user, empty).status == 409
    from chalicelib.areas.invoices.models import Invoice

    assert db.scalar(select(func.count(Invoice.id)).where(Invoice.budget_id == empty.id)) == 0  # all or nothing


def test_profitability_reads_invoices(api, db, exec_user):
    project = make_project(db)
    budget = make_budget(db, resource_id=project.id, budget_type="sprints")
    make_line_item(db, budget, unit_price=Decimal("1000"))
    invoice = generate(api, exec_user, budget).json["invoice"]
    voided = generate(api, exec_user, budget).json["invoice"]
    api.put(f"/api/invoices/{voided['id']}", as_=exec_user, json={"status": "voided"})
    from chalicelib.areas.invoices.models import Invoice

    db.get(Invoice, invoice["id"]).amount_paid = Decimal("400")
    db.flush()
    body = api.get(f"/api/projects/{project.id}/profitability", as_=exec_user).json
    assert (body["invoiced"], body["collected"]) == (1100.0, 400.0)



def test_a_billed_time_entry_is_not_deleted_until_its_line_goes(api, db, exec_user):
    """A time entry an invoice bills cannot be deleted, even with timesheets:manage (409): a head's delete removed the
    link and left the invoice charging for hours no entry recorded (invoices_0004). Removing the invoice's line frees
    the entry, which may then be deleted. On SQLite too (s27): core.db turns its foreign keys on, and the key there
    was still CASCADE (the migration ran on Postgres only), so `make run` lost the link."""
    worker = make_user(db)
    budget = make_budget(db, budget_type="time_and_materials")
    dev = make_line_item(db, budget, description="Development", unit_price=Decimal("150"))
    entry = make_entry(db, worker, budget_id=budget.id, line_item_id=dev.id, hours=Decimal("2"), status="approved")
    made = generate(api, exec_user, budget)
    assert made.status == 201, made
    refused = api.delete(f"/api/time-entries/{entry.id}", as_=exec_user)
    assert refused.status == 409 and "billed by an invoice" in refused.json["error"], refused
    assert api.get(f"/api/time-entries/{entry.id}", as_=exec_user).status == 200  # kept, and still billed
    invoice_id = made.json["invoice"]["id"]
    line = lines(api, exec_user, invoice_id)[0]
    assert api.delete(f"/api/invoices/{invoice_id}/line-items/{line['id']}", as_=exec_user).status == 200
    assert api.delete(f"/api/time-entries/{entry.id}", as_=exec_user).json == {"ok": True}


def test_an_invoice_given_its_company_by_update_is_its_first_invoice(api, db, exec_user):
    """Document 2, Events: "first invoice for a company: onboarding milestone first_invoice completed". An invoice made
    without a company and given one by PUT is that company's first invoice: only the creates asked (client areas
    audit)."""
    from tests.areas.onboarding.test_onboarding import BASE, template

    ids = template(api, exec_user, "Invoiced", stages=(("Billing", "billing", ("First invoice", "Paid")),))
    api.patch(f"{BASE}/{ids['template']}", as_=exec_user, json={"is_default": True})
    api.patch(f"{BASE}/milestones/{ids['First invoice']}", as_=exec_user, json={"auto_source": "first_invoice"})
    company = make_company(db, status="client")
    made = api.post("/api/invoices", as_=exec_user, json={})
    assert made.status == 201, made
    put = api.put(f"/api/invoices/{made.json['invoice']['id']}", as_=exec_user, json={"company_id": company.id})
    assert put.status == 200, put
    progress = api.get(f"/api/clients/{company.id}/onboarding", as_=exec_user).json["onboarding"]
    done = {m["title"]: m["source"] for s in progress["stages"] for m in s["milestones"] if m["completed_at"]}
    assert done == {"First invoice": "first_invoice"}
    # a second invoice given the same company is not its first: nothing more
    other = api.post("/api/invoices", as_=exec_user, json={}).json["invoice"]["id"]
    assert api.put(f"/api/invoices/{other}", as_=exec_user, json={"company_id": company.id}).status == 200


# ---------------------------------------------------------------- the rules hold for every live invoice of a budget

def put(api, user, invoice_id, **body):
    return api.put(f"/api/invoices/{invoice_id}", as_=user, json=body)


def live(api, user, budget):
    got = api.get(f"/api/invoices?budget_id={budget.id}", as_=user).json["invoices"]
    return sorted((i["id"], i["subtotal"]) for i in got if i["status"] != "voided")


def status_of(api, user, invoice_id):
    return api.get(f"/api/invoices/{invoice_id}", as_=user).json["invoice"]["status"]


def test_a_voided_retainer_invoice_set_back_while_another_is_live_is_a_409(api, db, exec_user, count_queries):
    """A retainer invoiced, voided, invoiced again: setting the first back to draft made two live invoices (the
    client billed twice, the budget's invoiced amount doubled); the rule was checked on generation only. Now a 409,
    nothing written, under the generation's lock; with nothing else live the un-void is allowed."""
    budget = make_budget(db, budget_type="retainer")
    make_line_item(db, budget, description="Monthly retainer", unit_price=Decimal("3000"))
    first = generate(api, exec_user, budget).json["invoice"]["id"]
    assert put(api, exec_user, first, status="voided").status == 200
    # nothing else live: set back, and voided again
    with count_queries() as counter:
        assert put(api, exec_user, first, status="draft").status == 200
    if db.bind.dialect.name == "postgresql":
        assert any("pg_advisory_xact_lock" in s for s in counter.statements)  # the lock generation takes
    assert put(api, exec_user, first, status="voided").status == 200
    second = generate(api, exec_user, budget).json["invoice"]["id"]
    for status in ("draft", "sent", "paid"):
        refused = put(api, exec_user, first, status=status, notes="back")
        assert refused.status == 409 and "once" in refused.json["error"], refused
    assert status_of(api, exec_user, first) == "voided"
    assert api.get(f"/api/invoices/{first}", as_=exec_user).json["invoice"]["notes"] is None  # nothing written
    assert [i for i, _ in live(api, exec_user, budget)] == [second]
    assert api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["line_items"][0]["invoiced_amount"] == 3000
    # the live one voided, the first may come back
    assert put(api, exec_user, second, status="voided").status == 200
    assert put(api, exec_user, first, status="draft").status == 200


def test_a_voided_fixed_price_invoice_set_back_must_fit_in_the_price(api, db, exec_user):
    """Price 10,000 generated (10,000), voided, generated again (10,000): setting the first back made 20,000 live
    against a 10,000 price. An invoice leaving `voided` must fit in the price less the subtotals of the budget's other
    live invoices: 409 otherwise; one that fits is allowed."""
    budget = make_budget(db, budget_type="fixed_price", total_amount=Decimal("10000"), name="Website")
    first = generate(api, exec_user, budget).json["invoice"]["id"]
    assert put(api, exec_user, first, status="voided").status == 200
    second = generate(api, exec_user, budget).json["invoice"]["id"]
    refused = put(api, exec_user, first, status="draft")
    assert refused.status == 409 and "fixed price" in refused.json["error"], refused
    assert status_of(api, exec_user, first) == "voided" and live(api, exec_user, budget) == [(second, 10000)]
    # room left: a deposit of 2,500.50 made by hand and voided, the whole price generated, then voided
    third = make_budget(db, budget_type="fixed_price", total_amount=Decimal("10000"))
    deposit = api.post("/api/invoices", as_=exec_user, json={"budget_id": third.id}).json["invoice"]["id"]
    api.post(f"/api/invoices/{deposit}/line-items", as_=exec_user,
             json={"description": "Deposit", "unit_price": "2500.50"})
    assert put(api, exec_user, deposit, status="voided").status == 200
    assert generate(api, exec_user, third).json["invoice"]["subtotal"] == 10000
    assert put(api, exec_user, deposit, status="draft").status == 409  # 10,000 live: nothing left for it
    # the generated one voided: the deposit fits (2,500.50 of 10,000), and the rest is generated
    made = [i for i, _ in live(api, exec_user, third)]
    assert put(api, exec_user, made[0], status="voided").status == 200
    assert put(api, exec_user, deposit, status="draft").status == 200
    assert generate(api, exec_user, third).json["invoice"]["subtotal"] == 7499.5
    assert sum(s for _, s in live(api, exec_user, third)) == 10000


def test_a_live_invoice_moved_onto_a_budget_meets_its_rules(api, db, exec_user):
    """budget_id changed by PUT onto a retainer that has a live invoice (or onto a fixed price past its price)
    made a second live invoice there unchecked: 409, the invoice left where it was. A voided invoice moves freely;
    a move onto a retainer with nothing live, or a fixed price with room, is allowed."""
    one, two = make_budget(db, budget_type="retainer"), make_budget(db, budget_type="retainer")
    for budget in (one, two):
        make_line_item(db, budget, description="Monthly retainer", unit_price=Decimal("3000"))
    kept = generate(api, exec_user, one).json["invoice"]["id"]
    moved = generate(api, exec_user, two).json["invoice"]["id"]
    refused = put(api, exec_user, moved, budget_id=one.id)
    assert refused.status == 409 and "once" in refused.json["error"], refused
    assert [i for i, _ in live(api, exec_user, one)] == [kept]
    assert api.get(f"/api/invoices/{moved}", as_=exec_user).json["invoice"]["budget_id"] == two.id
    # voided, it moves; set back there, it is refused
    assert put(api, exec_user, moved, status="voided", budget_id=one.id).status == 200
    assert put(api, exec_user, moved, status="draft").status == 409
    # onto a retainer with nothing live: allowed, live
    free = make_budget(db, budget_type="retainer")
    assert put(api, exec_user, moved, budget_id=free.id, status="draft").status == 200
    assert [i for i, _ in live(api, exec_user, free)] == [moved]
    # onto a fixed price: the 3,000 must fit in what is left
    tight = make_budget(db, budget_type="fixed_price", total_amount=Decimal("2000"))
    assert put(api, exec_user, moved, budget_id=tight.id).status == 409
    roomy = make_budget(db, budget_type="fixed_price", total_amount=Decimal("5000"))
    assert put(api, exec_user, moved, budget_id=roomy.id).status == 200
    assert generate(api, exec_user, roomy).json["invoice"]["subtotal"] == 2000


def test_a_hand_made_invoice_of_a_retainer_meets_the_once_rule(api, db, exec_user):
    """An invoice made by hand naming a retainer budget (no generation) is live on it as a generated one is: 409
    while the budget has an invoice that is not voided, nothing made; allowed once that one is voided. A fixed
    price takes hand-made invoices (they start at 0.00)."""
    budget = make_budget(db, budget_type="retainer")
    make_line_item(db, budget, description="Monthly retainer", unit_price=Decimal("3000"))
    first = generate(api, exec_user, budget).json["invoice"]["id"]
    refused = api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id})
    assert refused.status == 409 and "once" in refused.json["error"], refused
    assert len(api.get(f"/api/invoices?budget_id={budget.id}", as_=exec_user).json["invoices"]) == 1
    assert put(api, exec_user, first, status="voided").status == 200
    assert api.post("/api/invoices", as_=exec_user, json={"budget_id": budget.id}).status == 201
    fixed = make_budget(db, budget_type="fixed_price", total_amount=Decimal("1000"))
    assert generate(api, exec_user, fixed).status == 201
    assert api.post("/api/invoices", as_=exec_user, json={"budget_id": fixed.id}).status == 201
