"""Acting as the client in budgets (field-level authorization audit): a faked client sign-off on money.

`approved` is the client's approval: document 3 ("Portal budget": a budget in pending_approval is approved by a
portal collaborator or admin and the approval is logged in history, POST /budgets/:id/approve) and decisions.md
section 9 ("the client's approval through the portal moves a budget from pending_approval to approved"). Any
holder of budgets:update (a manager by default) set it with a plain PUT /api/budgets/:id or created a budget
already `approved`: the budget read as approved by the client, who never saw it, with no approval in its history.
A budget already approved sent back unchanged, and a move out of approved, stay free."""
import pytest
from sqlalchemy import select

from chalicelib.core.models import HistoryEntry
from tests.areas.budgets.factories import make_budget
from tests.areas.portal.conftest import TOKEN, Portal, make_client
from tests.areas.projects.factories import make_project
from tests.factories import make_user

CLIENTS_OWN = "approved is the client's approval, given in the portal"


def _refused(answer):
    assert answer.status == 400, answer
    assert answer.json["details"] == [{"field": "status", "message": CLIENTS_OWN}], answer.json


@pytest.mark.parametrize("level", ["manager", "executive"])
def test_staff_cannot_record_the_clients_approval(api, db, level):
    staff = make_user(db, access_level=level)
    project = make_project(db, owner_id=staff.id, members=[staff])
    for status in ("pending_approval", "draft", "cancelled"):
        budget = make_budget(db, resource_id=project.id, status=status, owner_id=staff.id)
        path = f"/api/budgets/{budget.id}"
        _refused(api.put(path, as_=staff, json={"status": "approved", "po_number": "PO-1"}))
        read = api.get(path, as_=staff).json["budget"]
        assert (read["status"], read["po_number"]) == (status, None)  # nothing written
        assert db.scalars(select(HistoryEntry).where(HistoryEntry.entity_id == budget.id)).all() == []
    made = api.post("/api/budgets", as_=staff, json={"name": "Signed", "resource_type": "project",
                                                      "resource_id": project.id, "status": "approved"})
    _refused(made)
    assert api.get(f"/api/budgets?resource_id={project.id}", as_=staff).json["total"] == 3  # none created


def test_the_portal_approves_and_staff_move_on_from_approved(api, db, set_env):
    set_env(PORTAL_SERVICE_TOKEN=TOKEN)
    client = make_client(db)
    manager = make_user(db, access_level="manager")
    project = make_project(db, company_id=client.id, owner_id=manager.id, members=[manager])
    budget = make_budget(db, resource_id=project.id, status="pending_approval", owner_id=manager.id)
    path = f"/api/budgets/{budget.id}"
    approved = Portal(api).post(f"/budgets/{budget.id}/approve", client, role="collaborator", user="pu-9")
    assert approved.status == 200, approved
    read = api.get(path, as_=manager).json["budget"]
    assert read["status"] == "approved"
    entry = db.scalar(select(HistoryEntry).where(HistoryEntry.entity_id == budget.id))
    assert entry.action == "approved" and entry.changes["approved_by"] == "portal:pu-9"
    # the record PUT back as read (status approved, unchanged) is no new approval
    writable = ("name", "po_number", "currency", "status", "total_amount", "company_id", "owner_id", "budget_type",
                "forecast_date", "resource_type", "resource_id", "notes")
    sent_back = api.put(path, as_=manager, json={**{k: read[k] for k in writable}, "notes": "kick-off booked"})
    assert sent_back.status == 200 and sent_back.json["budget"]["status"] == "approved", sent_back
    # moves out of approved stay free; back to approved is the client's again
    assert api.put(path, as_=manager, json={"status": "active"}).json["budget"]["status"] == "active"
    _refused(api.put(path, as_=manager, json={"status": "approved"}))
    assert api.put(path, as_=manager, json={"status": "completed"}).json["budget"]["status"] == "completed"
