"""Time entries at /api/time-entries (tool timesheets): scoping, rules and the approval flow."""
from datetime import date

import pytest

from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.areas.timesheets.factories import make_entry
from tests.factories import grant, make_squad, make_user


@pytest.fixture
def org(db):
    """A manager with a squad member and a direct report in another squad, an outsider, a head, an executive."""
    manager = make_user(db, access_level="manager", name="Mia Manager")
    squad = make_squad(db, manager_id=manager.id)
    elsewhere = make_squad(db)
    member = make_user(db, name="Sam Member", squad_id=squad.id)
    report = make_user(db, name="Rita Report", squad_id=elsewhere.id, manager_id=manager.id)
    outsider = make_user(db, name="Otto Outsider", squad_id=elsewhere.id)
    lead = make_user(db, access_level="lead", squad_id=squad.id)
    head = make_user(db, access_level="head", name="Hana Head")
    executive = make_user(db, access_level="executive", name="Ed Exec")
    return type("Org", (), dict(manager=manager, member=member, report=report, outsider=outsider, lead=lead,
                                head=head, executive=executive))


@pytest.mark.smoke
def test_create_own_entry_and_read_it(api, db, org):
    from tests.areas.budgets.factories import make_budget, make_line_item

    project, task = make_project(db, members=[org.member]), make_task(db, assignee_id=org.member.id)
    budget = make_budget(db, resource_id=project.id)
    line = make_line_item(db, budget)
    created = api.post("/api/time-entries", as_=org.member, json={
        "date": "2026-03-02", "hours": 7.5, "project_id": project.id, "task_id": task.id, "budget_id": budget.id,
        "line_item_id": line.id, "billable": False, "description": "Build", "status": "approved_ignored_below"})
    assert created.status == 400  # approved and rejected come only from the approve/reject actions
    created = api.post("/api/time-entries", as_=org.member, json={
        "date": "2026-03-02", "hours": 7.5, "project_id": project.id, "task_id": task.id, "budget_id": budget.id,
        "line_item_id": line.id, "billable": False, "description": "Build"})
    assert created.status == 201, created
    entry = created.json["time_entry"]
    assert entry["user_id"] == org.member.id and entry["user_name"] == "Sam Member"
    assert entry["hours"] == 7.5 and entry["billable"] == 0 and entry["status"] == "draft"
    assert entry["date"] == "2026-03-02" and entry["approved_by"] is None
    assert api.get(f"/api/time-entries/{entry['id']}", as_=org.member).json == {"time_entry": entry}
    default = api.post("/api/time-entries", as_=org.member, json={"date": "2026-03-03", "hours": 1}).json
    assert default["time_entry"]["billable"] == 1 and default["time_entry"]["submitted_at"] is None
    submitted = api.post("/api/time-entries", as_=org.member,
                         json={"date": "2026-03-03", "hours": 1, "status": "submitted"}).json["time_entry"]
    assert submitted["status"] == "submitted" and submitted["submitted_at"].endswith("Z")


def test_validation(api, org):
    cases = [
        ({"hours": 1}, "date"),
        ({"date": "2026-02-30", "hours": 1}, "date"),
        ({"date": "yesterday", "hours": 1}, "date"),
        ({"date": "2026-03-02"}, "hours"),
        ({"date": "2026-03-02", "hours": 0}, "hours"),
        ({"date": "2026-03-02", "hours": -2}, "hours"),
        ({"date": "2026-03-02", "hours": 24.01}, "hours"),
        ({"date": "2026-03-02", "hours": 1.333}, "hours"),
        ({"date": "2026-03-02", "hours": 1, "billable": "yes"}, "billable"),
        ({"date": "2026-03-02", "hours": 1, "status": "approved"}, "status"),
        ({"date": "2026-03-02", "hours": 1, "status": "rejected"}, "status"),
    ]
    for body, field in cases:
        response = api.post("/api/time-entries", as_=org.member, json=body)
        assert response.status == 400, body
        assert response.json["details"][0]["field"] == field, body
    assert api.post("/api/time-entries", as_=org.member, json={"date": "2026-03-02", "hours": 24}).status == 201
    bad_range = api.get("/api/time-entries?date_from=2026-03-05&date_to=2026-03-01", as_=org.member)
    assert bad_range.status == 400
    assert api.get("/api/time-entries?status=paid", as_=org.member).status == 400
    assert api.get("/api/time-entries?date_from=soon", as_=org.member).status == 400


def test_hours_must_be_a_json_number(api, db, org):
    # decisions.md section 4: a wrong type is 400; a string is not a number
    for value in ("2.5", "2", True):
        response = api.post("/api/time-entries", as_=org.member, json={"date": "2026-03-02", "hours": value})
        assert response.status == 400, (value, response)
        assert response.json["details"][0]["field"] == "hours"
    entry = make_entry(db, org.member)
    assert api.put(f"/api/time-entries/{entry.id}", as_=org.member, json={"hours": "3"}).status == 400
    assert api.put(f"/api/time-entries/{entry.id}", as_=org.member, json={"hours": 3}).json["time_entry"]["hours"] == 3


def test_create_for_someone_else(api, db, org):
    body = {"date": "2026-03-02", "hours": 3}
    # employees and leads: only for themselves
    assert api.post("/api/time-entries", as_=org.member, json={**body, "user_id": org.report.id}).status == 403
    assert api.post("/api/time-entries", as_=org.lead, json={**body, "user_id": org.member.id}).status == 403
    # managers: for their team (squad members and direct reports), not for others
    for user in (org.member, org.report):
        response = api.post("/api/time-entries", as_=org.manager, json={**body, "user_id": user.id})
        assert response.status == 201 and response.json["time_entry"]["user_id"] == user.id
        assert response.json["time_entry"]["created_by"] == org.manager.id
    assert api.post("/api/time-entries", as_=org.manager, json={**body, "user_id": org.outsider.id}).status == 403
    # head and executive: for anyone who exists
    assert api.post("/api/time-entries", as_=org.head, json={**body, "user_id": org.outsider.id}).status == 201
    missing = api.post("/api/time-entries", as_=org.executive, json={**body, "user_id": "nobody"})
    assert missing.status == 400 and "user_id" in missing.json["error"]


def test_list_scoping_per_access_level(api, db, org):
    entries = {name: make_entry(db, getattr(org, name)).id
               for name in ("member", "report", "outsider", "lead", "manager", "head")}

    def visible(user):
        response = api.get("/api/time-entries", as_=user)
        assert response.status == 200
        return {e["id"] for e in response.json["time_entries"]}

    assert visible(org.member) == {entries["member"]}
    assert visible(org.lead) == {entries["lead"]}
    assert visible(org.manager) == {entries[n] for n in ("member", "report", "lead", "manager")}
    assert visible(org.head) == set(entries.values())
    assert visible(org.executive) == set(entries.values())
    # asking for someone else's entries does not widen the scope
    assert api.get(f"/api/time-entries?user_id={org.outsider.id}", as_=org.manager).json["time_entries"] == []
    # detail: outside the scope is 404
    assert api.get(f"/api/time-entries/{entries['outsider']}", as_=org.manager).status == 404
    assert api.get(f"/api/time-entries/{entries['report']}", as_=org.member).status == 404
    assert api.get(f"/api/time-entries/{entries['report']}", as_=org.manager).status == 200
    assert api.get("/api/time-entries/missing", as_=org.executive).status == 404


def test_list_filters(api, db, org):
    # real tasks: task_id is a key to tasks (migration timesheets_0004, session 31)
    t1, t2 = make_task(db, title="T1"), make_task(db, title="T2")
    a = make_entry(db, org.member, project_id="p1", task_id=t1.id, budget_id="b1", date=date(2026, 3, 1))
    b = make_entry(db, org.member, project_id="p1", task_id=t2.id, date=date(2026, 3, 5), status="submitted")
    c = make_entry(db, org.report, project_id="p2", budget_id="b1", date=date(2026, 3, 9), status="approved")

    def ids(query):
        response = api.get(f"/api/time-entries{query}", as_=org.executive)
        assert response.status == 200, response
        return [e["id"] for e in response.json["time_entries"]]

    assert ids("") == [c.id, b.id, a.id]  # newest date first
    assert ids(f"?user_id={org.member.id}") == [b.id, a.id]
    assert ids("?project_id=p1") == [b.id, a.id]
    assert ids(f"?task_id={t2.id}") == [b.id]
    assert ids("?budget_id=b1") == [c.id, a.id]
    assert ids("?status=approved") == [c.id]
    assert ids("?date_from=2026-03-05") == [c.id, b.id]
    assert ids("?date_to=2026-03-05") == [b.id, a.id]
    assert ids("?date_from=2026-03-02&date_to=2026-03-08") == [b.id]


def test_list_query_count_is_constant(api, db, org, count_queries):
    for _ in range(5):
        make_entry(db, org.member)
    with count_queries() as few:
        assert len(api.get("/api/time-entries", as_=org.manager).json["time_entries"]) == 5
    for _ in range(40):
        make_entry(db, org.report, approved_by=org.head.id, status="approved")
    with count_queries() as many:
        body = api.get("/api/time-entries", as_=org.manager).json["time_entries"]
    assert len(body) == 45 and {e["approver_name"] for e in body if e["status"] == "approved"} == {"Hana Head"}
    assert few.count == many.count


def test_update_rules(api, db, org):
    own = make_entry(db, org.member)
    response = api.put(f"/api/time-entries/{own.id}", as_=org.member,
                       json={"hours": 4, "billable": False, "description": "x", "user_id": org.member.id})
    assert response.status == 200
    body = response.json["time_entry"]
    assert body["hours"] == 4 and body["billable"] == 0 and body["user_id"] == org.member.id  # owner is fixed
    # another owner is refused (session 28: it was dropped with a 200; test_owner_fixed_s28.py)
    assert api.put(f"/api/time-entries/{own.id}", as_=org.member, json={"user_id": org.report.id}).status == 400
    # a manager edits a team member's draft; not someone outside the team
    assert api.put(f"/api/time-entries/{own.id}", as_=org.manager, json={"hours": 5}).status == 200
    outside = make_entry(db, org.outsider)
    assert api.put(f"/api/time-entries/{outside.id}", as_=org.manager, json={"hours": 5}).status == 404
    assert api.put(f"/api/time-entries/{outside.id}", as_=org.member, json={"hours": 5}).status == 404
    # only while draft or rejected
    for status in ("submitted", "approved"):
        locked = make_entry(db, org.member, status=status)
        response = api.put(f"/api/time-entries/{locked.id}", as_=org.member, json={"hours": 1})
        assert response.status == 409 and status in response.json["error"]
        assert api.put(f"/api/time-entries/{locked.id}", as_=org.executive, json={"hours": 1}).status == 409
    rejected = make_entry(db, org.member, status="rejected")
    resubmitted = api.put(f"/api/time-entries/{rejected.id}", as_=org.member, json={"hours": 1, "status": "submitted"})
    assert resubmitted.status == 200 and resubmitted.json["time_entry"]["status"] == "submitted"
    assert resubmitted.json["time_entry"]["submitted_at"].endswith("Z")
    assert api.put(f"/api/time-entries/{own.id}", as_=org.member, json={"status": "approved"}).status == 400
    assert api.put(f"/api/time-entries/{own.id}", as_=org.member, json={"hours": 30}).status == 400
    assert api.put(f"/api/time-entries/{own.id}", as_=org.member, json={"date": None}).status == 400
    assert api.put("/api/time-entries/missing", as_=org.member, json={"hours": 1}).status == 404


def test_delete_rules(api, db, org):
    draft = make_entry(db, org.member)
    assert api.delete(f"/api/time-entries/{draft.id}", as_=org.member).json == {"ok": True}
    assert api.get(f"/api/time-entries/{draft.id}", as_=org.member).status == 404
    submitted = make_entry(db, org.member, status="submitted")
    assert api.delete(f"/api/time-entries/{submitted.id}", as_=org.member).status == 409
    assert api.delete(f"/api/time-entries/{submitted.id}", as_=org.manager).status == 409  # update only
    assert api.delete(f"/api/time-entries/{submitted.id}", as_=org.head).status == 200  # timesheets:manage
    outside = make_entry(db, org.outsider)
    assert api.delete(f"/api/time-entries/{outside.id}", as_=org.manager).status == 404
    team = make_entry(db, org.report, status="rejected")
    assert api.delete(f"/api/time-entries/{team.id}", as_=org.manager).status == 200
    assert api.delete("/api/time-entries/missing", as_=org.head).status == 404


def test_permissions(api, db, org):
    entry = make_entry(db, org.member)
    assert api.get("/api/time-entries").status == 401
    viewer = make_user(db)
    grant(db, viewer, "timesheets", "view")
    assert api.get("/api/time-entries", as_=viewer).status == 200
    assert api.post("/api/time-entries", as_=viewer, json={"date": "2026-03-02", "hours": 1}).status == 403
    none = make_user(db)
    grant(db, none, "timesheets", "none")
    assert api.get("/api/time-entries", as_=none).status == 403
    grant(db, org.member, "timesheets", "view")
    assert api.put(f"/api/time-entries/{entry.id}", as_=org.member, json={"hours": 1}).status == 403
    assert api.post(f"/api/time-entries/{entry.id}/submit", as_=org.member).status == 403
    assert api.delete(f"/api/time-entries/{entry.id}", as_=org.member).status == 403


def test_submit_approve_flow(api, db, org):
    entry = api.post("/api/time-entries", as_=org.member, json={"date": "2026-03-02", "hours": 6}).json["time_entry"]
    path = f"/api/time-entries/{entry['id']}"
    # approving a draft: 409
    assert api.post(f"{path}/approve", as_=org.head).status == 409
    submitted = api.post(f"{path}/submit", as_=org.member)
    assert submitted.status == 200
    assert submitted.json["time_entry"]["status"] == "submitted" and submitted.json["time_entry"]["submitted_at"]
    assert api.post(f"{path}/submit", as_=org.member).status == 409
    # employees and leads may not approve, even with timesheets:update
    assert api.post(f"{path}/approve", as_=org.member).status == 403
    assert api.post(f"{path}/approve", as_=org.lead).status == 403
    approved = api.post(f"{path}/approve", as_=org.head)
    assert approved.status == 200
    record = approved.json["time_entry"]
    assert record["status"] == "approved" and record["approved_by"] == org.head.id
    assert record["approver_name"] == "Hana Head" and record["approved_at"].endswith("Z")
    assert api.post(f"{path}/approve", as_=org.head).status == 409
    assert api.post(f"{path}/reject", as_=org.head).status == 409
    assert api.put(path, as_=org.member, json={"hours": 1}).status == 409
    assert api.post("/api/time-entries/missing/approve", as_=org.head).status == 404


def test_reject_and_resubmit(api, db, org):
    entry = make_entry(db, org.report, status="submitted")
    path = f"/api/time-entries/{entry.id}"
    rejected = api.post(f"{path}/reject", as_=org.executive, json={"reason": "Wrong project"})
    assert rejected.status == 200
    body = rejected.json["time_entry"]
    assert body["status"] == "rejected" and body["rejected_by"] == org.executive.id
    assert body["rejection_reason"] == "Wrong project" and body["rejected_at"].endswith("Z")
    assert api.post(f"{path}/reject", as_=org.executive).status == 409
    right = make_project(db, members=[org.report])
    assert api.put(path, as_=org.report, json={"project_id": right.id}).status == 200
    assert api.post(f"{path}/submit", as_=org.report).json["time_entry"]["status"] == "submitted"
    approved = api.post(f"{path}/approve", as_=org.executive).json["time_entry"]
    assert approved["status"] == "approved" and approved["rejection_reason"] is None
    assert api.post(f"{path}/reject", as_=org.report).status == 403
    bad = api.post(f"{path}/reject", as_=org.executive, body="[1]", headers={"Content-Type": "application/json"})
    assert bad.status == 400


def test_a_manager_approves_the_teams_time_with_the_default_permissions(api, db, org):
    team = make_entry(db, org.member, status="submitted")
    report = make_entry(db, org.report, status="submitted")
    outside = make_entry(db, org.outsider, status="submitted")
    assert api.post(f"/api/time-entries/{team.id}/approve", as_=org.manager).status == 200
    assert api.post(f"/api/time-entries/{report.id}/reject", as_=org.manager, json={"reason": "x"}).status == 200
    assert api.post(f"/api/time-entries/{outside.id}/approve", as_=org.manager).status == 404
    grant(db, org.manager, "timesheets", "view")
    assert api.post(f"/api/time-entries/{outside.id}/approve", as_=org.manager).status == 403


def test_a_lead_given_manage_may_approve_what_they_see(api, db, org):
    grant(db, org.lead, "timesheets", "manage")
    own = make_entry(db, org.lead, status="submitted")
    assert api.post(f"/api/time-entries/{own.id}/approve", as_=org.lead).status == 403  # never one's own
    other = make_entry(db, org.member, status="submitted")
    assert api.post(f"/api/time-entries/{other.id}/approve", as_=org.lead).status == 404  # out of a lead's scope


def test_approval_rules_for_approvers(api, db, org):
    # a manager given timesheets:manage approves the team's entries, not others' (404) nor their own (403)
    grant(db, org.manager, "timesheets", "manage")
    team = make_entry(db, org.member, status="submitted")
    outside = make_entry(db, org.outsider, status="submitted")
    own = make_entry(db, org.manager, status="submitted")
    assert api.post(f"/api/time-entries/{team.id}/approve", as_=org.manager).status == 200
    assert api.post(f"/api/time-entries/{outside.id}/approve", as_=org.manager).status == 404
    assert api.post(f"/api/time-entries/{own.id}/approve", as_=org.manager).status == 403
    head_own = make_entry(db, org.head, status="submitted")
    assert api.post(f"/api/time-entries/{head_own.id}/reject", as_=org.head).status == 403
    # an executive may approve their own entry (nobody is above them)
    exec_own = make_entry(db, org.executive, status="submitted")
    assert api.post(f"/api/time-entries/{exec_own.id}/approve", as_=org.executive).status == 200


def test_project_hours(db, org, count_queries):
    from chalicelib.areas.timesheets import service

    make_entry(db, org.member, project_id="p1", hours=3, billable=True)
    make_entry(db, org.member, project_id="p1", hours=1.5, billable=False, status="approved")
    make_entry(db, org.report, project_id="p1", hours=8, billable=True, status="submitted")
    make_entry(db, org.report, project_id="p1", hours=4, billable=True, status="rejected")  # left out
    make_entry(db, org.outsider, project_id="p2", hours=2)
    with count_queries() as counter:
        rows, total, billable = service.project_hours(db, "p1")
    assert counter.count == 1 and (total, billable) == (12.5, 11.0)
    assert rows == [
        {"user_id": org.report.id, "name": "Rita Report", "picture": None, "total_hours": 8.0, "billable_hours": 8.0},
        {"user_id": org.member.id, "name": "Sam Member", "picture": None, "total_hours": 4.5, "billable_hours": 3.0},
    ]
    assert all(isinstance(row["total_hours"], float) for row in rows)
    assert service.project_hours(db, "none") == ([], 0.0, 0.0)


def test_profitability_orders_people_by_their_exact_hours(api, db, org):
    # docs/decisions/timesheets.md: most hours first, then name and id, on the exact sum of the entries' hours: Sam's
    # 0.10 + 0.20 is 0.30 like Rita's (a float sum, 0.30000000000000004, listed him first), so name decides
    from decimal import Decimal

    project = make_project(db)
    make_entry(db, org.report, project_id=project.id, hours=Decimal("0.30"), date=date(2026, 3, 2))
    make_entry(db, org.member, project_id=project.id, hours=Decimal("0.10"), date=date(2026, 3, 2))
    make_entry(db, org.member, project_id=project.id, hours=Decimal("0.20"), date=date(2026, 3, 3), billable=False)
    answer = api.get(f"/api/projects/{project.id}/profitability", as_=org.executive)
    assert answer.status == 200, answer
    rows = [(m["name"], m["total_hours"], m["billable_hours"]) for m in answer.json["time_by_member"]]
    assert rows == [("Rita Report", 0.3, 0.3), ("Sam Member", 0.3, 0.1)]


def test_task_and_project_must_be_visible_to_the_caller(api, db, org):
    mine, hidden = make_project(db, members=[org.member]), make_project(db, members=[org.outsider])
    my_task = make_task(db, assignee_id=org.member.id)
    hidden_task = make_task(db, assignee_id=org.outsider.id, created_by=org.outsider.id)
    base = {"date": "2026-03-02", "hours": 1}
    for field, value in (("project_id", hidden.id), ("project_id", "no-such-project"),
                         ("task_id", hidden_task.id), ("task_id", "no-such-task")):
        response = api.post("/api/time-entries", as_=org.member, json={**base, field: value})
        assert response.status == 400, (field, value, response)
        assert [detail["field"] for detail in response.json["details"]] == [field]
    # a manager logging for the team checks the manager's own view; the outsider's project is out of it
    assert api.post("/api/time-entries", as_=org.manager,
                    json={**base, "user_id": org.member.id, "project_id": hidden.id}).status == 400
    assert api.post("/api/time-entries", as_=org.manager,
                    json={**base, "user_id": org.member.id, "project_id": mine.id}).status == 201
    # budget_id must be a budget the caller can see, line_item_id an item of that budget (issue 12)
    from tests.areas.budgets.factories import make_budget, make_line_item

    budget, hidden_budget = make_budget(db, resource_id=mine.id), make_budget(db, resource_id=hidden.id)
    other_line = make_line_item(db, make_budget(db, resource_id=mine.id))
    for extra, field in (({"budget_id": "b-x"}, "budget_id"), ({"budget_id": hidden_budget.id}, "budget_id"),
                         ({"line_item_id": other_line.id}, "line_item_id"),
                         ({"budget_id": budget.id, "line_item_id": other_line.id}, "line_item_id")):
        refused = api.post("/api/time-entries", as_=org.member, json={**base, **extra})
        assert refused.status == 400 and [d["field"] for d in refused.json["details"]] == [field], extra
    created = api.post("/api/time-entries", as_=org.member, json={
        **base, "project_id": mine.id, "task_id": my_task.id, "budget_id": budget.id,
        "line_item_id": make_line_item(db, budget).id})
    assert created.status == 201, created
    path = f"/api/time-entries/{created.json['time_entry']['id']}"
    assert api.put(path, as_=org.member, json={"project_id": hidden.id}).status == 400
    assert api.put(path, as_=org.member, json={"task_id": hidden_task.id}).status == 400
    entry = api.get(path, as_=org.member).json["time_entry"]
    assert entry["project_id"] == mine.id and entry["task_id"] == my_task.id
    assert api.put(path, as_=org.member, json={"project_id": None, "task_id": None}).status == 200
    # a stored reference the editor cannot see is kept when it is sent back unchanged
    stale = make_entry(db, org.member, project_id=hidden.id, task_id=hidden_task.id)
    assert api.put(f"/api/time-entries/{stale.id}", as_=org.member,
                   json={"hours": 2, "project_id": hidden.id, "task_id": hidden_task.id}).status == 200


@pytest.mark.parametrize("value", [1772409600, 1772409600.0, "2026-03-02T00:00:00Z"])
def test_a_date_is_a_calendar_date_only(api, db, org, value):
    response = api.post("/api/time-entries", as_=org.member, json={"date": value, "hours": 1})
    assert response.status == 400, value
    assert response.json["details"][0]["field"] == "date"


def test_date_filters_are_calendar_dates_only(api, db, org):
    for query in ("date_from=2026-03-02T00:00:00", "date_to=1772409600"):
        response = api.get(f"/api/time-entries?{query}", as_=org.executive)
        assert response.status == 400 and response.json["details"][0]["field"] == query.split("=")[0], query


def test_billable_takes_true_false_1_0_only(api, db, org):
    made = api.post("/api/time-entries", as_=org.member, json={"date": "2026-03-02", "hours": 1, "billable": 0})
    assert made.status == 201 and made.json["time_entry"]["billable"] == 0
    for value in ("true", "on", 2):
        refused = api.post("/api/time-entries", as_=org.member, json={"date": "2026-03-02", "hours": 1, "billable": value})
        assert refused.status == 400 and refused.json["details"][0]["field"] == "billable", value


def test_list_pages_with_total(api, db, org):
    ids = [make_entry(db, org.member, date=date(2026, 3, day)).id for day in range(1, 6)]
    ids.reverse()  # newest date first
    seen = []
    for offset in (0, 2, 4):
        body = api.get(f"/api/time-entries?limit=2&offset={offset}", as_=org.member).json
        assert (body["total"], body["limit"], body["offset"]) == (5, 2, offset)
        seen += [e["id"] for e in body["time_entries"]]
    assert seen == ids
    whole = api.get(f"/api/time-entries?user_id={org.member.id}", as_=org.member).json
    assert (whole["total"], whole["limit"], whole["offset"]) == (5, 500, 0)
    assert api.get("/api/time-entries?limit=501", as_=org.member).status == 400


def test_validation_errors_name_their_field(api, db, org):
    # decisions.md section 4: a validation error adds details [{field, message}] naming the field
    missing = api.post("/api/time-entries", as_=org.executive,
                       json={"date": "2026-03-02", "hours": 1, "user_id": "nobody"})
    assert missing.status == 400 and [d["field"] for d in missing.json["details"]] == ["user_id"]
    gone = make_user(db, is_active=False)
    inactive = api.post("/api/time-entries", as_=org.head, json={"date": "2026-03-02", "hours": 1, "user_id": gone.id})
    assert inactive.status == 400 and [d["field"] for d in inactive.json["details"]] == ["user_id"]
    bad_range = api.get("/api/time-entries?date_from=2026-03-05&date_to=2026-03-01", as_=org.member)
    assert bad_range.status == 400 and [d["field"] for d in bad_range.json["details"]] == ["date_to"]


def test_submit_and_reject_keep_to_the_callers_scope_and_the_states(api, db, org):
    # docs/decisions/timesheets.md: every write is scoped (404 outside); submit only from draft or rejected
    other = make_entry(db, org.outsider)
    assert api.post(f"/api/time-entries/{other.id}/submit", as_=org.member).status == 404
    assert api.post(f"/api/time-entries/{other.id}/submit", as_=org.manager).status == 404
    team = make_entry(db, org.member)
    assert api.post(f"/api/time-entries/{team.id}/submit", as_=org.manager).status == 200
    approved = make_entry(db, org.member, status="approved")
    assert api.post(f"/api/time-entries/{approved.id}/submit", as_=org.member).status == 409
    outside = make_entry(db, org.outsider, status="submitted")
    assert api.post(f"/api/time-entries/{outside.id}/reject", as_=org.manager, json={"reason": "x"}).status == 404
    assert api.get(f"/api/time-entries/{outside.id}", as_=org.executive).json["time_entry"]["status"] == "submitted"
