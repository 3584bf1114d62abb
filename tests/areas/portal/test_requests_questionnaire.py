"""Portal requests (task, SLA, delivery manager notified) and the questionnaire (validation, goals, first
completion notifies)."""
from sqlalchemy import func, select

from chalicelib.areas.portal.models import ClientGoal
from chalicelib.areas.sla.models import SlaPolicy, SlaPolicyRule, TaskSla
from chalicelib.areas.tasks.models import Task
from chalicelib.core.notify import Notification
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import priority
from tests.factories import make_user


def test_request_creates_task_with_sla_and_notifies(portal, db):
    manager = make_user(db, name="Mia Manager")
    mine, other = make_client(db), make_client(db)
    high = priority(db, "high")
    policy = SlaPolicy(name="Gold")
    db.add(policy)
    db.flush()
    db.add(SlaPolicyRule(policy_id=policy.id, priority_id=high.id, response_hours=1, resolution_hours=4))
    project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id, sla_policy_id=policy.id)
    foreign = make_project(db, company_id=other.id)
    db.flush()
    answer = portal.post("/requests", mine, role="collaborator", json={
        "title": "Checkout broken", "description": "Card payments fail", "priority": "high",
        "projectId": project.id, "portalUserId": "pu-7"})
    assert answer.status == 201, answer
    assert answer.json["ok"] is True
    task = db.get(Task, answer.json["taskId"])
    assert task.resource_id == project.id and task.priority_id == high.id and task.is_private is False
    assert db.scalar(select(TaskSla.policy_id).where(TaskSla.task_id == task.id)) == policy.id
    assert db.scalar(select(Notification.type).where(Notification.user_id == manager.id)) == "portal_request"
    shown = portal.get(f"/projects/{project.id}/tasks", mine).json["tasks"]
    assert [t["title"] for t in shown] == ["Checkout broken"]

    bad = {"title": "x", "projectId": foreign.id}
    assert portal.post("/requests", mine, role="admin", json=bad).status == 400
    assert portal.post("/requests", mine, role="admin", json={"projectId": project.id}).status == 400
    assert portal.post("/requests", mine, role="admin", json={"title": "x", "projectId": project.id,
                                                                "priority": "nope"}).status == 400


def test_request_without_policy_or_manager_falls_back_to_profile_manager(portal, db):
    manager = make_user(db)
    mine = make_client(db, manager=manager)
    project = make_project(db, company_id=mine.id)
    answer = portal.post("/requests", mine, role="admin", json={"title": "Hi", "projectId": project.id})
    assert answer.status == 201
    assert db.scalar(select(TaskSla.id).where(TaskSla.task_id == answer.json["taskId"])) is None
    assert db.scalar(select(func.count()).select_from(Notification).where(Notification.user_id == manager.id)) == 1


def test_questionnaire(portal, db):
    manager = make_user(db)
    mine, other = make_client(db, manager=manager), make_client(db)
    empty = portal.get("/questionnaire", mine).json["profile"]
    assert empty["completed"] == 0 and empty["goals"] == [] and empty["channel_online_pct"] is None
    body = {"financial_year_start": "July", "financial_year_end": "June", "key_trading_periods": "Christmas",
            "channel_online_pct": 60, "channel_instore_pct": 30, "channel_wholesale_pct": 10,
            "celebration_vision": "Double revenue", "growth_priorities_text": "Online",
            "company_direction_text": "Up", "portalUserId": "pu-1",
            "goals": [{"metric": "Revenue", "target": 100000, "unit": "AUD", "period": "month",
                       "metric_key": "revenue", "metric_label": "Revenue"}]}
    assert portal.post("/questionnaire", mine, role="viewer", json=body).status == 403
    for wrong in ({"channel_online_pct": 60, "channel_instore_pct": 30, "channel_wholesale_pct": 20},
                  {"channel_online_pct": 101}, {"channel_online_pct": -1}, {"channel_online_pct": 80,
                                                                            "channel_instore_pct": 30},
                  {"channel_online_pct": "lots"}, {"goals": [{"target": 5}]}, {"goals": [{"metric": "x",
                                                                                        "period": "decade"}]}):
        assert portal.post("/questionnaire", mine, role="admin", json={**body, **wrong}).status == 400, wrong
    assert portal.post("/questionnaire", mine, role="admin", json=body).json == {"ok": True}
    profile = portal.get("/questionnaire", mine).json["profile"]
    assert profile["completed"] == 1 and profile["channel_online_pct"] == 60.0 and profile["completed_by"] == "pu-1"
    assert [(g["metric"], g["target"], g["source"]) for g in profile["goals"]] == [("Revenue", 100000.0,
                                                                                      "questionnaire")]
    # a second completion replaces the questionnaire's goals and notifies no one
    body["goals"] = [{"metric": "Orders"}, {"metric": "AOV", "target": 80}]
    assert portal.post("/questionnaire", mine, role="admin", json=body).status == 200
    assert sorted(db.scalars(select(ClientGoal.metric).where(ClientGoal.company_id == mine.id))) == ["AOV", "Orders"]
    notes = db.scalars(select(Notification.type).where(Notification.user_id == manager.id)).all()
    assert notes == ["portal_questionnaire"]
    assert portal.get("/questionnaire", other).json["profile"]["completed"] == 0


def test_a_request_with_a_title_of_500_characters_is_created_and_notified(portal, db):
    """Document 3, POST /requests: title (required) -> 201 {taskId, ok}, the delivery manager notified. A title
    at the body's bound (500, the task's column) made a notification title past its 500-character column: the
    request answered 400 and created nothing."""
    manager = make_user(db)
    mine = make_client(db, manager=manager)
    project = make_project(db, company_id=mine.id)
    answer = portal.post("/requests", mine, role="admin", json={"title": "x" * 500, "projectId": project.id})
    assert answer.status == 201, answer.json
    assert db.get(Task, answer.json["taskId"]).title == "x" * 500
    title = db.scalar(select(Notification.title).where(Notification.user_id == manager.id))
    assert title.startswith("Client request: x") and len(title) == 500


def test_channel_percentages_are_checked_with_the_answers_kept(portal, db):
    """docs/decisions/portal.md: each channel percentage 0-100; all three add up to 100, otherwise to at most
    100. A submission sends any subset and keeps the answers it leaves out, so the rule holds for the answers
    as stored: 50 online then 60 in-store alone stored 110%."""
    mine = make_client(db)
    assert portal.post("/questionnaire", mine, role="admin", json={"channel_online_pct": 50}).status == 200
    too_many = portal.post("/questionnaire", mine, role="admin", json={"channel_instore_pct": 60})
    assert too_many.status == 400 and too_many.json["details"][0]["field"] == "channel_instore_pct"
    assert portal.post("/questionnaire", mine, role="admin", json={"channel_instore_pct": 40}).status == 200
    not_whole = portal.post("/questionnaire", mine, role="admin", json={"channel_wholesale_pct": 5})
    assert not_whole.status == 400
    assert portal.post("/questionnaire", mine, role="admin", json={"channel_wholesale_pct": 10,
                                                                   "channel_online_pct": 50,
                                                                   "channel_instore_pct": 40}).status == 200
    # a value sent as null clears it; the others are checked with what is kept
    assert portal.post("/questionnaire", mine, role="admin", json={"channel_online_pct": None,
                                                                   "channel_wholesale_pct": 60}).status == 200
    profile = portal.get("/questionnaire", mine).json["profile"]
    assert (profile["channel_online_pct"], profile["channel_instore_pct"], profile["channel_wholesale_pct"]) == \
        (None, 40.0, 60.0)


def test_a_request_without_a_project_is_a_task_of_the_company(portal, db):
    """Document 3 marks only the title required: a request naming no project is a task of the company (no project, so
    no SLA policy), watched by and told to the client profile's delivery manager. It was a 400 (limits audit)."""
    manager = make_user(db)
    mine = make_client(db, manager=manager)
    answer = portal.post("/requests", mine, role="collaborator", json={"title": "Update our logo"})
    assert answer.status == 201, answer
    task = db.get(Task, answer.json["taskId"])
    assert (task.resource_type, task.resource_id, task.title) == ("company", mine.id, "Update our logo")
    assert db.scalar(select(TaskSla.policy_id).where(TaskSla.task_id == task.id)) is None
    assert db.scalar(select(Notification.type).where(Notification.user_id == manager.id)) == "portal_request"
    assert portal.post("/requests", mine, role="admin", json={"title": " "}).status == 400  # the title still is
