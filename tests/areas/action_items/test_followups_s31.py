"""Session 31 (round 2, decided follow-ups): an action item's project_id references projects(id) ON DELETE SET NULL
(migration action_items_0003). A project's delete left the action items naming it with an id that names nothing; the
items are kept, no longer naming the project."""
import pytest

from tests.areas.action_items.factories import make_action_item
from tests.areas.projects.factories import make_project


@pytest.fixture
def postgres(engine):
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite's tests run with foreign keys off")


def _item(api, item_id, user) -> dict:
    """The item as the list answers it (the area has no detail route)."""
    answer = api.get("/api/action-items?limit=100", as_=user)
    assert answer.status == 200, answer
    return next(item for item in answer.json["action_items"] if item["id"] == item_id)


def test_a_project_s_delete_clears_it_on_the_items_naming_it(api, db, exec_user, postgres):
    project, other = make_project(db, name="Going"), make_project(db, name="Staying")
    made = api.post("/api/action-items", as_=exec_user, json={"title": "Send the brief", "project_id": project.id})
    assert made.status == 201, made
    item_id = made.json["action_item"]["id"]
    staying = make_action_item(db, assigned_to=exec_user.id, project_id=other.id)
    assert api.delete(f"/api/projects/{project.id}", as_=exec_user).status == 200
    after = _item(api, item_id, exec_user)
    assert (after["project_id"], after["title"], after["is_completed"]) == (None, "Send the brief", 0)
    assert _item(api, staying.id, exec_user)["project_id"] == other.id  # another project's items are untouched
    assert api.get(f"/api/action-items?project_id={project.id}", as_=exec_user).json["action_items"] == []


def test_an_item_naming_a_project_is_still_written_and_read(api, db, exec_user):
    project = make_project(db, name="Live")
    made = api.post("/api/action-items", as_=exec_user, json={"title": "Kick-off", "project_id": project.id})
    assert made.status == 201, made
    assert _item(api, made.json["action_item"]["id"], exec_user)["project_id"] == project.id
