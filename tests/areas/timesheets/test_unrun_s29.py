"""Session 29, code no test ran (coverage audit): an entry moved to another budget while it keeps its line item."""
from chalicelib.areas.timesheets.models import TimeEntry
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def test_moving_an_entry_to_another_budget_with_its_old_line_item_is_a_400(api, db):
    worker = make_user(db, name="Wes Worker")
    project = make_project(db, members=[worker])
    first, second = make_budget(db, resource_id=project.id), make_budget(db, resource_id=project.id)
    line = make_line_item(db, first)
    made = api.post("/api/time-entries", as_=worker, json={
        "date": "2026-03-02", "hours": 1, "project_id": project.id, "budget_id": first.id, "line_item_id": line.id})
    assert made.status == 201, made
    entry_id = made.json["time_entry"]["id"]
    refused = api.put(f"/api/time-entries/{entry_id}", as_=worker, json={"budget_id": second.id})
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == ["line_item_id"]
    db.expire_all()
    assert (db.get(TimeEntry, entry_id).budget_id, db.get(TimeEntry, entry_id).line_item_id) == (first.id, line.id)
    moved = api.put(f"/api/time-entries/{entry_id}", as_=worker, json={"budget_id": second.id, "line_item_id": None})
    assert moved.status == 200, moved
    assert (moved.json["time_entry"]["budget_id"], moved.json["time_entry"]["line_item_id"]) == (second.id, None)
    with_line = api.put(f"/api/time-entries/{entry_id}", as_=worker,
                        json={"budget_id": first.id, "line_item_id": line.id})
    assert with_line.status == 200, with_line
