"""Portal invoices (list, detail, financial totals, history, notes on invoices), contracts by signer e-mail and
onboarding progress (issue 19 item 2)."""
from datetime import date, timedelta
from decimal import Decimal

from chalicelib.areas.clients.models import Contract
from chalicelib.areas.invoices.models import InvoicePayment
from chalicelib.areas.notes.models import Note
from chalicelib.core import history as core_history
from chalicelib.core.timeutil import org_today
from tests.areas.deals.factories import make_company, make_contact
from tests.areas.invoices.factories import make_invoice, make_invoice_item
from tests.areas.portal.conftest import make_client
from tests.factories import make_user


def _issued(db, company, **kw):
    values = {"status": "sent", "company_id": company.id, "total": Decimal("110"), "subtotal": Decimal("100"),
              "tax": Decimal("10"), "amount_paid": Decimal("0"), "amount_due": Decimal("110"),
              "notes": "internal: chase hard"}
    values.update(kw)
    return make_invoice(db, **values)


def test_invoice_list_issued_only_client_safe_fields(portal, db):
    mine, other = make_client(db), make_client(db)
    sent = _issued(db, mine, invoice_number="C-1", ledger_invoice_id="xero-1", ledger_status="AUTHORISED")
    _issued(db, mine, invoice_number="C-2", status="paid", payment_status="paid")
    _issued(db, mine, invoice_number="C-3", status="approved")
    for hidden in ("draft", "finalised", "voided"):
        _issued(db, mine, invoice_number=f"H-{hidden}", status=hidden)
    _issued(db, other, invoice_number="O-1")
    _issued(db, mine, invoice_number="N-1", company_id=None)
    answer = portal.get("/invoices", mine)
    assert answer.status == 200, answer
    listed = answer.json["invoices"]
    assert {i["invoice_number"] for i in listed} == {"C-1", "C-2", "C-3"}
    record = next(i for i in listed if i["id"] == sent.id)
    assert record["total"] == 110.0 and record["amount_due"] == 110.0 and record["status"] == "sent"
    for secret in ("notes", "ledger_invoice_id", "ledger_status", "created_by", "budget_id", "contact_id"):
        assert secret not in record


def test_invoice_detail_with_lines_and_payments_and_scoping(portal, db):
    mine, other = make_client(db, group="G"), make_client(db, group="G")
    invoice = _issued(db, mine)
    make_invoice_item(db, invoice, description="Design", quantity=2, unit_price=50, position=0,
                      ledger_account_code="200", tax_type="OUTPUT")
    db.add(InvoicePayment(invoice_id=invoice.id, ledger_payment_id="pay-secret", amount=Decimal("40"),
                          date=date(2026, 3, 5), reference="EFT 1", status="AUTHORISED"))
    db.flush()
    answer = portal.get(f"/invoices/{invoice.id}", mine)
    assert answer.status == 200, answer
    assert set(answer.json) == {"invoice", "lineItems", "payments"}
    assert answer.json["invoice"]["id"] == invoice.id and "notes" not in answer.json["invoice"]
    assert [(i["description"], i["amount"]) for i in answer.json["lineItems"]] == [("Design", 100.0)]
    assert "ledger_account_code" not in answer.json["lineItems"][0]
    assert [(p["amount"], p["reference"]) for p in answer.json["payments"]] == [(40.0, "EFT 1")]
    assert "ledger_payment_id" not in answer.json["payments"][0]
    # another company's invoice, a sister company's (detail is not group-aware), a draft, a missing one: 404
    theirs = _issued(db, other)
    draft = _issued(db, mine, status="draft")
    for hidden in (theirs.id, draft.id, "no-such-invoice"):
        assert portal.get(f"/invoices/{hidden}", mine, group=[other]).status == 404
    assert portal.get(f"/invoices/{theirs.id}", other).status == 200


def test_invoice_list_is_group_aware(portal, db):
    mine, sister, stranger = make_client(db, group="G"), make_client(db, group="G"), make_client(db, group="H")
    numbers = {c.id: _issued(db, c).invoice_number for c in (mine, sister, stranger)}
    listed = portal.get("/invoices", mine, group=[sister, stranger, "junk"]).json["invoices"]
    assert {i["invoice_number"] for i in listed} == {numbers[mine.id], numbers[sister.id]}
    alone = portal.get("/invoices", mine).json["invoices"]
    assert [i["invoice_number"] for i in alone] == [numbers[mine.id]]


def test_financial_totals_overdue_in_the_organisations_timezone(portal, db, set_env):
    set_env(ORG_TIMEZONE="Pacific/Kiritimati")  # UTC+14: its today is ahead of Pago Pago's (UTC-11)
    ahead = org_today()
    set_env(ORG_TIMEZONE="Pacific/Pago_Pago")
    behind = org_today()
    assert ahead > behind
    mine, other = make_client(db), make_client(db)
    # due "behind": not overdue in Pago Pago (it is its today), overdue in Kiritimati
    _issued(db, mine, total=Decimal("110"), amount_due=Decimal("110"), due_date=behind)
    _issued(db, mine, total=Decimal("220"), amount_paid=Decimal("20"), amount_due=Decimal("200"),
            due_date=behind - timedelta(days=30))
    _issued(db, mine, status="paid", payment_status="paid", total=Decimal("50"), amount_paid=Decimal("50"),
            amount_due=Decimal("0"), due_date=behind - timedelta(days=60))
    _issued(db, mine, status="approved", total=Decimal("33"), amount_due=None, amount_paid=Decimal("3"),
            due_date=None)
    _issued(db, mine, status="draft", total=Decimal("1000"), due_date=behind - timedelta(days=60))
    _issued(db, mine, status="voided", total=Decimal("2000"), due_date=behind - timedelta(days=60))
    _issued(db, other, total=Decimal("5000"), amount_due=Decimal("5000"), due_date=behind - timedelta(days=60))
    financial = portal.get("/dashboard", mine).json["financial"]
    totals = {"total_invoiced": 413.0, "total_outstanding": 340.0, "total_overdue": 200.0}
    assert financial == {**totals, "currency": "AUD", "by_currency": [{"currency": "AUD", **totals}]}
    listed = {i["total"]: i["is_overdue"] for i in portal.get("/invoices", mine).json["invoices"]}
    assert listed == {110.0: False, 220.0: True, 50.0: False, 33.0: False}
    set_env(ORG_TIMEZONE="Pacific/Kiritimati")
    financial = portal.get("/dashboard", mine).json["financial"]
    totals = {"total_invoiced": 413.0, "total_outstanding": 340.0, "total_overdue": 310.0}
    assert financial == {**totals, "currency": "AUD", "by_currency": [{"currency": "AUD", **totals}]}
    # a company without invoices: zeros, not null (no currency, none listed)
    assert portal.get("/dashboard", other).json["financial"]["total_overdue"] == 5000.0
    assert portal.get("/dashboard", make_client(db)).json["financial"] == {
        "total_invoiced": 0.0, "total_outstanding": 0.0, "total_overdue": 0.0, "currency": None, "by_currency": []}



def test_financial_totals_are_never_added_across_currencies(portal, db):
    """A client's AUD 1000 and USD 500 invoices, both sent and past due, were summed to 1500 (a figure in neither
    currency): the totals are the main currency's (most invoiced), `currency` names it and `by_currency` gives
    every currency's own three totals, the main one first then by code."""
    mine, sister = make_client(db, group="G"), make_client(db, group="G")
    past = org_today() - timedelta(days=10)
    _issued(db, mine, currency="AUD", total=Decimal("1000"), amount_due=Decimal("1000"), due_date=past)
    _issued(db, mine, currency="USD", total=Decimal("500"), amount_due=Decimal("500"), due_date=past)
    financial = portal.get("/dashboard", mine).json["financial"]
    assert (financial["total_invoiced"], financial["total_outstanding"], financial["total_overdue"]) == \
        (1000.0, 1000.0, 1000.0)
    assert financial["currency"] == "AUD"
    assert financial["by_currency"] == [
        {"currency": "AUD", "total_invoiced": 1000.0, "total_outstanding": 1000.0, "total_overdue": 1000.0},
        {"currency": "USD", "total_invoiced": 500.0, "total_outstanding": 500.0, "total_overdue": 500.0}]
    # group-aware: the sister's NZD and USD make USD the main currency (most invoiced); then by code
    _issued(db, sister, currency="USD", total=Decimal("700"), amount_paid=Decimal("700"), amount_due=Decimal("0"),
            status="paid", payment_status="paid", due_date=past)
    _issued(db, sister, currency="NZD", total=Decimal("40"), amount_due=Decimal("40"), due_date=None)
    financial = portal.get("/dashboard", mine, group=[sister]).json["financial"]
    assert (financial["currency"], financial["total_invoiced"], financial["total_outstanding"],
            financial["total_overdue"]) == ("USD", 1200.0, 500.0, 500.0)
    assert [(c["currency"], c["total_invoiced"], c["total_outstanding"], c["total_overdue"])
            for c in financial["by_currency"]] == [("USD", 1200.0, 500.0, 500.0), ("AUD", 1000.0, 1000.0, 1000.0),
                                                   ("NZD", 40.0, 40.0, 0.0)]
    # a tie on the amount invoiced: the first currency by code is the main one
    tied = make_client(db)
    _issued(db, tied, currency="USD", total=Decimal("100"), amount_due=Decimal("100"), due_date=past)
    _issued(db, tied, currency="EUR", total=Decimal("100"), amount_due=Decimal("0"), amount_paid=Decimal("100"))
    financial = portal.get("/dashboard", tied).json["financial"]
    assert (financial["currency"], financial["total_outstanding"]) == ("EUR", 0.0)
    assert [c["currency"] for c in financial["by_currency"]] == ["EUR", "USD"]


def test_financial_totals_in_one_currency_name_it(portal, db):
    mine = make_client(db)
    past = org_today() - timedelta(days=10)
    _issued(db, mine, currency="NZD", total=Decimal("110"), amount_due=Decimal("110"), due_date=past)
    _issued(db, mine, currency="NZD", total=Decimal("220"), amount_paid=Decimal("20"), amount_due=Decimal("200"))
    _issued(db, mine, currency="USD", status="draft", total=Decimal("999"), due_date=past)  # not issued
    totals = {"total_invoiced": 330.0, "total_outstanding": 310.0, "total_overdue": 110.0}
    assert portal.get("/dashboard", mine).json["financial"] == {
        **totals, "currency": "NZD", "by_currency": [{"currency": "NZD", **totals}]}


def test_history_and_dashboard_activity_include_invoices(portal, db):
    mine, other = make_client(db), make_client(db)
    staff = make_user(db, name="Fin Finance")
    invoice = _issued(db, mine)
    draft = _issued(db, mine, status="draft")
    theirs = _issued(db, other)
    for target in (invoice, draft, theirs):
        core_history.record(db, entity_type="invoice", entity_id=target.id, action="status_changed",
                            actor_id=staff.id, changes={"status": {"from": "approved", "to": "sent"}})
    db.flush()
    history = portal.get("/history", mine).json["history"]
    assert [(h["entity_type"], h["entity_id"], h["actor_name"]) for h in history] == [
        ("invoice", invoice.id, "Fin Finance")]
    assert "changes" not in history[0]
    activity = portal.get("/dashboard", mine).json["recentActivity"]
    assert [a["entity_id"] for a in activity] == [invoice.id]


def test_notes_on_invoices_listed_and_created(portal, db):
    mine, other = make_client(db), make_client(db)
    invoice, theirs, draft = _issued(db, mine), _issued(db, other), _issued(db, mine, status="draft")
    db.add_all([Note(resource_type="invoice", resource_id=invoice.id, content="Paid soon?", visibility=["client"],
                     mentions=[]),
                Note(resource_type="invoice", resource_id=invoice.id, content="internal", visibility=["executive"],
                     mentions=[]),
                Note(resource_type="invoice", resource_id=theirs.id, content="theirs", visibility=["client"],
                     mentions=[])])
    db.flush()
    assert [n["content"] for n in portal.get("/notes", mine).json["notes"]] == ["Paid soon?"]
    body = {"resourceType": "invoice", "resourceId": invoice.id, "content": "Question on line 2"}
    created = portal.post("/notes", mine, role="collaborator", json=body)
    assert created.status == 201, created
    note = db.get(Note, created.json["id"])
    assert note.resource_type == "invoice" and note.author_id is None and "client" in note.visibility
    reply = portal.post("/notes", mine, role="admin", json={**body, "parentId": created.json["id"]})
    assert reply.status == 201
    for refused in (theirs.id, draft.id, "no-such-invoice"):
        answer = portal.post("/notes", mine, role="admin", json={**body, "resourceId": refused})
        assert answer.status == 400, refused
    assert portal.post("/notes", mine, role="viewer", json=body).status == 403


def test_invoice_list_costs_constant_statements(portal, db, count_queries):
    mine = make_client(db)

    def add(n):
        for _ in range(n):
            _issued(db, mine)

    add(5)
    with count_queries() as small:
        assert len(portal.get("/invoices", mine).json["invoices"]) == 5
        portal.get("/dashboard", mine)
        portal.get("/history", mine)
    add(95)
    with count_queries() as large:
        assert len(portal.get("/invoices", mine).json["invoices"]) == 100
        portal.get("/dashboard", mine)
        portal.get("/history", mine)
    assert large.count == small.count


# ---------------------------------------------------------------- contracts

def _contract(db, title, signers, status="signed", company=None):
    contract = Contract(title=title, status=status, signers=signers, company_id=company.id if company else None)
    db.add(contract)
    db.flush()
    return contract


def test_contracts_by_signer_email_of_a_company_contact(portal, db):
    mine, sister, stranger = make_client(db, group="G"), make_client(db, group="G"), make_client(db)
    make_contact(db, company_id=mine.id, email="Ann@Client.example")
    make_contact(db, company_id=sister.id, email="sis@sister.example")
    make_contact(db, company_id=stranger.id, email="x@stranger.example")
    make_contact(db, company_id=make_company(db).id, email="nobody@else.example")
    agency = {"name": "Agency", "email": "ceo@agency.example", "signed_at": "2026-01-01T00:00:00Z"}
    ours = _contract(db, "MSA", [agency, {"name": "Ann", "email": "ann@client.EXAMPLE", "signed_at": None,
                                          "ip": "10.0.0.1"}])
    _contract(db, "Sister SOW", [{"name": "Sis", "email": "sis@sister.example"}])
    _contract(db, "Stranger", [{"name": "X", "email": "x@stranger.example"}], company=mine)
    _contract(db, "Draft", [{"name": "Ann", "email": "ann@client.example"}], status="draft")
    _contract(db, "Nobody", [agency])
    _contract(db, "Odd", {"not": "a list"})
    _contract(db, "Empty", [])
    answer = portal.get("/contracts", mine)
    assert answer.status == 200, answer
    listed = answer.json["contracts"]
    assert [c["title"] for c in listed] == ["MSA"]
    assert listed[0]["id"] == ours.id and listed[0]["signers"][1] == {"name": "Ann", "email": "ann@client.EXAMPLE",
                                                                      "signed_at": None}
    assert "created_by" not in listed[0] and "proposal_id" not in listed[0]
    grouped = portal.get("/contracts", mine, group=[sister, stranger]).json["contracts"]
    assert {c["title"] for c in grouped} == {"MSA", "Sister SOW"}


# ---------------------------------------------------------------- onboarding

def test_onboarding_empty_before_it_starts_then_progress(portal, db, api, exec_user):
    mine, other = make_client(db), make_client(db)
    empty = portal.get("/onboarding", mine)
    assert empty.status == 200, empty
    assert empty.json == {"template": None, "stages": [], "total_milestones": 0, "completed_milestones": 0,
                          "completion_percentage": 0, "current_stage_type": None, "started_at": None,
                          "completed_at": None}
    base = "/api/admin/onboarding-templates/client"
    template = api.post(base, json={"name": "Standard"}, as_=exec_user).json["template"]
    stage1 = api.post(f"{base}/{template['id']}/stages", json={"name": "Kick-off", "stage_type": "kickoff"},
                      as_=exec_user).json["stage"]
    stage2 = api.post(f"{base}/{template['id']}/stages", json={"name": "Build", "stage_type": "build"},
                      as_=exec_user).json["stage"]
    ids = []
    for stage, title, required in ((stage1, "Contract", True), (stage1, "Welcome pack", False),
                                   (stage2, "Access", True)):
        made = api.post(f"/api/admin/onboarding-templates/client/stages/{stage['id']}/milestones",
                        json={"title": title, "is_required": required}, as_=exec_user)
        assert made.status == 201, made
        ids.append(made.json["milestone"]["id"])
    assert api.post(f"/api/clients/{mine.id}/onboarding", json={"template_id": template["id"]},
                    as_=exec_user).status == 201
    assert api.post(f"/api/clients/{mine.id}/onboarding/milestones/{ids[0]}/complete", as_=exec_user).status == 200
    body = portal.get("/onboarding", mine).json
    assert body["template"] == {"id": template["id"], "name": "Standard"}
    assert [s["name"] for s in body["stages"]] == ["Kick-off", "Build"]
    assert body["total_milestones"] == 3 and body["completed_milestones"] == 1
    assert body["completion_percentage"] == 50 and body["current_stage_type"] == "build"
    assert body["started_at"] and body["completed_at"] is None
    milestone = body["stages"][0]["milestones"][0]
    assert milestone["completed_at"] and "completed_by" not in milestone and "auto_source" not in milestone
    assert api.post(f"/api/clients/{mine.id}/onboarding/milestones/{ids[2]}/complete", as_=exec_user).status == 200
    done = portal.get("/onboarding", mine).json
    assert done["completion_percentage"] == 100 and done["current_stage_type"] is None and done["completed_at"]
    # another company's progress is not read
    assert portal.get("/onboarding", other).json["template"] is None


def test_invoice_and_contract_lists_are_capped(portal, db):
    from chalicelib.core.locks import insert_rows
    from chalicelib.core.query import LIST_LIMIT
    from chalicelib.areas.invoices.models import Invoice

    mine = make_client(db)
    make_contact(db, company_id=mine.id, email="cap@client.example")
    insert_rows(db, Invoice, [{"invoice_number": f"CAP-{index:05d}", "status": "sent", "company_id": mine.id,
                               "issued_date": date(2026, 1, 1) + timedelta(days=index % 300)}
                              for index in range(LIST_LIMIT + 5)])
    insert_rows(db, Contract, [{"title": f"K{index}", "status": "signed",
                                "signers": [{"name": "Cap", "email": "cap@client.example"}]}
                               for index in range(LIST_LIMIT + 5)])
    db.flush()
    invoices = portal.get("/invoices", mine).json["invoices"]
    assert len(invoices) == LIST_LIMIT and invoices[0]["issued_date"] >= invoices[-1]["issued_date"]
    assert len(portal.get("/contracts", mine).json["contracts"]) == LIST_LIMIT


def test_contracts_cost_constant_statements(portal, db, count_queries):
    mine = make_client(db)
    make_contact(db, company_id=mine.id, email="k@client.example")

    def add(n):
        for index in range(n):
            _contract(db, f"K{index}", [{"name": "K", "email": "k@client.example"}])

    add(5)
    with count_queries() as small:
        assert len(portal.get("/contracts", mine).json["contracts"]) == 5
    add(95)
    with count_queries() as large:
        assert len(portal.get("/contracts", mine).json["contracts"]) == 100
    assert large.count == small.count


def test_onboarding_ignores_the_group_header(portal, db, api, exec_user):
    mine, sister = make_client(db, group="G"), make_client(db, group="G")
    template = api.post("/api/admin/onboarding-templates/client", json={"name": "Sister's"},
                        as_=exec_user).json["template"]
    assert api.post(f"/api/clients/{sister.id}/onboarding", json={"template_id": template["id"]},
                    as_=exec_user).status == 201
    assert portal.get("/onboarding", sister).json["template"]["name"] == "Sister's"
    assert portal.get("/onboarding", mine, group=[sister]).json["template"] is None


def test_is_overdue_is_a_0_or_1_flag(portal, db):
    """Document 1 convention 4 (document 3: flags as 0/1) and docs/decisions/portal.md ("Flags are 0/1 like every
    flag of the service"): the computed is_overdue of the portal's invoices is 0 or 1, never true/false."""
    mine = make_client(db)
    late = _issued(db, mine, due_date=org_today() - timedelta(days=5))
    due = _issued(db, mine, due_date=org_today() + timedelta(days=5))
    listed = {i["id"]: i["is_overdue"] for i in portal.get("/invoices", mine).json["invoices"]}
    assert listed == {late.id: 1, due.id: 0}
    assert all(type(flag) is int for flag in listed.values())
    detail = portal.get(f"/invoices/{late.id}", mine).json["invoice"]
    assert detail["is_overdue"] == 1 and type(detail["is_overdue"]) is int


def test_a_shared_contact_does_not_show_one_client_the_others_contracts(portal, db):
    """A contact two clients share (a freelance finance director) signs contracts of both: each client's portal lists
    its own contracts and those of no company, never the other client's (audits S1, S4)."""
    mine, other = make_client(db), make_client(db)
    shared = {"name": "Fin", "email": "fin@freelance.example"}
    make_contact(db, company_id=mine.id, email="fin@freelance.example")
    make_contact(db, company_id=other.id, email="fin@freelance.example")
    _contract(db, "Ours", [shared], company=mine)
    _contract(db, "Theirs", [shared], company=other)
    _contract(db, "Unfiled", [shared])
    assert {c["title"] for c in portal.get("/contracts", mine).json["contracts"]} == {"Ours", "Unfiled"}
    assert {c["title"] for c in portal.get("/contracts", other).json["contracts"]} == {"Theirs", "Unfiled"}
