"""Roadmaps at /api/roadmaps (tool roadmaps: view reads, update writes, manage deletes a roadmap)."""
import pytest

from chalicelib.areas.projects.models import ProjectGoal
from chalicelib.areas.tasks.models import Task
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import config_item, make_squad, make_user


def goal(db, project, title="Launch"):
    made = ProjectGoal(project_id=project.id, title=title, position=0)
    db.add(made)
    db.flush()
    return made


@pytest.mark.smoke
def test_roadmap_lifecycle(api, db, exec_user):
    project = make_project(db)
    created = api.post("/api/roadmaps", as_=exec_user, json={
        "name": " Q3 ", "description": "d", "project_id": project.id, "start_date": "2026-07-01",
        "end_date": "2026-09-30"})
    assert created.status == 201, created
    roadmap = created.json["roadmap"]
    assert roadmap["name"] == "Q3" and roadmap["project_id"] == project.id and roadmap["item_count"] == 0
    path = f"/api/roadmaps/{roadmap['id']}"
    launch = goal(db, project)
    item = api.post(f"{path}/items", as_=exec_user, json={
        "title": "Beta", "goal_id": launch.id, "area": "Build", "color": "#3B82F6", "start_date": "2026-07-01",
        "end_date": "2026-07-31"})
    assert item.status == 201, item
    assert item.json["item"]["goal_title"] == "Launch" and item.json["item"]["color"] == "#3b82f6"
    assert item.json["item"]["position"] == 0
    item_id = item.json["item"]["id"]
    second = api.post(f"{path}/items", as_=exec_user, json={"title": "GA", "position": 1}).json["item"]

    status = config_item(db, "task_status", "todo")
    linked = make_task(db, title="Build beta", roadmap_item_id=item_id, status_id=status.id)
    make_task(db, title="Unlinked")
    detail = api.get(path, as_=exec_user).json
    assert detail["roadmap"]["item_count"] == 2
    assert [i["title"] for i in detail["items"]] == ["Beta", "GA"]
    assert [t["id"] for t in detail["tasks"]] == [linked.id]
    assert detail["tasks"][0]["status_label"] == status.label and detail["tasks"][0]["status_color"] == status.color
    assert detail["tasks"][0]["roadmap_item_id"] == item_id
    assert detail["tasks_total"] == 1

    listed = api.get(f"/api/roadmaps?project_id={project.id}", as_=exec_user).json["roadmaps"]
    assert [(r["id"], r["item_count"]) for r in listed] == [(roadmap["id"], 2)]
    assert api.get("/api/roadmaps?project_id=other", as_=exec_user).json == {"roadmaps": [], "total": 0, "total_exact": 1,
                                                                          "limit": 500, "offset": 0}

    updated = api.put(f"{path}/items/{item_id}", as_=exec_user, json={"title": "Beta 2", "position": 5})
    assert updated.json["item"]["title"] == "Beta 2" and updated.json["item"]["goal_title"] == "Launch"
    assert api.put(path, as_=exec_user, json={"name": "Q3 plan"}).json["roadmap"]["name"] == "Q3 plan"

    assert api.delete(f"{path}/items/{item_id}", as_=exec_user).json == {"ok": True}
    db.refresh(linked)
    assert linked.roadmap_item_id is None
    assert api.delete(path, as_=exec_user).json == {"ok": True}
    assert api.get(path, as_=exec_user).status == 404
    assert api.put(f"{path}/items/{second['id']}", as_=exec_user, json={"title": "x"}).status == 404


def test_goal_must_belong_to_the_roadmaps_project(api, db, exec_user):
    project, other = make_project(db), make_project(db)
    roadmap = api.post("/api/roadmaps", as_=exec_user, json={"name": "R", "project_id": project.id}).json["roadmap"]
    loose = api.post("/api/roadmaps", as_=exec_user, json={"name": "No project"}).json["roadmap"]
    foreign, own = goal(db, other), goal(db, project)
    path = f"/api/roadmaps/{roadmap['id']}/items"
    for goal_id in (foreign.id, "nope"):
        refused = api.post(path, as_=exec_user, json={"title": "x", "goal_id": goal_id})
        assert refused.status == 400 and refused.json["details"][0]["field"] == "goal_id"
    assert api.post(f"/api/roadmaps/{loose['id']}/items", as_=exec_user,
                    json={"title": "x", "goal_id": own.id}).status == 400
    item = api.post(path, as_=exec_user, json={"title": "x", "goal_id": own.id}).json["item"]
    assert api.put(f"{path}/{item['id']}", as_=exec_user, json={"goal_id": foreign.id}).status == 400
    # moving the roadmap to another project clears the goals of the old one
    api.put(f"/api/roadmaps/{roadmap['id']}", as_=exec_user, json={"project_id": other.id})
    items = api.get(f"/api/roadmaps/{roadmap['id']}", as_=exec_user).json["items"]
    assert items[0]["goal_id"] is None and items[0]["goal_title"] is None


def test_validation(api, db, exec_user):
    for body in ({}, {"name": ""}, {"name": "R", "project_id": "nope"}, {"name": "R", "start_date": "soon"},
                 {"name": "R", "start_date": "2026-02-02", "end_date": "2026-02-01"}):
        assert api.post("/api/roadmaps", as_=exec_user, json=body).status == 400, body
    roadmap = api.post("/api/roadmaps", as_=exec_user, json={"name": "R", "start_date": "2026-02-02"}).json["roadmap"]
    path = f"/api/roadmaps/{roadmap['id']}"
    assert api.put(path, as_=exec_user, json={"end_date": "2026-01-01"}).status == 400
    assert api.put(path, as_=exec_user, json={"name": None}).status == 400
    for body in ({}, {"title": ""}, {"title": "x", "color": "blue"}, {"title": "x", "position": -1},
                 {"title": "x", "position": "1"}, {"title": "x", "start_date": "2026-02-02", "end_date": "2026-02-01"}):
        assert api.post(f"{path}/items", as_=exec_user, json=body).status == 400, body
    assert api.get("/api/roadmaps/nope", as_=exec_user).status == 404


def test_scoping_and_permissions(api, db, exec_user):
    squad = make_squad(db)
    employee = make_user(db, access_level="employee", squad_id=squad.id)
    stranger = make_user(db, access_level="employee", squad_id=squad.id)
    manager = make_user(db, access_level="manager", squad_id=make_squad(db).id)
    mine_project, hidden_project = make_project(db, owner_id=employee.id), make_project(db, owner_id=stranger.id)
    mine = api.post("/api/roadmaps", as_=exec_user, json={"name": "Mine", "project_id": mine_project.id}).json
    hidden = api.post("/api/roadmaps", as_=exec_user, json={"name": "Hidden", "project_id": hidden_project.id}).json
    shared = api.post("/api/roadmaps", as_=exec_user, json={"name": "Shared"}).json
    ids = lambda user: {r["id"] for r in api.get("/api/roadmaps", as_=user).json["roadmaps"]}
    assert {mine["roadmap"]["id"], shared["roadmap"]["id"]} <= ids(employee)
    assert hidden["roadmap"]["id"] not in ids(employee) and hidden["roadmap"]["id"] not in ids(manager)
    assert hidden["roadmap"]["id"] in ids(exec_user)
    assert api.get(f"/api/roadmaps/{hidden['roadmap']['id']}", as_=manager).status == 404
    assert api.put(f"/api/roadmaps/{hidden['roadmap']['id']}", as_=manager, json={"name": "x"}).status == 404
    # employees hold roadmaps:view; managers update but do not delete roadmaps
    assert api.post("/api/roadmaps", as_=employee, json={"name": "x"}).status == 403
    assert api.delete(f"/api/roadmaps/{shared['roadmap']['id']}", as_=manager).status == 403
    assert api.post("/api/roadmaps", as_=manager, json={"name": "x", "project_id": hidden_project.id}).status == 400
    # the detail lists only the linked tasks the caller can see
    item = api.post(f"/api/roadmaps/{shared['roadmap']['id']}/items", as_=exec_user, json={"title": "i"}).json["item"]
    seen = make_task(db, roadmap_item_id=item["id"], assignee_id=employee.id)
    make_task(db, roadmap_item_id=item["id"], assignee_id=stranger.id, created_by=stranger.id,
              reporter_id=stranger.id)
    assert [t["id"] for t in api.get(f"/api/roadmaps/{shared['roadmap']['id']}", as_=employee).json["tasks"]] == [
        seen.id]
    assert len(api.get(f"/api/roadmaps/{shared['roadmap']['id']}", as_=exec_user).json["tasks"]) == 2
    # the total counts what the caller sees
    assert api.get(f"/api/roadmaps/{shared['roadmap']['id']}", as_=employee).json["tasks_total"] == 1
    assert db.get(Task, seen.id) is not None


def test_list_and_detail_cost_constant_statements(api, db, exec_user, count_queries):
    from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem

    project = make_project(db)
    detail = Roadmap(name="Detail", project_id=project.id)
    db.add(detail)
    db.flush()

    def grow(n):
        for i in range(n):
            roadmap = Roadmap(name=f"R{i}", project_id=project.id)
            db.add(roadmap)
            db.flush()
            db.add(RoadmapItem(roadmap_id=roadmap.id, title="i", position=0))
            item = RoadmapItem(roadmap_id=detail.id, title=f"i{i}", position=i, goal_id=goal(db, project).id)
            db.add(item)
            db.flush()
            make_task(db, roadmap_item_id=item.id)

    counts = {"list": [], "detail": []}
    for total in (5, 100):
        grow(total - (5 if counts["list"] else 0))
        for name, url in (("list", "/api/roadmaps"), ("detail", f"/api/roadmaps/{detail.id}")):
            with count_queries() as counter:
                assert api.get(url, as_=exec_user).status == 200
            counts[name].append(counter.count)
    assert len(api.get(f"/api/roadmaps/{detail.id}", as_=exec_user).json["tasks"]) == 100
    assert counts["list"][0] == counts["list"][1] and counts["detail"][0] == counts["detail"][1], counts


def test_roadmap_list_pages_with_total(api, db, exec_user):
    project = make_project(db)
    ids = [api.post("/api/roadmaps", as_=exec_user, json={"name": f"R{n}", "project_id": project.id}).json["roadmap"]["id"]
           for n in range(5)]
    ids.reverse()  # newest first
    seen = []
    for offset in (0, 2, 4):
        body = api.get(f"/api/roadmaps?project_id={project.id}&limit=2&offset={offset}", as_=exec_user).json
        assert (body["total"], body["limit"], body["offset"]) == (5, 2, offset)
        seen += [r["id"] for r in body["roadmaps"]]
    assert seen == ids
    whole = api.get(f"/api/roadmaps?project_id={project.id}", as_=exec_user).json
    assert [r["id"] for r in whole["roadmaps"]] == ids and whole["total"] == 5
    assert api.get("/api/roadmaps?offset=-1", as_=exec_user).status == 400


def test_a_roadmap_holds_at_most_500_items(api, db, exec_user):
    from chalicelib.areas.roadmaps.models import RoadmapItem

    roadmap = api.post("/api/roadmaps", as_=exec_user, json={"name": "Big"}).json["roadmap"]
    db.add_all([RoadmapItem(roadmap_id=roadmap["id"], title=f"i{n}", position=n) for n in range(499)])
    db.flush()
    path = f"/api/roadmaps/{roadmap['id']}/items"
    assert api.post(path, as_=exec_user, json={"title": "last", "position": 499}).status == 201
    refused = api.post(path, as_=exec_user, json={"title": "one too many"})
    assert refused.status == 409 and "500" in refused.json["error"]
    detail = api.get(f"/api/roadmaps/{roadmap['id']}", as_=exec_user).json
    assert len(detail["items"]) == 500 and detail["roadmap"]["item_count"] == 500



def test_a_colour_is_a_hex_colour_and_nothing_after_it(api, db, exec_user):
    """`$` of a regular expression matches before a final newline: "#fff\\n" was stored."""
    roadmap = api.post("/api/roadmaps", as_=exec_user, json={"name": "Colours"}).json["roadmap"]
    for colour in ("#fff\n", "#ffff", "blue", 3):
        answer = api.post(f"/api/roadmaps/{roadmap['id']}/items", as_=exec_user, json={"title": "I", "color": colour})
        assert answer.status == 400 and answer.json["details"][0]["field"] == "color", (colour, answer)
    for colour, kept in (("#ABC", "#abc"), ("", None), (None, None)):
        answer = api.post(f"/api/roadmaps/{roadmap['id']}/items", as_=exec_user, json={"title": "I", "color": colour})
        assert answer.status == 201 and answer.json["item"]["color"] == kept, (colour, answer)


def test_deleting_a_roadmap_unlinks_its_tasks(api, db, exec_user):
    """docs/decisions/roadmaps.md: deleting a roadmap clears `roadmap_item_id` on the tasks of its items."""
    roadmap = api.post("/api/roadmaps", as_=exec_user, json={"name": "Gone"}).json["roadmap"]
    item = api.post(f"/api/roadmaps/{roadmap['id']}/items", as_=exec_user, json={"title": "i"}).json["item"]
    linked = make_task(db, roadmap_item_id=item["id"])
    assert api.delete(f"/api/roadmaps/{roadmap['id']}", as_=exec_user).json == {"ok": True}
    db.refresh(linked)
    assert linked.roadmap_item_id is None


def test_item_writes_need_the_roadmap_in_scope(api, db, exec_user):
    """Item writes take roadmaps:update (delete included) on a roadmap the caller can see; 404 otherwise."""
    squad = make_squad(db)
    employee = make_user(db, access_level="employee", squad_id=squad.id)
    stranger = make_user(db, access_level="employee", squad_id=squad.id)
    manager = make_user(db, access_level="manager", squad_id=make_squad(db).id)
    hidden = api.post("/api/roadmaps", as_=exec_user, json={
        "name": "Hidden", "project_id": make_project(db, owner_id=stranger.id).id}).json["roadmap"]
    hidden_item = api.post(f"/api/roadmaps/{hidden['id']}/items", as_=exec_user, json={"title": "i"}).json["item"]
    path = f"/api/roadmaps/{hidden['id']}/items"
    assert api.post(path, as_=manager, json={"title": "x"}).status == 404
    assert api.put(f"{path}/{hidden_item['id']}", as_=manager, json={"title": "x"}).status == 404
    assert api.delete(f"{path}/{hidden_item['id']}", as_=manager).status == 404
    own = api.post("/api/roadmaps", as_=manager, json={
        "name": "Own", "project_id": make_project(db, owner_id=manager.id, members=[employee]).id}).json["roadmap"]
    path = f"/api/roadmaps/{own['id']}/items"
    item = api.post(path, as_=manager, json={"title": "i"}).json["item"]
    assert api.post(path, as_=employee, json={"title": "x"}).status == 403  # roadmaps:view only
    assert api.delete(f"{path}/{item['id']}", as_=employee).status == 403
    assert api.delete(f"{path}/{item['id']}", as_=manager).json == {"ok": True}


def test_a_deleted_goal_leaves_the_item_without_goal_title(api, db, exec_user):
    project = make_project(db)
    launch = goal(db, project)
    roadmap = api.post("/api/roadmaps", as_=exec_user, json={"name": "R", "project_id": project.id}).json["roadmap"]
    api.post(f"/api/roadmaps/{roadmap['id']}/items", as_=exec_user, json={"title": "i", "goal_id": launch.id})
    assert api.delete(f"/api/projects/{project.id}/goals/{launch.id}", as_=exec_user).json == {"ok": True}
    item = api.get(f"/api/roadmaps/{roadmap['id']}", as_=exec_user).json["items"][0]
    assert item["goal_title"] is None


def test_the_portal_lists_items_in_the_staff_order(api, db, exec_user, set_env):
    """docs/decisions/roadmaps.md: items by position, then created_at; the portal's roadmap ordered equal
    positions by id instead."""
    from datetime import datetime, timezone

    from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
    from tests.areas.portal.conftest import TOKEN, Portal, make_client

    set_env(PORTAL_SERVICE_TOKEN=TOKEN)
    client = make_client(db)
    project = make_project(db, company_id=client.id)
    roadmap = Roadmap(name="Plan", project_id=project.id)
    db.add(roadmap)
    db.flush()
    db.add_all([RoadmapItem(id=prefix * 8 + "-0000-4000-8000-000000000000", roadmap_id=roadmap.id, title=prefix,
                            position=0, created_at=datetime(2026, 1, 1 + n, tzinfo=timezone.utc))
                for n, prefix in enumerate("cba")])  # created c, b, a; their ids sort the other way
    db.flush()
    staff = [i["title"] for i in api.get(f"/api/roadmaps/{roadmap.id}", as_=exec_user).json["items"]]
    portal = [i["title"] for i in Portal(api).get(f"/projects/{project.id}/roadmap", client).json["items"]]
    assert staff == ["c", "b", "a"] and portal == staff
