"""Sprints at /api/sprints (tool projects: view reads, update writes, manage deletes)."""
import pytest

from tests.areas.projects.factories import make_project
from tests.factories import grant, make_user


@pytest.mark.smoke
def test_sprint_create_get_update_delete(api, db, exec_user):
    project = make_project(db)
    created = api.post("/api/sprints", as_=exec_user, json={
        "project_id": project.id, "name": " Sprint 1 ", "start_date": "2026-03-02", "end_date": "2026-03-13"})
    assert created.status == 201, created
    sprint = created.json["sprint"]
    assert sprint["name"] == "Sprint 1" and sprint["status"] == "planned" and sprint["project_id"] == project.id
    assert sprint["start_date"] == "2026-03-02" and sprint["end_date"] == "2026-03-13"
    assert sprint["project_name"] == project.name
    assert api.get(f"/api/sprints/{sprint['id']}", as_=exec_user).json == {"sprint": sprint}

    updated = api.put(f"/api/sprints/{sprint['id']}", as_=exec_user, json={"status": "active", "end_date": "2026-03-20"})
    assert updated.status == 200
    assert updated.json["sprint"]["status"] == "active" and updated.json["sprint"]["end_date"] == "2026-03-20"
    assert updated.json["sprint"]["name"] == "Sprint 1"

    assert api.delete(f"/api/sprints/{sprint['id']}", as_=exec_user).json == {"ok": True}
    assert api.get(f"/api/sprints/{sprint['id']}", as_=exec_user).status == 404


def test_sprint_validation(api, db, exec_user):
    project = make_project(db)
    cases = [
        ({"name": "S"}, "project_id"),
        ({"project_id": project.id}, "name"),
        ({"project_id": project.id, "name": "S", "status": "done"}, "status"),
        ({"project_id": project.id, "name": "S", "start_date": "next week"}, "start_date"),
    ]
    for body, field in cases:
        response = api.post("/api/sprints", as_=exec_user, json=body)
        assert response.status == 400, body
        assert response.json["details"][0]["field"] == field
    backwards = api.post("/api/sprints", as_=exec_user, json={
        "project_id": project.id, "name": "S", "start_date": "2026-03-10", "end_date": "2026-03-09"})
    assert backwards.status == 400 and "end_date" in backwards.json["error"]
    same_day = api.post("/api/sprints", as_=exec_user, json={
        "project_id": project.id, "name": "S", "start_date": "2026-03-10", "end_date": "2026-03-10"})
    assert same_day.status == 201
    unknown = api.post("/api/sprints", as_=exec_user, json={"project_id": "nope", "name": "S"})
    assert unknown.status == 400 and "project_id" in unknown.json["error"]

    sprint_id = same_day.json["sprint"]["id"]
    # the end date is checked against the stored start date
    assert api.put(f"/api/sprints/{sprint_id}", as_=exec_user, json={"end_date": "2026-03-01"}).status == 400
    assert api.put(f"/api/sprints/{sprint_id}", as_=exec_user, json={"start_date": "2026-03-11"}).status == 400
    assert api.put(f"/api/sprints/{sprint_id}", as_=exec_user, json={"name": None}).status == 400
    assert api.put(f"/api/sprints/{sprint_id}", as_=exec_user, json={"project_id": "nope"}).status == 400
    moved = api.put(f"/api/sprints/{sprint_id}", as_=exec_user,
                    json={"start_date": "2026-04-01", "end_date": "2026-04-14", "project_id": make_project(db).id})
    assert moved.status == 200 and moved.json["sprint"]["start_date"] == "2026-04-01"


def test_sprint_not_found(api, exec_user):
    assert api.get("/api/sprints/missing", as_=exec_user).status == 404
    assert api.put("/api/sprints/missing", as_=exec_user, json={"name": "x"}).status == 404
    assert api.delete("/api/sprints/missing", as_=exec_user).status == 404


def test_sprint_permissions(api, db, exec_user):
    employee = make_user(db)
    own_project = make_project(db, owner_id=employee.id)
    hidden_project = make_project(db)
    sprint = api.post("/api/sprints", as_=exec_user, json={"project_id": own_project.id, "name": "S"}).json["sprint"]
    # employees hold projects:update: they create and edit, but do not delete
    assert api.post("/api/sprints", as_=employee, json={"project_id": own_project.id, "name": "E"}).status == 201
    assert api.put(f"/api/sprints/{sprint['id']}", as_=employee, json={"name": "E2"}).status == 200
    assert api.delete(f"/api/sprints/{sprint['id']}", as_=employee).status == 403
    # a sprint goes only into a project the caller can see
    hidden = api.post("/api/sprints", as_=employee, json={"project_id": hidden_project.id, "name": "H"})
    assert hidden.status == 400
    viewer = make_user(db)
    grant(db, viewer, "projects", "view")
    # a sprint is seen through its project (issue 20): the viewer belongs to it
    from chalicelib.areas.projects.models import ProjectMember
    db.add(ProjectMember(project_id=own_project.id, user_id=viewer.id))
    db.flush()
    assert api.get("/api/sprints", as_=viewer).status == 200
    assert api.get(f"/api/sprints/{sprint['id']}", as_=viewer).status == 200
    assert api.post("/api/sprints", as_=viewer, json={"project_id": own_project.id, "name": "V"}).status == 403
    assert api.put(f"/api/sprints/{sprint['id']}", as_=viewer, json={"name": "V"}).status == 403
    nobody = make_user(db)
    grant(db, nobody, "projects", "none")
    assert api.get("/api/sprints", as_=nobody).status == 403
    assert api.get("/api/sprints").status == 401


def test_sprint_list_filters(api, db, exec_user, count_queries):
    p1, p2 = make_project(db), make_project(db)

    def create(project, name, status, start):
        body = {"project_id": project.id, "name": name, "status": status, "start_date": start}
        return api.post("/api/sprints", as_=exec_user, json=body).json["sprint"]["id"]

    a = create(p1, "A", "closed", "2026-01-05")
    b = create(p1, "B", "active", "2026-01-19")
    c = create(p2, "C", "active", None)
    d = create(p2, "D", "planned", "2026-02-02")

    def names(query=""):
        response = api.get(f"/api/sprints{query}", as_=exec_user)
        assert response.status == 200
        return [s["id"] for s in response.json["sprints"]]

    assert names() == [d, b, a, c]  # latest start first, undated last
    assert names(f"?project_id={p1.id}") == [b, a]
    assert names("?status=active") == [b, c]
    assert names(f"?project_id={p2.id}&status=planned") == [d]
    assert api.get("/api/sprints?status=open", as_=exec_user).status == 400
    with count_queries() as few:
        api.get("/api/sprints", as_=exec_user)
    for n in range(20):
        create(p1, f"N{n}", "planned", "2026-05-01")
    with count_queries() as many:
        listed = api.get("/api/sprints", as_=exec_user).json["sprints"]
    assert len(listed) == 24
    assert {s["project_name"] for s in listed} == {p1.name, p2.name}
    assert few.count == many.count


def test_deleting_a_sprint_clears_it_from_its_tasks(api, db, exec_user):
    project = make_project(db)
    sprints = [api.post("/api/sprints", as_=exec_user, json={"project_id": project.id, "name": name}).json["sprint"]
               for name in ("Gone", "Kept")]
    gone, kept = (sprint["id"] for sprint in sprints)
    tasks = [api.post("/api/tasks", as_=exec_user, json={"title": title, "sprint_id": sprint_id})
             for title, sprint_id in (("a", gone), ("b", gone), ("c", kept))]
    assert [task.status for task in tasks] == [201, 201, 201], tasks
    a, b, c = (task.json["task"]["id"] for task in tasks)
    assert api.delete(f"/api/sprints/{gone}", as_=exec_user).json == {"ok": True}
    assert api.get(f"/api/tasks/{a}", as_=exec_user).json["task"]["sprint_id"] is None
    assert api.get(f"/api/tasks/{b}", as_=exec_user).json["task"]["sprint_id"] is None
    assert api.get(f"/api/tasks/{c}", as_=exec_user).json["task"]["sprint_id"] == kept


def test_sprint_dates_are_strict_calendar_dates(api, db, exec_user):
    project = make_project(db)
    for value in (20260302, "2026-03-02T00:00:00", "2026-02-30"):
        response = api.post("/api/sprints", as_=exec_user, json={"project_id": project.id, "name": "S",
                                                                 "start_date": value})
        assert response.status == 400, value
        assert response.json["details"][0]["field"] == "start_date"


def test_sprint_list_pages_with_total(api, db, exec_user):
    project = make_project(db)
    ids = []
    for day in range(1, 6):
        created = api.post("/api/sprints", as_=exec_user, json={"project_id": project.id, "name": f"S{day}",
                                                                "start_date": f"2026-03-0{day}"})
        ids.append(created.json["sprint"]["id"])
    ids.reverse()  # newest start date first
    whole = api.get(f"/api/sprints?project_id={project.id}", as_=exec_user).json
    assert [s["id"] for s in whole["sprints"]] == ids
    assert (whole["total"], whole["limit"], whole["offset"]) == (5, 500, 0)
    seen = []
    for offset in (0, 2, 4):
        body = api.get(f"/api/sprints?project_id={project.id}&limit=2&offset={offset}", as_=exec_user).json
        assert (body["total"], body["limit"], body["offset"]) == (5, 2, offset)
        seen += [s["id"] for s in body["sprints"]]
    assert seen == ids
    assert api.get("/api/sprints?limit=501", as_=exec_user).status == 400


def test_sprint_validation_errors_name_their_field(api, db, exec_user, employee):
    # decisions.md section 4: a validation error adds details [{field, message}]
    project, hidden = make_project(db, owner_id=employee.id), make_project(db)
    backwards = api.post("/api/sprints", as_=exec_user, json={
        "project_id": project.id, "name": "S", "start_date": "2026-03-10", "end_date": "2026-03-09"})
    assert backwards.status == 400 and [d["field"] for d in backwards.json["details"]] == ["end_date"]
    for project_id in ("nope", hidden.id):
        refused = api.post("/api/sprints", as_=employee, json={"project_id": project_id, "name": "S"})
        assert refused.status == 400 and [d["field"] for d in refused.json["details"]] == ["project_id"], project_id
    sprint = api.post("/api/sprints", as_=employee, json={"project_id": project.id, "name": "S",
                                                         "start_date": "2026-03-10"}).json["sprint"]
    moved = api.put(f"/api/sprints/{sprint['id']}", as_=employee, json={"project_id": hidden.id})
    assert moved.status == 400 and [d["field"] for d in moved.json["details"]] == ["project_id"]
    early = api.put(f"/api/sprints/{sprint['id']}", as_=employee, json={"end_date": "2026-03-01"})
    assert early.status == 400 and [d["field"] for d in early.json["details"]] == ["end_date"]


def test_sprint_status_changes_are_free_and_delete_needs_scope(api, db, exec_user, employee):
    # docs/decisions/sprints.md: any status to any status, several active sprints per project; a delete by a
    # holder of projects:manage still answers 404 for a sprint of a project they cannot see
    project = make_project(db, owner_id=employee.id)
    first, second = (api.post("/api/sprints", as_=employee, json={"project_id": project.id, "name": name,
                                                                  "status": "active"}).json["sprint"]
                     for name in ("One", "Two"))
    assert first["status"] == second["status"] == "active"
    for status in ("closed", "planned", "active", "closed"):
        changed = api.put(f"/api/sprints/{first['id']}", as_=employee, json={"status": status})
        assert changed.status == 200 and changed.json["sprint"]["status"] == status
    deleter = make_user(db)
    grant(db, deleter, "projects", "manage")
    assert api.delete(f"/api/sprints/{second['id']}", as_=deleter).status == 404
    assert api.get(f"/api/sprints/{second['id']}", as_=exec_user).status == 200
