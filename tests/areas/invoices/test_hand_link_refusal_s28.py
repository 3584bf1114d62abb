"""Session 28 (audit: fields a reader should not see). A hand link to a ledger invoice another invoice holds is
refused (409); the refusal named that other invoice's number even when the invoice answers 404 to the caller (an
invoice of a budget is seen only by who sees the budget's project: docs/decisions/invoices.md, Scoping). It names
the number only when the caller sees that invoice."""
from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_company
from tests.areas.invoices.factories import make_invoice
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def _refused(api, db, *, other_owner_is_caller: bool):
    manager = make_user(db, access_level="manager")
    company = make_company(db, name="Acme Pty")
    mine = make_invoice(db, company_id=company.id,
                        budget_id=make_budget(db, resource_id=make_project(db, owner_id=manager.id).id).id)
    owner = {"owner_id": manager.id} if other_owner_is_caller else {}
    other = make_invoice(db, invoice_number="INV-OTHER-77", company_id=company.id, ledger_invoice_id="ledger-abc",
                         budget_id=make_budget(db, resource_id=make_project(db, **owner).id).id)
    seen = api.get(f"/api/invoices/{other.id}", as_=manager).status
    answer = api.put(f"/api/invoices/{mine.id}", as_=manager, json={"ledger_invoice_id": "ledger-abc"})
    assert answer.status == 409, answer
    return seen, answer.json["error"]


def test_a_hand_link_refusal_does_not_name_an_invoice_the_caller_cannot_see(api, db):
    seen, error = _refused(api, db, other_owner_is_caller=False)
    assert seen == 404
    assert error == "That ledger invoice is linked to another invoice"


def test_a_hand_link_refusal_names_an_invoice_the_caller_sees(api, db):
    seen, error = _refused(api, db, other_owner_is_caller=True)
    assert seen == 200
    assert error == "That ledger invoice is linked to another invoice (INV-OTHER-77)"
