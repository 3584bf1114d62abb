"""An invoice of a budget is in the budget's currency (docs/decisions/invoices.md, "Currency"): a USD budget invoiced
in AUD was the wrong money, and the budget's fixed price left to bill and the project's profitability counted the AUD
amounts as USD (money audit). A create without `currency` takes the budget's; another one named is a 400 on
`currency`; an update may not move an invoice to a budget in another money (400 on `budget_id`) or relabel an
invoice of a budget (400 on `currency`)."""
from decimal import Decimal

from chalicelib.areas.invoices.models import Invoice
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice, make_invoice_item
from tests.areas.projects.factories import make_project
from tests.factories import make_squad, make_user


def create(api, user, **body):
    return api.post("/api/invoices", as_=user, json=body)


def put(api, user, invoice_id, **body):
    return api.put(f"/api/invoices/{invoice_id}", as_=user, json=body)


def stored(db, invoice_id):
    db.expire_all()
    found = db.get(Invoice, invoice_id)
    return found.budget_id, found.currency


def test_an_invoice_of_a_budget_takes_the_budgets_currency(api, db, exec_user):
    budget = make_budget(db, currency="USD")
    made = create(api, exec_user, budget_id=budget.id)
    assert made.status == 201, made
    assert made.json["invoice"]["currency"] == "USD"


def test_a_generated_invoice_takes_the_budgets_currency(api, db, exec_user):
    budget = make_budget(db, currency="NZD", budget_type="sprints", company_id=make_company(db, name="Kiwi").id)
    make_line_item(db, budget, description="Sprint 1", quantity=Decimal("1"), unit_price=Decimal("1000"))
    made = create(api, exec_user, budget_id=budget.id, generate_from_budget=True)
    assert made.status == 201, made
    assert made.json["invoice"]["currency"] == "NZD" and made.json["invoice"]["subtotal"] == 1000
    detail = api.get(f"/api/invoices/{made.json['invoice']['id']}", as_=exec_user).json["invoice"]
    assert detail["currency"] == "NZD"


def test_a_currency_other_than_the_budgets_is_refused_and_no_budget_is_aud(api, db, exec_user):
    """It was: an explicit currency won for an invoice made by hand (a EUR invoice of a USD budget)."""
    budget = make_budget(db, currency="USD", budget_type="sprints")
    make_line_item(db, budget, description="Sprint 1", quantity=Decimal("1"), unit_price=Decimal("1000"))
    assert create(api, exec_user, budget_id=budget.id, currency="eur").status == 400
    # a generated one copies the budget's amounts: it is in the budget's money (tests/areas/invoices/test_money.py)
    generated = create(api, exec_user, budget_id=budget.id, currency="GBP", generate_from_budget=True)
    assert generated.status == 400, generated
    assert create(api, exec_user, budget_id=budget.id, currency="usd").json["invoice"]["currency"] == "USD"
    assert create(api, exec_user).json["invoice"]["currency"] == "AUD"
    assert create(api, exec_user, currency="eur").json["invoice"]["currency"] == "EUR"  # no budget: any currency
    assert create(api, exec_user, currency=None).status == 400  # omitted is not null


def test_a_hand_made_invoice_in_another_currency_than_its_budget_is_a_400_and_nothing_is_made(api, db, exec_user):
    """The fixed price left to bill subtracted an AUD invoice of a USD budget as USD: 1000 USD less 400 AUD billed
    600 USD. The 400 names `currency` as the generated case's does."""
    budget = make_budget(db, currency="USD", budget_type="fixed_price", total_amount=Decimal("1000"))
    refused = create(api, exec_user, budget_id=budget.id, currency="AUD", invoice_number="HAND-1")
    assert refused.status == 400, refused
    assert refused.json["details"] == [{"field": "currency", "message": "must be the budget's currency, USD"}]
    generated = create(api, exec_user, budget_id=budget.id, currency="AUD", generate_from_budget=True)
    assert generated.status == 400 and generated.json["details"] == refused.json["details"], generated
    assert api.get(f"/api/invoices?budget_id={budget.id}", as_=exec_user).json["invoices"] == []
    assert create(api, exec_user, invoice_number="HAND-1").status == 201  # the number was not taken either


def test_an_update_may_not_move_an_invoice_to_a_budget_in_another_currency(api, db, exec_user):
    usd, aud = make_budget(db, currency="USD"), make_budget(db, currency="AUD")
    invoice = create(api, exec_user).json["invoice"]["id"]  # AUD, no budget
    moved = put(api, exec_user, invoice, budget_id=usd.id)
    assert moved.status == 400, moved
    assert [d["field"] for d in moved.json["details"]] == ["budget_id"]
    assert "USD" in moved.json["details"][0]["message"] and "AUD" in moved.json["details"][0]["message"]
    assert stored(db, invoice) == (None, "AUD")
    # a currency sent with it that is not the new budget's is the field named
    relabelled = put(api, exec_user, invoice, budget_id=usd.id, currency="EUR")
    assert relabelled.status == 400 and [d["field"] for d in relabelled.json["details"]] == ["currency"], relabelled
    assert stored(db, invoice) == (None, "AUD")
    # the budget's currency with it (no lines yet): moved; a budget in the invoice's currency: moved
    assert put(api, exec_user, invoice, budget_id=usd.id, currency="usd").status == 200
    assert stored(db, invoice) == (usd.id, "USD")
    assert put(api, exec_user, invoice, budget_id=aud.id).status == 400
    assert put(api, exec_user, invoice, budget_id=aud.id, currency="AUD").status == 200
    assert stored(db, invoice) == (aud.id, "AUD")


def test_an_update_may_not_change_the_currency_of_an_invoice_of_a_budget(api, db, exec_user):
    budget = make_budget(db, currency="USD")
    invoice = create(api, exec_user, budget_id=budget.id).json["invoice"]["id"]
    refused = put(api, exec_user, invoice, currency="EUR", notes="relabelled")
    assert refused.status == 400, refused
    assert refused.json["details"] == [{"field": "currency", "message": "must be the budget's currency, USD"}]
    assert stored(db, invoice) == (budget.id, "USD")
    assert put(api, exec_user, invoice, currency="usd", budget_id=budget.id).status == 200  # no change
    # unlinked from the budget in the same request, it is in the money it names
    unlinked = put(api, exec_user, invoice, currency="EUR", budget_id=None)
    assert unlinked.status == 200 and unlinked.json["invoice"]["currency"] == "EUR", unlinked


def test_the_budget_currency_400_comes_before_the_409s_of_lines_and_the_ledger(api, db, exec_user):
    """Removing the lines or voiding the ledger invoice (the 409s' way out) would not make another currency than the
    budget's allowed: the 400 says so first. Where the currency is the budget's, the 409s answer as before."""
    budget = make_budget(db, currency="USD", budget_type="sprints")
    make_line_item(db, budget, description="Sprint 1", quantity=Decimal("1"), unit_price=Decimal("1000"))
    generated = create(api, exec_user, budget_id=budget.id, generate_from_budget=True).json["invoice"]["id"]
    with_lines = put(api, exec_user, generated, currency="GBP")
    assert with_lines.status == 400 and with_lines.json["details"][0]["field"] == "currency", with_lines
    # in the ledger: the currency is held there (409) but first it is the budget's (400)
    pushed = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, budget_id=budget.id, currency="USD")
    make_invoice_item(db, pushed)
    assert api.post(f"/api/invoices/{pushed.id}/push-to-ledger", as_=exec_user).status == 200
    in_ledger = put(api, exec_user, pushed.id, currency="GBP")
    assert in_ledger.status == 400 and in_ledger.json["details"][0]["field"] == "currency", in_ledger
    eur = make_budget(db, currency="EUR")
    to_eur = put(api, exec_user, pushed.id, budget_id=eur.id)
    assert to_eur.status == 400 and to_eur.json["details"][0]["field"] == "budget_id", to_eur
    # an invoice made before the rule (AUD on the USD budget), with lines: relabelled to the budget's USD, the lines'
    # 409 answers as before; its other edits are not refused for its old currency
    before_rule = make_invoice(db, budget_id=budget.id, currency="AUD")
    make_invoice_item(db, before_rule)
    assert put(api, exec_user, before_rule.id, currency="USD").status == 409
    assert put(api, exec_user, before_rule.id, notes="kept").status == 200
    assert stored(db, before_rule.id) == (budget.id, "AUD")


def test_a_hand_link_in_another_currency_than_the_budget_is_refused_before_the_ledger_is_asked(api, db, exec_user):
    """Dates and references are checked before the ledger is asked (docs/decisions/invoices.md, "Linking by hand");
    so is the budget's currency: the answer is the 400 on `currency`, not the ledger's on an unknown id."""
    budget = make_budget(db, currency="USD")
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, budget_id=budget.id, currency="USD")
    answer = put(api, exec_user, invoice.id, ledger_invoice_id="not-in-the-ledger", currency="EUR")
    assert answer.status == 400, answer
    assert [d["field"] for d in answer.json["details"]] == ["currency"]


def test_a_budget_not_seen_or_gone_answers_as_before(api, db, exec_user):
    """The reference check answers first: a budget the caller cannot see (or that does not exist) is the 400 on
    `budget_id`, whatever the currency."""
    stranger = make_user(db, access_level="employee", squad_id=make_squad(db).id)
    manager = make_user(db, access_level="manager", squad_id=make_squad(db).id)
    hidden = make_budget(db, currency="USD", resource_id=make_project(db, owner_id=stranger.id).id)
    for body in ({"budget_id": hidden.id, "currency": "AUD"}, {"budget_id": "nope", "currency": "AUD"}):
        refused = create(api, manager, **body)
        assert refused.status == 400 and [d["field"] for d in refused.json["details"]] == ["budget_id"], refused
    invoice = create(api, manager, currency="AUD").json["invoice"]["id"]
    refused = put(api, manager, invoice, budget_id=hidden.id)
    assert refused.status == 400, refused
    assert refused.json["details"] == [{"field": "budget_id", "message": "must be a budget you can see"}]


def test_the_budget_is_read_once_and_only_when_the_budget_or_currency_changes(api, db, exec_user, count_queries):
    """The budget's currency comes from budgets' `held_currency` (one statement, the budget's row held FOR KEY SHARE
    until the request commits): once for a create or an update that names a budget or a currency, never for an update
    of other fields. A hand link checks it before the ledger is asked and again in the transaction that writes (the
    first read's hold ends when the connection is released for the ledger call; it was one read of `invoice_source`,
    the budget and its lines, kept across the call, so a currency change while the ledger answered went unseen)."""
    def currency_reads(call):
        with count_queries() as counter:
            answer = call()
        assert answer.status in (200, 201), answer
        return sum(1 for s in counter.statements if " ".join(s.split()).startswith("SELECT budgets.currency FROM budgets"))

    aud, usd = make_budget(db, currency="AUD"), make_budget(db, currency="USD")
    assert currency_reads(lambda: create(api, exec_user, budget_id=usd.id, currency="USD")) == 1
    # its totals its line's (100 + GST): a hand link below must match the ledger invoice's total (session 22)
    invoice = make_invoice(db, company_id=make_company(db, name="Acme Pty").id, budget_id=aud.id,
                           subtotal=Decimal("100"), tax=Decimal("10"), total=Decimal("110"))
    make_invoice_item(db, invoice)
    assert currency_reads(lambda: put(api, exec_user, invoice.id, notes="n")) == 0
    assert currency_reads(lambda: put(api, exec_user, invoice.id, currency="AUD", budget_id=aud.id)) == 0
    assert currency_reads(lambda: put(api, exec_user, invoice.id, budget_id=None)) == 0
    # a hand link with a budget named: checked before the ledger is asked and again, held, on the locked row
    ledger_id = api.post(f"/api/invoices/{invoice.id}/push-to-ledger", as_=exec_user).json["ledger_invoice_id"]
    assert put(api, exec_user, invoice.id, ledger_invoice_id=None).status == 200
    assert currency_reads(lambda: put(api, exec_user, invoice.id, ledger_invoice_id=ledger_id, budget_id=aud.id)) == 2
    assert stored(db, invoice.id) == (aud.id, "AUD")
    # a voided invoice set back to a live status: read once (voided with its link removed: a linked invoice whose
    # ledger draft still stands is not voided here alone, session 31)
    assert currency_reads(lambda: put(api, exec_user, invoice.id, status="voided", ledger_invoice_id=None)) == 0
    assert currency_reads(lambda: put(api, exec_user, invoice.id, status="draft")) == 1


def test_a_voided_invoice_set_back_must_be_in_its_budgets_currency(api, db, exec_user):
    """Voided invoices do not hold their budget's currency (docs/decisions/budgets.md), so a budget can change its
    currency under one; setting that invoice's status back (to any other status) brought back a live USD invoice under
    a EUR budget. Now a 400 on `status` naming the budget's new currency, before the 409 of lines; nothing written."""
    budget = make_budget(db, currency="USD")
    bare = create(api, exec_user, budget_id=budget.id).json["invoice"]["id"]
    with_lines = make_invoice(db, budget_id=budget.id, currency="USD")
    make_invoice_item(db, with_lines)
    for invoice in (bare, with_lines.id):
        assert put(api, exec_user, invoice, status="voided").status == 200
    moved = api.put(f"/api/budgets/{budget.id}", as_=exec_user, json={"currency": "EUR"})
    assert moved.status == 200, moved
    for status in ("draft", "sent", "paid"):
        refused = put(api, exec_user, bare, status=status, notes="back")
        assert refused.status == 400, refused
        assert [d["field"] for d in refused.json["details"]] == ["status"]
        assert "budget is now in EUR" in refused.json["details"][0]["message"]
    db.expire_all()
    assert db.get(Invoice, bare).status == "voided" and db.get(Invoice, bare).notes is None
    # the 400 comes before the 409 of an invoice with lines (relabelling it is the 409's)
    refused = put(api, exec_user, with_lines.id, status="draft")
    assert refused.status == 400 and refused.json["details"][0]["field"] == "status", refused
    assert put(api, exec_user, with_lines.id, status="draft", currency="EUR").status == 409
    # still voided, other edits pass; with the budget's currency (no lines) it comes back
    assert put(api, exec_user, bare, notes="kept voided").status == 200
    back = put(api, exec_user, bare, status="draft", currency="EUR")
    assert back.status == 200 and back.json["invoice"]["currency"] == "EUR", back
    # unlinked from the budget in the same request, it comes back in its own money
    unlinked = put(api, exec_user, with_lines.id, status="draft", budget_id=None)
    assert unlinked.status == 200 and unlinked.json["invoice"]["currency"] == "USD", unlinked
