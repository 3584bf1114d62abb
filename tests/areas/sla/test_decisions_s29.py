"""Session 29 (decisions versus code audit): docs/decisions/sla.md says task SLAs are seen with the task ("a task the
caller cannot see answers 404 on every /api/sla/tasks/:taskId route") and that compliance and the at-risk list cover
"the tasks the caller can see". The task was checked by its row scope alone: a holder of sla:view whose `tasks`
permission is none (an override; a head's scope holds every task) read a task's SLA, assigned and marked it, and the
at-risk list told them the titles of tasks every task route answers them 403 on. Now a task is seen with `tasks:view`
as well, as tasks' own `task_readers` decide who may read it."""
from datetime import timedelta

from chalicelib.core.ids import utcnow
from tests.areas.tasks.factories import iso_z, make_task, sla_policy
from tests.factories import config_item, grant, make_user


def test_a_caller_who_may_not_view_tasks_sees_no_task_sla(api, db, exec_user):
    gold = sla_policy(db, "Gold", ((1, 3),), "high")
    task = make_task(db, title="Confidential launch", priority_id=config_item(db, "task_priority", "high").id)
    start = iso_z(utcnow() - timedelta(minutes=30))
    assert api.put(f"/api/sla/tasks/{task.id}", as_=exec_user,
                   json={"policy_id": gold.id, "created_at": start}).status == 200
    head = make_user(db, access_level="head")
    grant(db, head, "tasks", "none")  # an override: this head may not view tasks
    assert api.get(f"/api/tasks/{task.id}", as_=head).status == 403
    path = f"/api/sla/tasks/{task.id}"
    assert api.get(path, as_=head).status == 404
    assert api.put(path, as_=head, json={"policy_id": gold.id}).status == 404
    assert api.post(f"{path}/respond", as_=head).status == 404
    report = api.get("/api/sla/compliance", as_=head)
    assert report.status == 200, report
    assert report.json["at_risk"] == [] and "Confidential launch" not in str(report.json)
    assert {e["policy_name"]: e["total"] for e in report.json["compliance"]}["Gold"] == 0
    # the executive (tasks:manage) still sees all of it
    assert api.get(path, as_=exec_user).json["sla"]["responded_at"] is None
    assert [e["id"] for e in api.get("/api/sla/compliance", as_=exec_user).json["at_risk"]] == [task.id]
