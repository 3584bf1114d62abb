"""Session 27 (docs/decisions/sla.md):

1. The same assignment sent back (PUT /api/sla/tasks/:id with the policy, and start, the GET answered; a form saved
   back, a retried PUT) is no edit: it wrote a new assignment over the old one, erasing the recorded response (a
   once-only, 409-protected fact) and the breach notice's mark, so the next scan told of the breach again.
2. The breach scan, the record's `*_breached` and compliance's `open_*_breaches` leave out tasks no longer open
   (tasks' `is_open`: a status whose stage_type is `done`): a task completed before its resolution deadline
   without anyone pressing "resolve" was told "Service level breached" once the deadline passed.
"""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update

from chalicelib.areas.sla.models import TaskSla
from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.areas.sla.test_breach_fallback_s25 import _late_tasks, _told
from tests.areas.tasks.factories import status
from tests.factories import make_user


def _row(db, task):
    db.expire_all()
    return db.scalar(select(TaskSla).where(TaskSla.task_id == task.id))


# ---- 1. the same assignment sent back -------------------------------------------------------------------------

def test_the_same_assignment_sent_back_keeps_the_response_and_the_notice(api, db, exec_user):
    from chalicelib.areas.sla.jobs import breach_scan

    assignee = make_user(db, access_level="employee")
    [task] = _late_tasks(api, db, exec_user, 1, assignee_id=assignee.id)
    assert breach_scan() == {"noticed": 1}
    assert api.post(f"/api/sla/tasks/{task.id}/respond", as_=exec_user).status == 200
    db.execute(update(Notification).values(created_at=utcnow() - timedelta(minutes=6)))  # past de-duplication
    db.flush()
    read = api.get(f"/api/sla/tasks/{task.id}", as_=exec_user).json["sla"]
    before = _row(db, task)
    stamps = (before.responded_at, before.breach_notified_at, before.updated_at)
    told = _told(db, task)

    again = api.put(f"/api/sla/tasks/{task.id}", as_=exec_user,
                    json={"policy_id": read["policy_id"], "created_at": read["created_at"]})
    assert again.status == 200, again
    assert again.json["sla"] == read  # the record, as it was
    after = _row(db, task)
    assert (after.responded_at, after.breach_notified_at, after.updated_at) == stamps, "the assignment was rewritten"
    assert api.post(f"/api/sla/tasks/{task.id}/respond", as_=exec_user).status == 409  # the response still stands
    assert breach_scan() == {"noticed": 0}
    assert _told(db, task) == told, "the breach was told again"


def test_another_start_still_reassigns(api, db, exec_user):
    assignee = make_user(db, access_level="employee")
    [task] = _late_tasks(api, db, exec_user, 1, assignee_id=assignee.id)
    assert api.post(f"/api/sla/tasks/{task.id}/respond", as_=exec_user).status == 200
    read = api.get(f"/api/sla/tasks/{task.id}", as_=exec_user).json["sla"]
    later = (utcnow() + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S") + "Z"
    moved = api.put(f"/api/sla/tasks/{task.id}", as_=exec_user,
                    json={"policy_id": read["policy_id"], "created_at": later}).json["sla"]
    assert (moved["created_at"], moved["responded_at"], moved["response_met"]) == (later, None, 0)


# ---- 2. breaches of completed tasks ---------------------------------------------------------------------------

def test_the_scan_leaves_out_a_task_completed_before_its_deadline(api, db, exec_user):
    from chalicelib.areas.sla.jobs import breach_scan

    assignee = make_user(db, access_level="employee")
    done, still_open = _late_tasks(api, db, exec_user, 2, assignee_id=assignee.id, reporter_id=exec_user.id,
                                   status_id=status(db, "todo").id)
    # responded in time, then completed in time (nobody pressed "resolve")
    db.execute(update(TaskSla).where(TaskSla.task_id.in_([done.id, still_open.id])).values(
        response_deadline=utcnow() + timedelta(hours=1), resolution_deadline=utcnow() + timedelta(hours=2)))
    db.flush()
    for task in (done, still_open):
        assert api.post(f"/api/sla/tasks/{task.id}/respond", as_=exec_user).json == {"ok": True, "breached": False}
    assert api.put(f"/api/tasks/{done.id}", as_=exec_user, json={"status_id": status(db, "done").id}).status == 200
    assert breach_scan() == {"noticed": 0}
    # time passes: both resolution deadlines are behind us
    db.execute(update(TaskSla).where(TaskSla.task_id.in_([done.id, still_open.id])).values(
        resolution_deadline=utcnow() - timedelta(minutes=1)))
    db.flush()
    assert breach_scan() == {"noticed": 1}, f"told {_told(db, done)} of a breach of a completed task"
    assert (_told(db, done), _told(db, still_open)) == ([], [assignee.id])
    assert _row(db, done).breach_notified_at is None

    # the record and compliance agree with the scan: the completed task is not read as breached (nor resolved:
    # nobody marked it); the open one is
    record = api.get(f"/api/sla/tasks/{done.id}", as_=exec_user).json["sla"]
    assert (record["resolution_met"], record["resolution_breached"], record["resolved_at"]) == (0, 0, None)
    assert api.get(f"/api/sla/tasks/{still_open.id}", as_=exec_user).json["sla"]["resolution_breached"] == 1
    [entry] = api.get(f"/api/sla/compliance?policy_id={record['policy_id']}", as_=exec_user).json["compliance"]
    assert (entry["total"], entry["open_resolution_breaches"]) == (2, 1)

    # reopened: open again and past its deadline, so a breach as before
    assert api.put(f"/api/tasks/{done.id}", as_=exec_user, json={"status_id": status(db, "todo").id}).status == 200
    assert breach_scan() == {"noticed": 1}
    assert _told(db, done) == [assignee.id]


def test_a_completed_task_is_not_at_risk(api, db, exec_user):
    assignee = make_user(db, access_level="employee")
    done, still_open = _late_tasks(api, db, exec_user, 2, assignee_id=assignee.id, status_id=status(db, "todo").id)
    db.execute(update(TaskSla).where(TaskSla.task_id.in_([done.id, still_open.id])).values(
        response_deadline=utcnow() + timedelta(hours=1), resolution_deadline=utcnow() + timedelta(hours=2)))
    db.flush()
    assert api.put(f"/api/tasks/{done.id}", as_=exec_user, json={"status_id": status(db, "done").id}).status == 200
    at_risk = api.get("/api/sla/compliance", as_=exec_user).json["at_risk"]
    assert [entry["id"] for entry in at_risk if entry["id"] in (done.id, still_open.id)] == [still_open.id]
