"""Session 32, audit "error bodies that name the wrong field": a sprint whose end would fall before its start is a
400 naming the date the request sent: `end_date` when it gives one, `start_date` when an update moves only the
start past the stored end (it named `end_date`, a field the request did not send)."""
from tests.areas.projects.factories import make_project


def test_an_update_names_the_date_it_sent(api, db, employee):
    project = make_project(db, owner_id=employee.id)
    sprint = api.post("/api/sprints", as_=employee, json={"project_id": project.id, "name": "S",
                                                         "start_date": "2026-03-02", "end_date": "2026-03-13"}).json["sprint"]
    path = f"/api/sprints/{sprint['id']}"
    late = api.put(path, as_=employee, json={"start_date": "2026-03-14"})
    assert late.status == 400 and late.json["details"] == [
        {"field": "start_date", "message": "must not be after end_date"}], late.json
    early = api.put(path, as_=employee, json={"end_date": "2026-03-01"})
    assert early.status == 400 and early.json["details"] == [
        {"field": "end_date", "message": "must not be before start_date"}], early.json
    both = api.put(path, as_=employee, json={"start_date": "2026-03-20", "end_date": "2026-03-19"})
    assert both.status == 400 and [d["field"] for d in both.json["details"]] == ["end_date"]
