"""Action items at /api/action-items (tool action-centre: view reads, update writes)."""
from datetime import timedelta

import pytest

from chalicelib.core.timeutil import org_today
from tests.areas.action_items.factories import make_action_item
from tests.areas.deals.factories import make_contact
from tests.areas.projects.factories import make_project
from tests.factories import grant, make_user


@pytest.mark.smoke
def test_create_patch_complete_delete(api, db, employee):
    today = org_today()
    contact = make_contact(db)
    created = api.post("/api/action-items", as_=employee, json={
        "title": " Call back ", "contact_id": contact.id, "due_date": today.isoformat(), "notes": "n"})
    assert created.status == 201, created
    item = created.json["action_item"]
    assert item["title"] == "Call back" and item["assigned_to"] == employee.id and item["created_by"] == employee.id
    assert item["source_module"] == "manual" and item["urgency"] == "today" and item["is_completed"] == 0
    assert item["assigned_user_name"] == employee.name
    assert (item["contact_first_name"], item["contact_last_name"]) == (contact.first_name, contact.last_name)
    path = f"/api/action-items/{item['id']}"

    overdue = api.patch(path, as_=employee, json={"due_date": (today - timedelta(days=2)).isoformat()})
    assert overdue.status == 200 and overdue.json["action_item"]["urgency"] == "overdue"
    later = api.patch(path, as_=employee, json={"due_date": (today + timedelta(days=30)).isoformat()})
    assert later.json["action_item"]["urgency"] == "normal"
    given = api.patch(path, as_=employee, json={"due_date": (today - timedelta(days=1)).isoformat(),
                                                "urgency": "this_week"})
    assert given.json["action_item"]["urgency"] == "this_week"  # urgency given: kept
    assert api.patch(path, as_=employee, json={"title": "Renamed"}).json["action_item"]["urgency"] == "this_week"
    assert api.patch(path, as_=employee, json={"urgency": "soon"}).status == 400
    assert api.patch(path, as_=employee, json={"title": None}).status == 400

    assert api.post(f"{path}/complete", as_=employee).json == {"ok": True}
    assert api.get("/api/action-items", as_=employee).json["action_items"] == []
    done = api.get("/api/action-items?is_completed=1", as_=employee).json["action_items"]
    assert [(i["id"], i["is_completed"]) for i in done] == [(item["id"], 1)]
    assert api.delete(path, as_=employee).json == {"ok": True}
    assert api.patch(path, as_=employee, json={"title": "x"}).status == 404


def test_create_checks_references(api, db, employee):
    hidden = make_project(db)
    inactive = make_user(db, is_active=False)
    for body, field in (({"title": "x", "project_id": hidden.id}, "project_id"),
                        ({"title": "x", "assigned_to": inactive.id}, "assigned_to"),
                        ({"title": "x", "assigned_to": "nobody"}, "assigned_to"),
                        ({"title": "x", "company_id": "nope"}, "company_id"),
                        ({"title": "x", "contact_id": "nope"}, "contact_id"),
                        ({"title": "x", "deal_id": "nope"}, "deal_id")):
        refused = api.post("/api/action-items", as_=employee, json=body)
        assert refused.status == 400 and refused.json["details"][0]["field"] == field, (body, refused)
    assert api.post("/api/action-items", as_=employee, json={"title": "  "}).status == 400
    assert api.post("/api/action-items", as_=employee, json={"due_date": "2026-01-01"}).status == 400
    assert api.post("/api/action-items", as_=employee, json={"title": "x", "due_date": "2026-01-01T00:00"}).status == 400


def test_scoping_per_access_level(api, db, employee):
    other = make_user(db, access_level="employee")
    manager = make_user(db, access_level="manager")
    head = make_user(db, access_level="head")
    executive = make_user(db, access_level="executive")
    mine = make_action_item(db, assigned_to=employee.id)
    theirs = make_action_item(db, assigned_to=other.id, created_by=employee.id)
    assert [i["id"] for i in api.get("/api/action-items", as_=employee).json["action_items"]] == [mine.id]
    assert api.get("/api/action-items", as_=manager).json["action_items"] == []
    for user in (employee, manager):
        assert api.patch(f"/api/action-items/{theirs.id}", as_=user, json={"title": "x"}).status == 404
        assert api.post(f"/api/action-items/{theirs.id}/complete", as_=user).status == 404
        assert api.get(f"/api/action-items?assigned_to={other.id}", as_=user).status == 403
    assert api.delete(f"/api/action-items/{theirs.id}", as_=manager).status == 404
    for user in (head, executive):
        assert {i["id"] for i in api.get("/api/action-items", as_=user).json["action_items"]} == {mine.id, theirs.id}
        only = api.get(f"/api/action-items?assigned_to={other.id}", as_=user).json["action_items"]
        assert [i["id"] for i in only] == [theirs.id]
    assert api.get("/api/action-items/counts", as_=employee).json["total"] == 1
    assert api.get("/api/action-items/counts", as_=executive).json["total"] == 2
    # the creator deletes their own manual item, assigned to someone else (document 1; it was a 404 here)
    assert api.delete(f"/api/action-items/{theirs.id}", as_=employee).json == {"ok": True}


def test_filters_order_and_paging(api, db, exec_user):
    today = org_today()
    project = make_project(db)
    normal = make_action_item(db, assigned_to=exec_user.id, title="normal")
    far = make_action_item(db, assigned_to=exec_user.id, due_date=today + timedelta(days=40), title="far",
                           source_module="deals", source_type="stale_deal")
    late = make_action_item(db, assigned_to=exec_user.id, due_date=today - timedelta(days=3), title="late",
                            project_id=project.id)
    later_late = make_action_item(db, assigned_to=exec_user.id, due_date=today - timedelta(days=1), title="late2",
                                  source_module="chat")
    due_today = make_action_item(db, assigned_to=exec_user.id, due_date=today, title="today",
                                 source_module="mail", company_id="c1")
    make_action_item(db, assigned_to=exec_user.id, is_completed=True, title="done")
    listed = api.get("/api/action-items", as_=exec_user).json
    assert [i["title"] for i in listed["action_items"]] == ["late", "late2", "today", "far", "normal"]
    assert (listed["total"], listed["page"], listed["limit"]) == (5, 1, 50)
    second = api.get("/api/action-items?limit=2&page=2", as_=exec_user).json
    assert [i["id"] for i in second["action_items"]] == [due_today.id, far.id] and second["total"] == 5

    def ids(query):
        answer = api.get(f"/api/action-items?{query}", as_=exec_user)
        assert answer.status == 200, answer
        return {i["id"] for i in answer.json["action_items"]}

    assert ids("source_module=chat,mail") == {later_late.id, due_today.id}
    assert ids("source_module= chat,,mail ,") == {later_late.id, due_today.id}  # blanks and spaces dropped
    for query in ("source_module=" + ",".join(f"m{n}" for n in range(51)), "source_type=" + "t" * 51):
        refused = api.get(f"/api/action-items?{query}", as_=exec_user)
        assert refused.status == 400 and refused.json["details"][0]["field"] == query.split("=")[0], refused
    assert ids("source_type=stale_deal") == {far.id}
    assert ids("urgency=overdue") == {late.id, later_late.id}
    assert ids(f"project_id={project.id}") == {late.id}
    assert ids("company_id=c1") == {due_today.id}
    assert normal.id in ids("is_completed=0")
    for bad in ("limit=101", "limit=0", "page=0", "urgency=soon", "is_completed=2"):
        assert api.get(f"/api/action-items?{bad}", as_=exec_user).status == 400, bad

    counts = api.get("/api/action-items/counts", as_=exec_user).json
    assert counts == {"overdue": 2, "today": 1, "this_week": 0, "total": 5,
                      "by_module": {"manual": 2, "deals": 1, "chat": 1, "mail": 1}}


@pytest.mark.parametrize("now, expected", [("2026-11-25T10:00", "this_week"),  # a Wednesday: Thursday is this week
                                           ("2026-11-29T10:00", "normal")])    # a Sunday: Monday is next week
def test_urgency_this_week(api, db, employee, org_clock, now, expected):
    org_clock(now)
    due = org_today() + timedelta(days=1)
    made = api.post("/api/action-items", as_=employee, json={"title": "x", "due_date": due.isoformat()})
    assert made.json["action_item"]["urgency"] == expected


def test_delete_rules(api, db, employee):
    creator = make_user(db, access_level="employee")
    manager_of_tool = make_user(db, access_level="employee")
    grant(db, manager_of_tool, "action-centre", "manage")
    automatic = make_action_item(db, assigned_to=employee.id, source_module="relationships", created_by=employee.id)
    for source in ("relationships", "meeting_notes", "scheduled"):
        item = make_action_item(db, assigned_to=employee.id, source_module=source, created_by=employee.id)
        assert api.delete(f"/api/action-items/{item.id}", as_=employee).status == 400
    others = make_action_item(db, assigned_to=employee.id, created_by=creator.id)
    assert api.delete(f"/api/action-items/{others.id}", as_=employee).status == 403
    managed = make_action_item(db, assigned_to=manager_of_tool.id, created_by=creator.id)
    assert api.delete(f"/api/action-items/{managed.id}", as_=manager_of_tool).json == {"ok": True}
    assert api.post(f"/api/action-items/{automatic.id}/complete", as_=employee).json == {"ok": True}
    db.refresh(automatic)
    assert automatic.is_completed is True


def test_the_creator_and_manage_delete_items_assigned_to_others(api, db, employee):
    """Document 1: "the creator may delete own manual items; manage permission may delete any manual item". The
    scope of reads (items assigned to the caller, below head) kept both out: a manager who made an item for a
    report got 404 deleting it (conformance audit). Anyone else out of scope still gets 404, in scope 403."""
    manager = make_user(db, access_level="manager")
    report = make_user(db, access_level="employee", manager_id=manager.id)
    made = api.post("/api/action-items", as_=manager, json={"title": "Chase the client", "assigned_to": report.id})
    assert made.status == 201, made
    item_id = made.json["action_item"]["id"]
    # reads stay as they were: the manager's list holds the items assigned to them, not this one (there is no
    # single-item read; the list is the read)
    assert item_id not in [i["id"] for i in api.get("/api/action-items", as_=manager).json["action_items"]]
    assert item_id in [i["id"] for i in api.get("/api/action-items", as_=report).json["action_items"]]
    assert api.delete(f"/api/action-items/{item_id}", as_=employee).status == 404     # neither creator nor manage
    assert api.delete(f"/api/action-items/{item_id}", as_=report).status == 403       # the assignee sees it
    deleted = api.delete(f"/api/action-items/{item_id}", as_=manager)
    assert (deleted.status, deleted.json) == (200, {"ok": True})
    holder = make_user(db, access_level="employee")
    grant(db, holder, "action-centre", "manage")
    someone_elses = make_action_item(db, assigned_to=report.id, created_by=manager.id)
    assert api.delete(f"/api/action-items/{someone_elses.id}", as_=holder).json == {"ok": True}
    assert api.delete(f"/api/action-items/{someone_elses.id}", as_=holder).status == 404  # gone


def test_preferences(api, db, employee):
    assert api.get("/api/action-items/preferences", as_=employee).json == {"preferences": []}
    body = {"preferences": [{"source_module": "chat", "is_visible": False, "show_in_feed": 1, "show_work_board": 0},
                            {"source_module": "deals"}]}
    assert api.put("/api/action-items/preferences", as_=employee, json=body).json == {"ok": True}
    prefs = api.get("/api/action-items/preferences", as_=employee).json["preferences"]
    assert prefs == [{"source_module": "chat", "is_visible": 0, "show_in_feed": 1, "show_work_board": 0},
                     {"source_module": "deals", "is_visible": 1, "show_in_feed": 1, "show_work_board": 1}]
    other = make_user(db, access_level="employee")
    assert api.get("/api/action-items/preferences", as_=other).json == {"preferences": []}
    for bad in ({"preferences": [{"source_module": "chat"}, {"source_module": "chat"}]},
                {"preferences": [{"source_module": ""}]}, {"preferences": [{"source_module": "x", "is_visible": "yes"}]},
                {"preferences": None}, {}):
        assert api.put("/api/action-items/preferences", as_=employee, json=bad).status == 400, bad
    assert api.put("/api/action-items/preferences", as_=employee, json={"preferences": []}).json == {"ok": True}
    assert api.get("/api/action-items/preferences", as_=employee).json == {"preferences": []}


def test_permission_needed(api, db, employee):
    grant(db, employee, "action-centre", "none")
    assert api.get("/api/action-items", as_=employee).status == 403
    assert api.post("/api/action-items", as_=employee, json={"title": "x"}).status == 403


def test_list_costs_constant_statements(api, db, exec_user, count_queries):
    def cost(n):
        contact = make_contact(db)
        for _ in range(n):
            make_action_item(db, assigned_to=make_user(db).id, contact_id=contact.id)
        with count_queries() as counter:
            answer = api.get("/api/action-items?limit=100", as_=exec_user)
        assert answer.status == 200
        return counter.count

    few = cost(5)
    full = cost(95)  # 100 items: the page is full, so its total is counted (core.query.record_page)
    many = cost(100)
    assert full == many
    # the caller; the page; its total with the contacts' names (one statement on Postgres, one a set on SQLite)
    assert full == (3 if db.get_bind().dialect.name == "postgresql" else 4)
    assert few == full - (0 if db.get_bind().dialect.name == "postgresql" else 1)  # a short page counts nothing


def _stale_items(db, user):
    """Items whose stored urgency is yesterday's view of their due date (the day has turned since)."""
    today = org_today()
    return [make_action_item(db, assigned_to=user.id, due_date=today, urgency="this_week"),
            make_action_item(db, assigned_to=user.id, due_date=today - timedelta(days=1), urgency="today"),
            make_action_item(db, assigned_to=user.id, due_date=today + timedelta(days=60), urgency="normal")]


def test_urgency_job_through_the_scheduled_handler(api, db, client, employee):
    due_today, overdue, unchanged = _stale_items(db, employee)
    done = make_action_item(db, assigned_to=employee.id, due_date=org_today(), urgency="normal", is_completed=True)
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    first = client.lambda_.invoke("action_items_urgency", event).payload
    assert first["updated"] == 2
    assert client.lambda_.invoke("action_items_urgency", event).payload["updated"] == 0
    for item in (due_today, overdue, unchanged, done):
        db.refresh(item)
    assert (due_today.urgency, overdue.urgency, unchanged.urgency, done.urgency) == ("today", "overdue", "normal",
                                                                                  "normal")
    counts = api.get("/api/action-items/counts", as_=employee).json
    assert (counts["today"], counts["overdue"]) == (1, 1)


def test_urgency_job_through_the_cli(db, employee, capsys):
    import json

    from chalicelib import cli

    due_today, overdue, _ = _stale_items(db, employee)
    assert cli.main(["job", "action-items-urgency"]) == 0
    assert json.loads(capsys.readouterr().out)["updated"] == 2
    assert cli.main(["job", "action-items-urgency"]) == 0
    assert json.loads(capsys.readouterr().out)["updated"] == 0
    db.refresh(due_today)
    db.refresh(overdue)
    assert (due_today.urgency, overdue.urgency) == ("today", "overdue")


def test_assignment_notifies_the_assignee(api, db, exec_user, employee):
    from sqlalchemy import select

    from chalicelib.core.notify import Notification

    def sent(user):
        return db.scalars(select(Notification).where(Notification.user_id == user.id,
                                                     Notification.type == "action_item_assigned")).all()

    other = make_user(db, access_level="employee")
    own = api.post("/api/action-items", as_=employee, json={"title": "Mine"}).json["action_item"]
    assert sent(employee) == []
    given = api.post("/api/action-items", as_=exec_user, json={"title": "Yours", "assigned_to": employee.id})
    (notice,) = sent(employee)
    assert notice.resource_id == given.json["action_item"]["id"] and "Yours" in notice.title
    api.patch(f"/api/action-items/{own['id']}", as_=employee, json={"assigned_to": other.id})
    assert [n.resource_id for n in sent(other)] == [own["id"]]
    assert sent(exec_user) == []


def test_view_reads_and_update_writes(api, db, employee):
    """Document 1, Action items: view for the list, counts, preferences and centre; update for the rest."""
    item = make_action_item(db, assigned_to=employee.id, created_by=employee.id)
    patched = api.patch(f"/api/action-items/{item.id}", as_=employee, json={"description": "d", "notes": "n"})
    assert (patched.json["action_item"]["description"], patched.json["action_item"]["notes"]) == ("d", "n")
    grant(db, employee, "action-centre", "view")
    for path in ("/api/action-items", "/api/action-items/counts", "/api/action-items/preferences",
                 "/api/action-items/centre"):
        assert api.get(path, as_=employee).status == 200, path
    path = f"/api/action-items/{item.id}"
    for method, url, body in (("post", "/api/action-items", {"title": "x"}), ("patch", path, {"title": "x"}),
                              ("post", f"{path}/complete", None), ("delete", path, None),
                              ("put", "/api/action-items/preferences", {"preferences": []})):
        answer = getattr(api, method)(url, as_=employee, **({"json": body} if body is not None else {}))
        assert answer.status == 403, (method, url, answer)


def test_an_assignee_deactivated_since_may_be_sent_back_unchanged(api, db, exec_user):
    """A PATCH that sends back the stored assignee, deactivated since, is not refused for it (other areas check a
    reference only when it changes); naming another deactivated user still is a 400."""
    gone = make_user(db, access_level="employee")
    item = api.post("/api/action-items", as_=exec_user, json={"title": "Chase", "assigned_to": gone.id}).json
    path = f"/api/action-items/{item['action_item']['id']}"
    gone.is_active = False
    db.flush()
    kept = api.patch(path, as_=exec_user, json={"title": "Chase up", "assigned_to": gone.id})
    assert kept.status == 200, kept
    assert (kept.json["action_item"]["title"], kept.json["action_item"]["assigned_to"]) == ("Chase up", gone.id)
    other = make_user(db, access_level="employee", is_active=False)
    refused = api.patch(path, as_=exec_user, json={"assigned_to": other.id})
    assert refused.status == 400 and refused.json["details"][0]["field"] == "assigned_to"
