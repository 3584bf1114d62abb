"""Session 26: a task's SLA record agrees with its own deadlines and with the compliance report.

- response_hours / resolution_hours are the hours promised at assignment (deadline - start), not the policy's
  current rule: editing or removing the rule leaves the task's deadlines, so its hours stay too.
- response_breached / resolution_breached: the mark's stored flag, or (not yet marked and the deadline passed),
  the clause compliance counts as open_*_breaches and the breach scan notices.
"""
from datetime import timedelta

from sqlalchemy import func, select

from chalicelib.areas.sla.models import TaskSla
from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.areas.sla.test_task_sla import iso, policy
from tests.areas.tasks.factories import make_task
from tests.factories import config_item, make_user

START = "2030-01-01T10:00:00Z"


def _assigned(api, db, exec_user, rules=((1, 2),), start=START):
    gold = policy(db, rules=rules)
    high = config_item(db, "task_priority", "high")
    task = make_task(db, priority_id=high.id, assignee_id=make_user(db).id)
    sla = api.put(f"/api/sla/tasks/{task.id}", as_=exec_user, json={"policy_id": gold.id, "created_at": start})
    assert sla.status == 200, sla
    return gold, high, task, sla.json["sla"]


def test_edited_rule_leaves_the_task_s_promised_hours(api, db, exec_user):
    gold, high, task, sla = _assigned(api, db, exec_user)
    assert (sla["response_hours"], sla["resolution_hours"]) == (1, 2)
    edited = api.put(f"/api/sla/policies/{gold.id}", as_=exec_user, json={"rules": [
        {"priority_id": high.id, "response_hours": 8, "resolution_hours": 48}]})
    assert edited.status == 200, edited
    after = api.get(f"/api/sla/tasks/{task.id}", as_=exec_user).json["sla"]
    assert (after["response_hours"], after["response_deadline"]) == (1, "2030-01-01T11:00:00Z")
    assert (after["resolution_hours"], after["resolution_deadline"]) == (2, "2030-01-01T12:00:00Z")
    # session 27: the same assignment sent back is no edit (the deadlines promised stay); reassigning (here to
    # another start, then back) takes the rule as it is now
    assert api.put(f"/api/sla/tasks/{task.id}", as_=exec_user, json={"policy_id": gold.id, "created_at": START}).json["sla"] == after
    assert api.put(f"/api/sla/tasks/{task.id}", as_=exec_user,
                   json={"policy_id": gold.id, "created_at": "2030-01-01T09:00:00Z"}).status == 200
    again = api.put(f"/api/sla/tasks/{task.id}", as_=exec_user, json={"policy_id": gold.id, "created_at": START}).json["sla"]
    assert (again["response_hours"], again["response_deadline"]) == (8, "2030-01-01T18:00:00Z")
    assert (again["resolution_hours"], again["resolution_deadline"]) == (48, "2030-01-03T10:00:00Z")


def test_removed_rule_leaves_the_task_s_promised_hours(api, db, exec_user):
    gold, _high, task, _sla = _assigned(api, db, exec_user)
    assert api.put(f"/api/sla/policies/{gold.id}", as_=exec_user, json={"rules": []}).status == 200
    after = api.get(f"/api/sla/tasks/{task.id}", as_=exec_user).json["sla"]
    assert (after["response_hours"], after["resolution_hours"]) == (1, 2)
    assert (after["response_deadline"], after["resolution_deadline"]) == ("2030-01-01T11:00:00Z", "2030-01-01T12:00:00Z")
    assert after["policy_name"] == "Gold"


def test_fractional_hours_are_shown_as_promised(api, db, exec_user):
    _gold, _high, task, sla = _assigned(api, db, exec_user, rules=((0.25, 1.5),))
    assert (sla["response_hours"], sla["response_deadline"]) == (0.25, "2030-01-01T10:15:00Z")
    assert (sla["resolution_hours"], sla["resolution_deadline"]) == (1.5, "2030-01-01T11:30:00Z")
    assert api.get(f"/api/sla/tasks/{task.id}", as_=exec_user).json["sla"] == sla


def test_open_deadline_passed_is_breached_as_the_report_and_the_notice_say(api, db, exec_user):
    from chalicelib.areas.sla.jobs import breach_scan

    gold, _high, task, sla = _assigned(api, db, exec_user, start=iso(utcnow() - timedelta(hours=3)))
    assert (sla["response_breached"], sla["resolution_breached"]) == (1, 1)
    assert breach_scan() == {"noticed": 1}
    told = db.scalar(select(func.count(Notification.id)).where(Notification.type == "sla_breach",
                                                               Notification.resource_id == task.id))
    report = api.get(f"/api/sla/compliance?policy_id={gold.id}", as_=exec_user).json["compliance"][0]
    record = api.get(f"/api/sla/tasks/{task.id}", as_=exec_user).json["sla"]
    assert told == 1 and (report["open_response_breaches"], report["open_resolution_breaches"]) == (1, 1)
    assert (record["response_breached"], record["resolution_breached"]) == (1, 1)
    assert (record["response_met"], record["resolution_met"]) == (0, 0)
    # the stored flags stay as the marks record them: nothing is marked yet
    db.expire_all()
    stored = db.scalar(select(TaskSla).where(TaskSla.task_id == task.id))
    assert (stored.response_breached, stored.resolution_breached) == (False, False)


def test_open_deadlines_ahead_are_not_breached(api, db, exec_user):
    _gold, _high, task, sla = _assigned(api, db, exec_user, start=iso(utcnow() - timedelta(minutes=30)))
    assert (sla["response_breached"], sla["resolution_breached"]) == (0, 0)
    assert api.get(f"/api/sla/tasks/{task.id}", as_=exec_user).json["sla"]["response_breached"] == 0


def test_a_mark_in_time_stays_unbreached_after_its_deadline(api, db, exec_user):
    """Responded before the response deadline, both deadlines now past: the response is not breached (its mark
    says so), the resolution, still open, is."""
    _gold, _high, task, _sla = _assigned(api, db, exec_user, start=iso(utcnow() - timedelta(hours=3)))
    stored = db.scalar(select(TaskSla).where(TaskSla.task_id == task.id))
    stored.responded_at = stored.response_deadline - timedelta(minutes=10)
    db.flush()
    record = api.get(f"/api/sla/tasks/{task.id}", as_=exec_user).json["sla"]
    assert (record["response_met"], record["response_breached"]) == (1, 0)
    assert (record["resolution_met"], record["resolution_breached"]) == (0, 1)
    # a late resolution marks its flag; the read still says breached
    assert api.post(f"/api/sla/tasks/{task.id}/resolve", as_=exec_user).json == {"ok": True, "breached": True}
    record = api.get(f"/api/sla/tasks/{task.id}", as_=exec_user).json["sla"]
    assert (record["resolution_met"], record["resolution_breached"]) == (1, 1)
