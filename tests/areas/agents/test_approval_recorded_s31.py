"""Session 31: approving an agent task (pending_approval -> building) records who approved it and when on the task
(document 1, Task: approved_by_user_id, approved_at, and the joined approved_by_name); the fields stayed empty."""
from datetime import datetime, timezone

from tests.areas.agents.factories import make_agent_task, make_config
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def test_approve_names_the_approver_and_the_time(api, db, exec_user):
    task, agent = make_agent_task(db, stage="pending_approval")
    make_config(db, db.get(type(make_project(db)), task.resource_id))
    approver = make_user(db, access_level="executive", name="Avery Approver")
    db.flush()
    before = datetime.now(timezone.utc).replace(microsecond=0)
    answered = api.post(f"/api/agent-tasks/{task.id}/approve", as_=approver)
    assert answered.status == 200, answered.json
    approved = answered.json["task"]
    assert approved["approved_by_user_id"] == approver.id
    assert before <= datetime.fromisoformat(approved["approved_at"].replace("Z", "+00:00"))
    detail = api.get(f"/api/tasks/{task.id}", as_=exec_user).json["task"]
    assert (detail["approved_by_user_id"], detail["approved_by_name"], detail["approved_at"]) == (
        approver.id, "Avery Approver", approved["approved_at"])


def test_a_refused_approve_records_nothing(api, db, exec_user):
    task, _ = make_agent_task(db, stage="draft")
    assert api.post(f"/api/agent-tasks/{task.id}/approve", as_=exec_user).status == 409
    detail = api.get(f"/api/tasks/{task.id}", as_=exec_user).json["task"]
    assert (detail["approved_by_user_id"], detail["approved_at"]) == (None, None)
