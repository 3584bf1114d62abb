"""Session 24: a budget that invoices name is not deleted (409), whatever their status: the invoice would lose its
budget (ON DELETE SET NULL), become visible to every holder of invoices:view, and leave its project's profitability
and hold (docs/decisions/budgets.md, "Deleting a budget that invoices name")."""
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from chalicelib.areas.budgets.models import Budget
from chalicelib.areas.invoices.models import Invoice
from chalicelib.core.models import HistoryEntry
from tests.areas.budgets.factories import make_budget
from tests.areas.invoices.factories import make_invoice
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def _history(db, budget_id):
    return db.scalar(select(func.count(HistoryEntry.id)).where(HistoryEntry.entity_type == "budget",
                                                               HistoryEntry.entity_id == budget_id))


@pytest.mark.parametrize("statuses", [("sent",), ("paid",), ("voided",), ("draft", "voided")])
def test_a_budget_that_invoices_name_is_not_deleted(api, db, exec_user, statuses):
    budget = make_budget(db, total_amount=Decimal("5000"))
    invoices = [make_invoice(db, budget_id=budget.id, status=status, total=Decimal("100")) for status in statuses]
    history_before = _history(db, budget.id)
    refused = api.delete(f"/api/budgets/{budget.id}", as_=exec_user)
    assert refused.status == 409, refused
    count = len(statuses)
    assert refused.json["error"].startswith(f"The budget has {count} invoice{'s' if count != 1 else ''}"), refused.json
    assert "delete" in refused.json["error"]
    assert db.scalar(select(Budget.id).where(Budget.id == budget.id)) == budget.id
    assert db.scalars(select(Invoice.budget_id).where(Invoice.id.in_([i.id for i in invoices]))).all() == \
        [budget.id] * len(invoices)
    assert _history(db, budget.id) == history_before
    assert api.get(f"/api/budgets/{budget.id}", as_=exec_user).status == 200


def test_the_budget_deletes_once_its_invoices_are_deleted(api, db, exec_user):
    budget = make_budget(db)
    invoice = make_invoice(db, budget_id=budget.id, status="sent")
    assert api.delete(f"/api/budgets/{budget.id}", as_=exec_user).status == 409
    assert api.delete(f"/api/invoices/{invoice.id}", as_=exec_user).status == 200
    assert api.delete(f"/api/budgets/{budget.id}", as_=exec_user).status == 200
    assert db.scalar(select(Budget.id).where(Budget.id == budget.id)) is None
    assert db.scalar(select(HistoryEntry.action).where(HistoryEntry.entity_type == "budget",
                                                       HistoryEntry.entity_id == budget.id,
                                                       HistoryEntry.action == "deleted")) == "deleted"


def test_a_budget_without_invoices_deletes_as_before(api, db, exec_user):
    budget = make_budget(db)
    make_invoice(db, budget_id=make_budget(db).id)  # another budget's invoice does not hold this one
    assert api.delete(f"/api/budgets/{budget.id}", as_=exec_user).status == 200
    assert db.scalar(select(Budget.id).where(Budget.id == budget.id)) is None


def test_an_employee_outside_the_project_still_cannot_read_the_invoice(api, db, exec_user):
    outsider = make_user(db, access_level="employee", name="Olly Outsider")
    project = make_project(db, owner_id=exec_user.id)
    budget = make_budget(db, resource_id=project.id)
    invoice = make_invoice(db, budget_id=budget.id, status="sent")
    assert api.get(f"/api/invoices/{invoice.id}", as_=outsider).status == 404
    assert api.delete(f"/api/budgets/{budget.id}", as_=exec_user).status == 409
    assert api.get(f"/api/invoices/{invoice.id}", as_=outsider).status == 404
    assert api.delete(f"/api/projects/{project.id}", as_=exec_user).status == 409  # still held by its budget
