"""The money of a proposal's pricing and of what its acceptance makes (money audit): the accepted total is the
budget's and the invoice's, a free proposal can be accepted, and a pricing below zero is refused."""
from tests.areas.deals.factories import make_company
from tests.areas.proposals.factories import create, price
from tests.areas.proposals.priced import priced_sent

PUBLIC = "/api/proposals/public"


def accept(api, user, pid):
    token = api.put(f"/api/proposals/{pid}/share", as_=user, json={"share_enabled": True}).json["share_token"]
    return api.post(f"{PUBLIC}/{token}/accept", json={"name": "Ann Client", "email": "ann@acme.test"})


def test_the_accepted_total_is_the_budgets_and_the_invoices(api, db, exec_user):
    """Each item's amount is rounded to the cent (1.5 x 33.33 = 49.995 -> 50.00), so the client accepts 150.00;
    the budget's lines summed before rounding made 149.985 -> 149.99, and the invoice billed 149.99."""
    pid = priced_sent(api, exec_user, [{"title": "Build", "items": [
        {"description": f"Part {n}", "quantity": 1.5, "unit_price": "33.33"} for n in range(3)]}],
        company_id=make_company(db, name="Acme").id)
    assert api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["total_amount"] == 150.0
    assert accept(api, exec_user, pid).status == 200
    proposal = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    budget = api.get(f"/api/budgets/{proposal['budget_id']}", as_=exec_user).json
    assert budget["budget"]["total_amount"] == 150.0
    assert [item["amount"] for item in budget["line_items"]] == [50.0, 50.0, 50.0]
    assert budget["budget"]["spent_amount"] == 150.0
    invoice = api.get(f"/api/invoices/{proposal['invoice_id']}", as_=exec_user).json["invoice"]
    assert (invoice["subtotal"], invoice["tax"], invoice["total"]) == (150.0, 15.0, 165.0)


def test_a_free_proposal_can_be_accepted(api, db, exec_user):
    """A pricing that totals zero (a free pilot) made the accept's invoice generation answer 409 "nothing left
    to invoice", and the whole accept failed: the client could not accept. It makes the budget and, as document 2
    says the accept does, the invoice: one line of 0.00. A second generation from that budget has nothing left."""
    pid = priced_sent(api, exec_user, [{"title": "Pilot", "items": [{"description": "Workshop", "quantity": 1,
                                                                     "unit_price": 0}]}],
                      company_id=make_company(db, name="Acme").id)
    accepted = accept(api, exec_user, pid)
    assert accepted.status == 200, accepted
    proposal = api.get(f"/api/proposals/{pid}", as_=exec_user).json["proposal"]
    assert proposal["status"] == "accepted" and proposal["budget_id"] and proposal["invoice_id"]
    assert api.get(f"/api/budgets/{proposal['budget_id']}", as_=exec_user).json["budget"]["total_amount"] == 0
    invoice = api.get(f"/api/invoices/{proposal['invoice_id']}", as_=exec_user).json
    assert invoice["invoice"]["total"] == 0 and [line["amount"] for line in invoice["line_items"]] == [0]
    again = api.post("/api/invoices", as_=exec_user, json={"budget_id": proposal["budget_id"],
                                                           "generate_from_budget": True})
    assert again.status == 409, again


def test_a_pricing_below_zero_is_refused(api, db, exec_user):
    """A discount line larger than the items made a negative total: the accept could not bill it (409, the
    client could not accept) and the budget's total_amount is never negative. 400 naming `sections`."""
    pid = create(api, exec_user)  # a draft: an approved proposal's pricing no longer changes (session 22)
    answer = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [{"title": "Build", "items": [
        {"description": "Design", "quantity": 1, "unit_price": 100},
        {"description": "Discount", "quantity": 1, "unit_price": -150}]}]})
    assert answer.status == 400, answer
    assert [d["field"] for d in answer.json["details"]] == ["sections"]
    assert api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["total_amount"] is None
    # a discount up to the whole price is fine
    price(api, exec_user, pid, [{"title": "Build", "items": [
        {"description": "Design", "quantity": 1, "unit_price": 100},
        {"description": "Discount", "quantity": 1, "unit_price": -100}]}])
    assert api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["total_amount"] == 0


def test_an_item_past_what_a_budget_line_holds_is_refused_even_when_a_discount_offsets_it(api, db, exec_user):
    """Session 28's money audit: an item's amount is below 10^12, what the accept's budget holds of a line (and what a
    JSON number answers to the cent); an item of 1.8 x 10^12 offset by a discount passed (the bound was 10^14) and the
    accept wrote a budget line that budgets refuse and that read back without its cents."""
    pid = create(api, exec_user)
    answer = api.put(f"/api/proposals/{pid}/pricing", as_=exec_user, json={"sections": [{"title": "Build", "items": [
        {"description": "Platform", "quantity": 1800, "unit_price": 1_000_000_000},
        {"description": "Discount", "quantity": 1500, "unit_price": -1_000_000_000}]}]})
    assert answer.status == 400, answer
    assert [d["field"] for d in answer.json["details"]] == ["sections.0.items.0.amount",
                                                            "sections.0.items.1.amount"]
    price(api, exec_user, pid, [{"title": "Build", "items": [
        {"description": "Platform", "quantity": 999.99, "unit_price": 999_999_999.99}]}])
    assert api.get(f"/api/proposals/{pid}/pricing", as_=exec_user).json["total_amount"] == 999_989_999_990.0
