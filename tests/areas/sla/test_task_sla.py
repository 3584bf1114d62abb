"""Task SLAs at /api/sla/tasks/:taskId (assign, respond, resolve), the compliance report and the breach scan."""
import json
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from chalicelib.areas.sla.models import SlaPolicy, TaskSla
from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.areas.tasks.factories import iso_z, make_task, sla_policy
from tests.factories import config_item, grant, make_user


def policy(db, name="Gold", rules=((1, 8),), priority="high"):
    return sla_policy(db, name, rules, priority)


iso = iso_z


def breaches(db, task):
    return db.scalar(select(func.count(Notification.id)).where(Notification.type == "sla_breach",
                                                               Notification.resource_id == task.id))


@pytest.mark.smoke
def test_assign_respond_resolve(api, db, exec_user):
    gold = policy(db, rules=((2, 24),))
    assignee = make_user(db)
    task = make_task(db, priority_id=config_item(db, "task_priority", "high").id, assignee_id=assignee.id)
    path = f"/api/sla/tasks/{task.id}"
    assert api.get(path, as_=exec_user).json == {"sla": None}
    assigned = api.put(path, as_=exec_user, json={"policy_id": gold.id, "created_at": "2030-01-01T10:00:00Z"})
    assert assigned.status == 200, assigned
    sla = assigned.json["sla"]
    assert (sla["created_at"], sla["response_deadline"], sla["resolution_deadline"]) == (
        "2030-01-01T10:00:00Z", "2030-01-01T12:00:00Z", "2030-01-02T10:00:00Z")
    assert (sla["policy_name"], sla["response_hours"], sla["resolution_hours"]) == ("Gold", 2, 24)
    assert sla["priority_label"] == config_item(db, "task_priority", "high").label
    assert api.get(path, as_=exec_user).json["sla"] == sla

    assert api.post(f"{path}/respond", as_=exec_user).json == {"ok": True, "breached": False}
    assert api.post(f"{path}/respond", as_=exec_user).status == 409
    assert api.post(f"{path}/resolve", as_=exec_user).json == {"ok": True, "breached": False}
    after = api.get(path, as_=exec_user).json["sla"]
    assert (after["response_met"], after["resolution_met"], after["response_breached"]) == (1, 1, 0)
    assert breaches(db, task) == 0

    # reassigning replaces the assignment (deadlines from the task's creation time when no start is given)
    again = api.put(path, as_=exec_user, json={"policy_id": gold.id}).json["sla"]
    assert again["id"] == sla["id"] and again["response_met"] == 0 and again["created_at"] != sla["created_at"]
    assert db.scalar(select(func.count(TaskSla.id)).where(TaskSla.task_id == task.id)) == 1


def test_late_response_is_breached_and_notifies_once(api, db, exec_user):
    gold = policy(db, rules=((1, 2),))
    assignee = make_user(db)
    task = make_task(db, priority_id=config_item(db, "task_priority", "high").id, assignee_id=assignee.id)
    path = f"/api/sla/tasks/{task.id}"
    api.put(path, as_=exec_user, json={"policy_id": gold.id, "created_at": iso(utcnow() - timedelta(hours=3))})
    assert api.post(f"{path}/respond", as_=exec_user).json == {"ok": True, "breached": True}
    assert api.post(f"{path}/resolve", as_=exec_user).json == {"ok": True, "breached": True}
    assert breaches(db, task) == 1
    notice = db.scalar(select(Notification).where(Notification.type == "sla_breach"))
    assert notice.user_id == assignee.id
    sla = api.get(path, as_=exec_user).json["sla"]
    assert (sla["response_breached"], sla["resolution_breached"]) == (1, 1)


def test_assignment_errors(api, db, exec_user):
    gold = policy(db)
    no_priority = make_task(db)
    low = make_task(db, priority_id=config_item(db, "task_priority", "low").id)
    high = make_task(db, priority_id=config_item(db, "task_priority", "high").id)
    answer = api.put(f"/api/sla/tasks/{no_priority.id}", as_=exec_user, json={"policy_id": gold.id})
    assert answer.status == 400 and answer.json["details"][0]["field"] == "priority_id"
    answer = api.put(f"/api/sla/tasks/{low.id}", as_=exec_user, json={"policy_id": gold.id})
    assert answer.status == 400 and answer.json["details"][0]["field"] == "policy_id"
    answer = api.put(f"/api/sla/tasks/{high.id}", as_=exec_user, json={"policy_id": "missing"})
    assert answer.status == 400 and answer.json["details"][0]["field"] == "policy_id"
    assert api.put(f"/api/sla/tasks/{high.id}", as_=exec_user, json={}).status == 400
    assert api.put(f"/api/sla/tasks/{high.id}", as_=exec_user, json={"policy_id": gold.id,
                                                                        "created_at": "yesterday"}).status == 400
    assert api.put("/api/sla/tasks/missing", as_=exec_user, json={"policy_id": gold.id}).status == 404
    assert api.post(f"/api/sla/tasks/{high.id}/respond", as_=exec_user).status == 404  # none assigned
    assert api.post(f"/api/sla/tasks/{high.id}/resolve", as_=exec_user).status == 404


def test_task_sla_follows_task_scoping(api, db, exec_user):
    gold = policy(db)
    employee = make_user(db, access_level="employee")
    manager = make_user(db, access_level="manager")
    hidden = make_task(db, priority_id=config_item(db, "task_priority", "high").id, assignee_id=make_user(db).id)
    own = make_task(db, priority_id=config_item(db, "task_priority", "high").id, assignee_id=employee.id)
    for task in (hidden, own):
        api.put(f"/api/sla/tasks/{task.id}", as_=exec_user, json={"policy_id": gold.id,
                                                                  "created_at": iso(utcnow() - timedelta(minutes=30))})
    for viewer in (employee, manager):
        assert api.get(f"/api/sla/tasks/{hidden.id}", as_=viewer).status == 404
        risk = api.get("/api/sla/compliance", as_=viewer).json
        assert hidden.id not in [entry["id"] for entry in risk["at_risk"]]
    assert api.get(f"/api/sla/tasks/{own.id}", as_=employee).json["sla"]["policy_id"] == gold.id
    assert api.put(f"/api/sla/tasks/{own.id}", as_=employee, json={"policy_id": gold.id}).status == 403
    assert {e["id"] for e in api.get("/api/sla/compliance", as_=exec_user).json["at_risk"]} == {hidden.id, own.id}


def test_compliance_and_at_risk(api, db, exec_user):
    gold, silver = policy(db, "Gold", rules=((1, 3),)), policy(db, "Silver", rules=((10, 20),))
    high = config_item(db, "task_priority", "high").id
    now = utcnow()
    late = make_task(db, title="Late", priority_id=high)
    soon = make_task(db, title="Soon", priority_id=high, assignee_id=make_user(db, name="Ann").id)
    calm = make_task(db, title="Calm", priority_id=high)
    api.put(f"/api/sla/tasks/{late.id}", as_=exec_user, json={"policy_id": gold.id, "created_at": iso(now - timedelta(hours=5))})
    api.put(f"/api/sla/tasks/{soon.id}", as_=exec_user, json={"policy_id": gold.id, "created_at": iso(now - timedelta(minutes=30))})
    api.put(f"/api/sla/tasks/{calm.id}", as_=exec_user, json={"policy_id": silver.id, "created_at": iso(now)})
    api.post(f"/api/sla/tasks/{late.id}/respond", as_=exec_user)  # late: response breached, resolution open+late
    report = api.get("/api/sla/compliance", as_=exec_user).json
    by_name = {entry["policy_name"]: entry for entry in report["compliance"]}
    assert by_name["Gold"] == {"policy_id": gold.id, "policy_name": "Gold", "total": 2, "response_breaches": 1,
                               "resolution_breaches": 0, "open_response_breaches": 0, "open_resolution_breaches": 1}
    assert by_name["Silver"]["total"] == 1 and by_name["Silver"]["open_response_breaches"] == 0
    assert [(e["id"], e["title"], e["policy_name"], e["assignee_name"]) for e in report["at_risk"]] == [
        (soon.id, "Soon", "Gold", "Ann")]
    only = api.get(f"/api/sla/compliance?policy_id={silver.id}", as_=exec_user).json
    assert [e["policy_id"] for e in only["compliance"]] == [silver.id] and only["at_risk"] == []


def test_at_risk_is_ordered_by_the_sooner_due_deadline(api, db, exec_user):
    """The sooner of the deadlines that are still due and inside the window orders the list (on SQLite too)."""
    gold = policy(db, rules=((1, 3),))
    high = config_item(db, "task_priority", "high").id
    now = utcnow()
    made = {}
    for name, responded, response_in, resolution_in in (("responded", True, 0.5, 2), ("both due", False, 1, 3),
                                                         ("resolution first", False, 3, 0.5)):
        task = make_task(db, title=name, priority_id=high)
        db.add(TaskSla(task_id=task.id, policy_id=gold.id, priority_id=high, created_at=now,
                       responded_at=now if responded else None,
                       response_deadline=now + timedelta(hours=response_in),
                       resolution_deadline=now + timedelta(hours=resolution_in)))
        made[task.id] = name
    db.flush()
    at_risk = api.get("/api/sla/compliance", as_=exec_user).json["at_risk"]
    assert [made[e["id"]] for e in at_risk] == ["resolution first", "both due", "responded"]


def test_at_risk_lists_at_most_20(api, db, exec_user):
    gold = policy(db, rules=((1, 3),))
    high = config_item(db, "task_priority", "high").id
    start = utcnow() - timedelta(minutes=30)
    for n in range(25):
        task = make_task(db, priority_id=high)
        db.add(TaskSla(task_id=task.id, policy_id=gold.id, priority_id=high, created_at=start,
                       response_deadline=start + timedelta(hours=1, minutes=n),
                       resolution_deadline=start + timedelta(hours=3)))
    db.flush()
    at_risk = api.get("/api/sla/compliance", as_=exec_user).json["at_risk"]
    assert len(at_risk) == 20
    assert [e["response_deadline"] for e in at_risk] == sorted(e["response_deadline"] for e in at_risk)


def _overdue(db, api, exec_user):
    gold = policy(db, rules=((1, 2),))
    assignee = make_user(db)
    high = config_item(db, "task_priority", "high").id
    late = make_task(db, priority_id=high, assignee_id=assignee.id)
    fine = make_task(db, priority_id=high, assignee_id=assignee.id)
    api.put(f"/api/sla/tasks/{late.id}", as_=exec_user, json={"policy_id": gold.id,
                                                              "created_at": iso(utcnow() - timedelta(hours=2))})
    api.put(f"/api/sla/tasks/{fine.id}", as_=exec_user, json={"policy_id": gold.id})
    return late, fine


def test_breach_scan_through_the_scheduled_handler(api, db, client, exec_user):
    late, fine = _overdue(db, api, exec_user)
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    assert client.lambda_.invoke("sla_breach_scan", event).payload == {"noticed": 1}
    assert client.lambda_.invoke("sla_breach_scan", event).payload == {"noticed": 0}
    assert (breaches(db, late), breaches(db, fine)) == (1, 0)
    # a breach already noticed is not notified again on respond
    assert api.post(f"/api/sla/tasks/{late.id}/respond", as_=exec_user).json["breached"] is True
    assert breaches(db, late) == 1


def test_breach_scan_through_the_cli(api, db, exec_user, capsys):
    from chalicelib import cli

    late, _ = _overdue(db, api, exec_user)
    capsys.readouterr()
    assert cli.main(["job", "sla-breach-scan"]) == 0
    assert json.loads(capsys.readouterr().out) == {"noticed": 1}
    assert cli.main(["job", "sla-breach-scan"]) == 0
    assert json.loads(capsys.readouterr().out) == {"noticed": 0}
    assert breaches(db, late) == 1


def test_start_too_late_for_its_deadlines_is_a_400(api, db, exec_user):
    gold = policy(db, rules=((1, 8),))
    task = make_task(db, priority_id=config_item(db, "task_priority", "high").id)
    answer = api.put(f"/api/sla/tasks/{task.id}", as_=exec_user, json={"policy_id": gold.id,
                                                                       "created_at": "9999-12-31T20:00:00Z"})
    assert answer.status == 400 and answer.json["details"][0]["field"] == "created_at"
    assert api.get(f"/api/sla/tasks/{task.id}", as_=exec_user).json == {"sla": None}


def test_compliance_costs_constant_statements(api, db, exec_user, count_queries):
    gold = policy(db, rules=((1, 3),))
    high = config_item(db, "task_priority", "high").id
    start = utcnow() - timedelta(minutes=30)

    def grow(n):
        for _ in range(n):
            task = make_task(db, priority_id=high, assignee_id=make_user(db).id)
            db.add(TaskSla(task_id=task.id, policy_id=gold.id, priority_id=high, created_at=start,
                           response_deadline=start + timedelta(hours=1), resolution_deadline=start + timedelta(hours=3)))
        db.flush()

    counts = []
    for n in (5, 95):
        grow(n)
        with count_queries() as counter:
            report = api.get("/api/sla/compliance", as_=exec_user).json
        counts.append(counter.count)
    assert report["compliance"][0]["total"] == 100 and len(report["at_risk"]) == 20
    assert counts[0] == counts[1], counts


def test_compliance_lists_at_most_500_policies(api, db, exec_user):
    """A list never returns more than 500 rows where no limit is stated (decisions.md section 4): the
    compliance report holds one entry per policy, the first 500 by name; policy_id still reaches any one."""
    from chalicelib.core.locks import insert_rows

    insert_rows(db, SlaPolicy, [{"name": f"P{n:03d}"} for n in range(501)])
    db.flush()
    report = api.get("/api/sla/compliance", as_=exec_user)
    assert report.status == 200, report
    names = [entry["policy_name"] for entry in report.json["compliance"]]
    assert len(names) == 500 and names[0] == "P000" and names[-1] == "P499"
    last = db.scalar(select(SlaPolicy.id).where(SlaPolicy.name == "P500"))
    assert [e["policy_name"] for e in api.get(f"/api/sla/compliance?policy_id={last}", as_=exec_user)
            .json["compliance"]] == ["P500"]


def test_at_risk_window_is_4_hours_ahead(api, db, exec_user):
    """Document 1, Limits: a deadline within the next 4 hours is at risk; one just past 4 hours, or already
    passed, is not."""
    gold = policy(db, rules=((1, 3),))
    high = config_item(db, "task_priority", "high").id
    now = utcnow()
    made = {}
    for name, ahead in (("inside", timedelta(hours=3, minutes=50)), ("outside", timedelta(hours=4, minutes=10)),
                        ("passed", timedelta(minutes=-10))):
        task = make_task(db, title=name, priority_id=high)
        db.add(TaskSla(task_id=task.id, policy_id=gold.id, priority_id=high, created_at=now,
                       response_deadline=now + ahead, resolution_deadline=now + ahead))
        made[task.id] = name
    db.flush()
    at_risk = api.get("/api/sla/compliance", as_=exec_user).json["at_risk"]
    assert [made[e["id"]] for e in at_risk] == ["inside"]


def test_task_sla_routes_answer_404_for_a_task_out_of_scope(api, db, exec_user):
    """docs/decisions/sla.md: a task the caller cannot see answers 404 on every /api/sla/tasks/:taskId route, also
    for a caller who holds sla:update (a manager), and nothing is written."""
    gold = policy(db)
    manager = make_user(db, access_level="manager")
    hidden = make_task(db, priority_id=config_item(db, "task_priority", "high").id, assignee_id=make_user(db).id)
    path = f"/api/sla/tasks/{hidden.id}"
    assert api.put(path, as_=exec_user, json={"policy_id": gold.id}).status == 200
    assert api.put(path, as_=manager, json={"policy_id": gold.id, "created_at": "2030-01-01T00:00:00Z"}).status == 404
    assert api.post(f"{path}/respond", as_=manager).status == 404
    assert api.post(f"{path}/resolve", as_=manager).status == 404
    sla = api.get(path, as_=exec_user).json["sla"]
    assert (sla["response_met"], sla["resolution_met"]) == (0, 0) and sla["created_at"] != "2030-01-01T00:00:00Z"


def test_respond_and_resolve_need_sla_update(api, db, exec_user):
    """Document 1, Service levels: respond and resolve need sla:update; an employee (sla:view) who sees the task
    reads its SLA but cannot mark it."""
    gold = policy(db)
    employee = make_user(db, access_level="employee")
    own = make_task(db, priority_id=config_item(db, "task_priority", "high").id, assignee_id=employee.id)
    path = f"/api/sla/tasks/{own.id}"
    api.put(path, as_=exec_user, json={"policy_id": gold.id})
    assert api.post(f"{path}/respond", as_=employee).status == 403
    assert api.post(f"{path}/resolve", as_=employee).status == 403
    assert api.get(path, as_=employee).json["sla"]["response_met"] == 0


def test_response_and_resolution_each_record_their_own_breach(api, db, exec_user):
    """Document 1, Task SLA assignment: response and resolution are each marked met and each records whether its
    own deadline was breached (a late response, an on-time resolution)."""
    gold = policy(db, rules=((1, 8),))
    task = make_task(db, priority_id=config_item(db, "task_priority", "high").id)
    path = f"/api/sla/tasks/{task.id}"
    api.put(path, as_=exec_user, json={"policy_id": gold.id, "created_at": iso(utcnow() - timedelta(hours=2))})
    assert api.post(f"{path}/respond", as_=exec_user).json == {"ok": True, "breached": True}
    assert api.post(f"{path}/resolve", as_=exec_user).json == {"ok": True, "breached": False}
    assert api.post(f"{path}/resolve", as_=exec_user).status == 409
    sla = api.get(path, as_=exec_user).json["sla"]
    assert (sla["response_breached"], sla["resolution_breached"]) == (1, 0)
    assert sla["responded_at"] and sla["resolved_at"]


def test_reassigning_resets_the_breach_notice(api, db, exec_user):
    """docs/decisions/sla.md: reassigning resets the met marks, the breach flags and the breach notice, so a
    breach of the new assignment is noticed again (its notification then follows the notifications area's
    de-duplication: the same user, type and task within 5 minutes is one notification)."""
    gold = policy(db, rules=((1, 2),))
    task = make_task(db, priority_id=config_item(db, "task_priority", "high").id, assignee_id=make_user(db).id)
    path = f"/api/sla/tasks/{task.id}"
    late = {"policy_id": gold.id, "created_at": iso(utcnow() - timedelta(hours=3))}
    api.put(path, as_=exec_user, json=late)
    assert api.post(f"{path}/respond", as_=exec_user).json["breached"] is True
    assert breaches(db, task) == 1
    noticed = db.scalar(select(TaskSla.breach_notified_at).where(TaskSla.task_id == task.id))
    # session 27: the same assignment sent back is no edit, so the reassignment names another start (4 hours ago)
    again = api.put(path, as_=exec_user, json={**late, "created_at": iso(utcnow() - timedelta(hours=4))}).json["sla"]
    # session 26: the record reads breached while open past its deadline (this start is 3 hours ago); the stored
    # flag, the mark's, is reset
    assert (again["response_met"], again["response_breached"], again["responded_at"]) == (0, 1, None)
    db.expire_all()
    assert db.scalar(select(TaskSla.breach_notified_at).where(TaskSla.task_id == task.id)) is None
    assert db.scalar(select(TaskSla.response_breached).where(TaskSla.task_id == task.id)) is False
    assert api.post(f"{path}/respond", as_=exec_user).json["breached"] is True
    db.expire_all()
    assert db.scalar(select(TaskSla.breach_notified_at).where(TaskSla.task_id == task.id)) > noticed
    assert breaches(db, task) == 1  # within 5 minutes of the first: de-duplicated by the notifications area


def test_breach_scan_of_a_task_without_assignee_notifies_nobody(api, db, exec_user):
    """docs/decisions/sla.md: no assignee: recorded as noticed, nobody notified (a second scan finds nothing)."""
    from chalicelib.areas.sla.jobs import breach_scan

    gold = policy(db, rules=((1, 2),))
    task = make_task(db, priority_id=config_item(db, "task_priority", "high").id)
    api.put(f"/api/sla/tasks/{task.id}", as_=exec_user, json={"policy_id": gold.id,
                                                              "created_at": iso(utcnow() - timedelta(hours=3))})
    assert breach_scan() == {"noticed": 1}
    assert breach_scan() == {"noticed": 0}
    assert db.scalar(select(func.count(Notification.id)).where(Notification.type == "sla_breach")) == 0


def test_deleting_a_policy_deletes_its_task_assignments(api, db, exec_user):
    """docs/decisions/sla.md: deleting a policy deletes the task assignments made under it."""
    gold = policy(db)
    task = make_task(db, priority_id=config_item(db, "task_priority", "high").id)
    api.put(f"/api/sla/tasks/{task.id}", as_=exec_user, json={"policy_id": gold.id})
    assert api.delete(f"/api/sla/policies/{gold.id}", as_=exec_user).json == {"ok": True}
    assert api.get(f"/api/sla/tasks/{task.id}", as_=exec_user).json == {"sla": None}
    assert api.post(f"/api/sla/tasks/{task.id}/respond", as_=exec_user).status == 404


def test_the_assignee_marking_their_own_late_response_is_not_told(api, db, exec_user):
    """docs/decisions/sla.md: the breach notice never goes to the caller who marked the late response or
    resolution (audit 6); the assignment is still recorded as noticed, so nobody is told of it later."""
    gold = policy(db, rules=((1, 2),))
    assignee = make_user(db, access_level="head")  # sla:update, sees every task
    task = make_task(db, priority_id=config_item(db, "task_priority", "high").id, assignee_id=assignee.id)
    path = f"/api/sla/tasks/{task.id}"
    api.put(path, as_=exec_user, json={"policy_id": gold.id, "created_at": iso(utcnow() - timedelta(hours=3))})
    assert api.post(f"{path}/respond", as_=assignee).json == {"ok": True, "breached": True}
    assert breaches(db, task) == 0
    assert db.scalar(select(TaskSla.breach_notified_at).where(TaskSla.task_id == task.id)) is not None
    assert api.post(f"{path}/resolve", as_=exec_user).json == {"ok": True, "breached": True}
    assert breaches(db, task) == 0  # once per assignment


def test_an_assignee_who_may_not_read_the_task_is_not_told(api, db, exec_user):
    """docs/decisions/sla.md: `sla_breach` (it names the task) only to an assignee who may read the task (tasks'
    task_readers: active, tasks:view, in scope); one whose tasks permission is none is told nothing, on a late
    mark as by the scan (audit 6)."""
    gold = policy(db, rules=((1, 2),))
    blocked = make_user(db)
    grant(db, blocked, "tasks", "none")
    high = config_item(db, "task_priority", "high").id
    marked = make_task(db, priority_id=high, assignee_id=blocked.id)
    scanned = make_task(db, priority_id=high, assignee_id=blocked.id)
    late = {"policy_id": gold.id, "created_at": iso(utcnow() - timedelta(hours=3))}
    for task in (marked, scanned):
        assert api.put(f"/api/sla/tasks/{task.id}", as_=exec_user, json=late).status == 200
    assert api.get(f"/api/tasks/{marked.id}", as_=blocked).status in (403, 404)  # cannot read it
    assert api.post(f"/api/sla/tasks/{marked.id}/respond", as_=exec_user).json["breached"] is True
    from chalicelib import cli

    assert cli.main(["job", "sla-breach-scan"]) == 0
    assert (breaches(db, marked), breaches(db, scanned)) == (0, 0)
    assert db.scalar(select(func.count(TaskSla.id)).where(TaskSla.task_id.in_([marked.id, scanned.id]),
                                                          TaskSla.breach_notified_at.is_not(None))) == 2
