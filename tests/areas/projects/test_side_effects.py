"""Create and update side effects: hooks for later areas, completion notice to the delivery manager."""
import pytest
from sqlalchemy import select

from chalicelib.core import hooks
from chalicelib.core.notify import Notification
from tests.factories import make_user

CALLS: list[tuple[str, dict]] = []


def spy_created(ctx, **payload):
    CALLS.append(("project_created", payload))


def spy_updated(ctx, **payload):
    CALLS.append(("project_updated", payload))


def spy_completed(ctx, **payload):
    CALLS.append(("project_completed", payload))


@pytest.fixture
def spies(monkeypatch):
    CALLS.clear()
    here = __name__
    monkeypatch.setitem(hooks.HANDLERS, "project_created", [f"{here}:spy_created"])
    monkeypatch.setitem(hooks.HANDLERS, "project_updated", [f"{here}:spy_updated"])
    monkeypatch.setitem(hooks.HANDLERS, "project_completed", [f"{here}:spy_completed"])
    yield CALLS
    CALLS.clear()


@pytest.fixture
def boss(db):
    return make_user(db, access_level="executive", name="Boss")


@pytest.fixture
def company(api, boss):
    return api.post("/api/deals/companies", json={"name": "Client Co"}, as_=boss).json["company"]


def completion_notes(db, user_id):
    return db.scalars(select(Notification).where(Notification.user_id == user_id,
                                                 Notification.type == "project_completed")).all()


def test_create_emits_project_created(api, boss, spies):
    project = api.post("/api/projects", json={"name": "Hooked"}, as_=boss).json["project"]
    assert spies == [("project_created", {"project_id": project["id"]})]


def test_hooks_without_their_area_are_a_no_op(api, boss):
    # The default handlers point at areas that do not exist yet (onboarding, insights, relationships).
    assert api.post("/api/projects", json={"name": "Plain"}, as_=boss).status == 201


def test_update_emits_project_updated_only_for_status_or_company(api, boss, company, spies):
    project = api.post("/api/projects", json={"name": "U"}, as_=boss).json["project"]
    spies.clear()
    path = f"/api/projects/{project['id']}"
    api.put(path, json={"description": "no hook"}, as_=boss)
    assert spies == []
    api.put(path, json={"status": "on_hold"}, as_=boss)
    assert spies == [("project_updated", {"project_id": project["id"]})]
    spies.clear()
    api.put(path, json={"company_id": company["id"]}, as_=boss)
    assert spies == [("project_updated", {"project_id": project["id"]})]


def test_completing_a_client_project_emits_completed_and_notifies_delivery_manager(api, db, boss, company, spies):
    manager = make_user(db, name="Delivery")
    project = api.post("/api/projects", json={"name": "Client work", "company_id": company["id"],
                                              "delivery_manager_id": manager.id}, as_=boss).json["project"]
    spies.clear()
    response = api.put(f"/api/projects/{project['id']}", json={"status": "completed"}, as_=boss)
    assert response.status == 200
    assert ("project_completed", {"project_id": project["id"]}) in spies
    [note] = completion_notes(db, manager.id)
    assert (note.resource_type, note.resource_id, note.actor_id) == ("project", project["id"], boss.id)
    assert "Client work" in note.title


def test_completing_without_company_has_no_completion_effects(api, db, boss, spies):
    manager = make_user(db)
    project = api.post("/api/projects", json={"name": "Internal", "delivery_manager_id": manager.id},
                       as_=boss).json["project"]
    spies.clear()
    api.put(f"/api/projects/{project['id']}", json={"status": "completed"}, as_=boss)
    assert [name for name, _ in spies] == ["project_updated"]
    assert completion_notes(db, manager.id) == []


def test_saving_an_already_completed_project_does_not_notify_again(api, db, boss, company, spies):
    manager = make_user(db)
    project = api.post("/api/projects", json={"name": "Done", "company_id": company["id"], "status": "completed",
                                              "delivery_manager_id": manager.id}, as_=boss).json["project"]
    api.put(f"/api/projects/{project['id']}", json={"status": "completed", "description": "x"}, as_=boss)
    assert completion_notes(db, manager.id) == []
    assert "project_completed" not in [name for name, _ in spies]


def test_completion_without_delivery_manager_still_emits(api, db, boss, company, spies):
    project = api.post("/api/projects", json={"name": "No DM", "company_id": company["id"]}, as_=boss).json["project"]
    spies.clear()
    assert api.put(f"/api/projects/{project['id']}", json={"status": "completed"}, as_=boss).status == 200
    assert [name for name, _ in spies] == ["project_updated", "project_completed"]
    assert db.scalars(select(Notification).where(Notification.type == "project_completed")).all() == []


def test_failed_update_leaves_no_trace(api, db, boss, company, spies):
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
