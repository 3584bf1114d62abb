"""Update side effects: the completion notice to the delivery manager. (The hooks for areas not built yet
are gone: the issue that builds such an area adds its explicit call, with its test.)"""
import pytest
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.factories import grant, make_user

@pytest.fixture
def boss(db):
    return make_user(db, access_level="executive", name="Boss")


@pytest.fixture
def company(api, boss):
    return api.post("/api/deals/companies", json={"name": "Client Co"}, as_=boss).json["company"]


def completion_notes(db, user_id):
    return db.scalars(select(Notification).where(Notification.user_id == user_id,
                                                 Notification.type == "project_completed")).all()


def test_completing_a_client_project_notifies_delivery_manager(api, db, boss, company):
    manager = make_user(db, name="Delivery")
    project = api.post("/api/projects", json={"name": "Client work", "company_id": company["id"],
                                              "delivery_manager_id": manager.id}, as_=boss).json["project"]
    response = api.put(f"/api/projects/{project['id']}", json={"status": "completed"}, as_=boss)
    assert response.status == 200
    [note] = completion_notes(db, manager.id)
    assert (note.resource_type, note.resource_id, note.actor_id) == ("project", project["id"], boss.id)
    assert "Client work" in note.title


def test_a_delivery_manager_who_may_not_read_the_project_is_not_told_of_its_completion(api, db, boss, company):
    """docs/decisions/projects.md, Notifications: `project_completed` only to a delivery manager who may read the
    project (active, projects:view, in scope); one whose projects permission is none gets nothing, nor the status
    notice (audit 6). The check is also made when the delivery manager is the actor (they are told then)."""
    manager = make_user(db, name="Delivery")
    project = api.post("/api/projects", json={"name": "Client work", "company_id": company["id"],
                                              "delivery_manager_id": manager.id}, as_=boss).json["project"]
    grant(db, manager, "projects", "none")
    assert api.get(f"/api/projects/{project['id']}", as_=manager).status == 403  # cannot read it
    response = api.put(f"/api/projects/{project['id']}", json={"status": "completed"}, as_=boss)
    assert response.status == 200, response
    assert db.scalars(select(Notification).where(Notification.user_id == manager.id)).all() == []


def test_completing_without_company_has_no_completion_effects(api, db, boss):
    manager = make_user(db)
    project = api.post("/api/projects", json={"name": "Internal", "delivery_manager_id": manager.id},
                       as_=boss).json["project"]
    api.put(f"/api/projects/{project['id']}", json={"status": "completed"}, as_=boss)
    assert completion_notes(db, manager.id) == []


def test_saving_an_already_completed_project_does_not_notify_again(api, db, boss, company):
    manager = make_user(db)
    project = api.post("/api/projects", json={"name": "Done", "company_id": company["id"], "status": "completed",
                                              "delivery_manager_id": manager.id}, as_=boss).json["project"]
    api.put(f"/api/projects/{project['id']}", json={"status": "completed", "description": "x"}, as_=boss)
    assert completion_notes(db, manager.id) == []


def test_completion_without_delivery_manager_notifies_the_owner(api, db, boss, company):
    """Session 25: no delivery manager on the project nor its client profile, the project's owner is told (here the
    boss, who made the change: the actor is allowed). Before, nobody was."""
    project = api.post("/api/projects", json={"name": "No DM", "company_id": company["id"]}, as_=boss).json["project"]
    assert api.put(f"/api/projects/{project['id']}", json={"status": "completed"}, as_=boss).status == 200
    told = db.scalars(select(Notification).where(Notification.type == "project_completed")).all()
    assert [(n.user_id, n.resource_id) for n in told] == [(boss.id, project["id"])]


def test_failed_update_leaves_no_trace(api, db, boss, company):
    manager = make_user(db)
    project = api.post("/api/projects", json={"name": "Atomic", "company_id": company["id"],
                                              "delivery_manager_id": manager.id}, as_=boss).json["project"]
    response = api.put(f"/api/projects/{project['id']}", json={"status": "completed", "owner_id": "ghost"}, as_=boss)
    assert response.status == 400
    assert completion_notes(db, manager.id) == []
    assert api.get(f"/api/projects/{project['id']}", as_=boss).json["project"]["status"] == "active"


def test_functions_other_areas_call(api, db, boss, company):
    """Hook handlers and other areas read projects through `project_brief` and `project_names`."""
    from chalicelib.areas.projects import service
    from tests.factories import config_item

    retainer = config_item(db, "project_type", "retainer")
    project = api.post("/api/projects", json={"name": "Brief", "company_id": company["id"], "type_id": retainer.id,
                                              "start_date": "2026-04-01"}, as_=boss).json["project"]
    brief = service.project_brief(db, project["id"])
    assert brief["name"] == "Brief" and brief["company_id"] == company["id"]
    assert (brief["type_id"], brief["type_value"], brief["start_date"]) == (retainer.id, "retainer", "2026-04-01")
    assert service.project_brief(db, "missing") is None
    assert service.project_names(db, [project["id"], "missing", None]) == {project["id"]: "Brief"}
    assert service.project_names(db, []) == {}


def test_completion_notifies_the_delivery_manager_who_made_the_change(api, db, boss, company):
    """docs/decisions/projects.md: the delivery manager is notified also when they completed the project themself
    (the specification names no exception)."""
    from tests.factories import grant

    manager = make_user(db, name="Self Completer", access_level="employee")
    grant(db, manager, "projects", "update")
    project = api.post("/api/projects", json={"name": "Own delivery", "company_id": company["id"],
                                              "delivery_manager_id": manager.id}, as_=boss).json["project"]
    assert api.put(f"/api/projects/{project['id']}", json={"status": "completed"}, as_=manager).status == 200
    [note] = completion_notes(db, manager.id)
    assert note.actor_id == manager.id


def test_delete_logs_a_deleted_history_entry(api, db, boss):
    """docs/decisions/projects.md: deleting a project logs a `deleted` history entry (kept after the delete)."""
    from chalicelib.core.models import HistoryEntry

    project = api.post("/api/projects", json={"name": "Gone"}, as_=boss).json["project"]
    assert api.delete(f"/api/projects/{project['id']}", as_=boss).json == {"ok": True}
    entries = db.scalars(select(HistoryEntry).where(HistoryEntry.entity_type == "project",
                                                    HistoryEntry.entity_id == project["id"])
                         .order_by(HistoryEntry.created_at)).all()
    assert [(e.action, e.actor_id) for e in entries] == [("created", boss.id), ("deleted", boss.id)]
    assert entries[-1].changes == {"name": {"from": "Gone", "to": None}}
