"""Project tasks, profitability, the AI summary (sandbox, off, live) and the linked deal."""
import json

import pytest
import requests
import responses
from sqlalchemy import func, select

from chalicelib.areas.projects.models import ProjectAISummary
from tests.factories import config_item, make_user

from .factories import make_project

AI_URL = "https://ai.example.test/v1/chat/completions"


@pytest.fixture
def boss(db):
    return make_user(db, access_level="executive", name="Boss")


@pytest.fixture
def project(api, boss):
    return api.post("/api/projects", json={"name": "Insight", "end_date": "2026-09-30"}, as_=boss).json["project"]


def add_task(api, user, project_id, **fields):
    response = api.post("/api/tasks", json={"resource_type": "project", "resource_id": project_id, **fields}, as_=user)
    assert response.status == 201, response
    return response.json["task"]


# ---------------------------------------------------------------- tasks

def test_project_tasks_are_top_level_tasks_with_labels(api, db, boss, project):
    assignee = make_user(db, name="Ada", picture="https://img/ada.png")
    high = config_item(db, "task_priority", "high")
    done = config_item(db, "task_status", "done")
    parent = add_task(api, boss, project["id"], title="Parent", assignee_id=assignee.id, priority_id=high.id,
                      status_id=done.id)
    add_task(api, boss, project["id"], title="Child", parent_task_id=parent["id"])
    other = make_project(db, name="Elsewhere")
    add_task(api, boss, other.id, title="Not mine")
    response = api.get(f"/api/projects/{project['id']}/tasks", as_=boss)
    assert response.status == 200
    [task] = response.json["tasks"]
    assert task["title"] == "Parent"
    assert (task["assignee_name"], task["assignee_picture"]) == ("Ada", "https://img/ada.png")
    assert (task["status_label"], task["status_value"], task["status_color"]) == ("Done", "done", done.color)
    assert (task["priority_label"], task["priority_color"]) == ("High", high.color)
    assert api.get(f"/api/projects/{project['id']}", as_=boss).json["project"]["task_count"] == 1


def test_project_tasks_of_missing_project_is_404(api, boss):
    assert api.get("/api/projects/missing/tasks", as_=boss).status == 404


def test_project_tasks_follow_the_tasks_data_scoping(api, db, boss):
    """Document 1, Authentication: data scoping applies as stated under Tasks. A member who is an employee sees the
    project's tasks they are assigned to, reported, created or watch, as GET /api/tasks/:id does; the others are
    not listed (they were, titles and assignees of tasks that answer 404). The AI summary is told only what its
    caller may see."""
    from chalicelib.areas.tasks.models import TaskWatcher

    member = make_user(db, access_level="employee", name="Member")
    project = make_project(db, name="Shared", owner_id=boss.id, members=[member])
    mine = add_task(api, boss, project.id, title="Mine", assignee_id=member.id)
    add_task(api, boss, project.id, title="Someone else's", assignee_id=boss.id)
    watched = add_task(api, boss, project.id, title="Watched")
    db.add(TaskWatcher(task_id=watched["id"], user_id=member.id))
    db.flush()
    path = f"/api/projects/{project.id}/tasks"
    assert sorted(t["title"] for t in api.get(path, as_=member).json["tasks"]) == ["Mine", "Watched"]
    assert api.get(path, as_=member).json["total"] == 2
    assert len(api.get(path, as_=boss).json["tasks"]) == 3
    assert api.get(f"/api/tasks/{mine['id']}", as_=member).status == 200


# ---------------------------------------------------------------- profitability

def test_profitability_from_time_entries_and_members(api, db, boss, project):
    ada, bob = make_user(db, name="Ada", picture="https://img/a.png"), make_user(db, name="Bob")
    for user in (ada, bob):
        api.post(f"/api/projects/{project['id']}/members", json={"user_id": user.id}, as_=boss)
    for user, hours, billable in ((ada, 3, True), (ada, 2.5, False), (bob, 1, True)):
        response = api.post("/api/time-entries", json={"user_id": user.id, "project_id": project["id"],
                                                       "date": "2026-03-02", "hours": hours, "billable": billable},
                            as_=boss)
        assert response.status == 201, response
    api.post("/api/time-entries", json={"user_id": bob.id, "date": "2026-03-02", "hours": 7}, as_=boss)
    response = api.get(f"/api/projects/{project['id']}/profitability", as_=boss)
    assert response.status == 200
    body = response.json
    assert body["total_hours"] == 6.5
    assert body["billable_hours"] == 4
    assert body["team_size"] == 3  # the creator and the two added members
    assert (body["budget_total"], body["invoiced"], body["collected"]) == (0, 0, 0)
    by_id = {row["id"]: row for row in body["time_by_member"]}
    assert by_id[ada.id] == {"id": ada.id, "name": "Ada", "picture": "https://img/a.png", "total_hours": 5.5,
                             "billable_hours": 3}
    assert by_id[bob.id]["total_hours"] == 1 and by_id[bob.id]["billable_hours"] == 1


def test_profitability_of_project_without_time(api, boss, project):
    body = api.get(f"/api/projects/{project['id']}/profitability", as_=boss).json
    assert body == {"budget_total": 0, "total_hours": 0, "billable_hours": 0, "team_size": 1, "invoiced": 0,
                    "collected": 0, "time_by_member": [], "currency": None, "by_currency": []}  # no budget: no money


# ---------------------------------------------------------------- AI summary

def test_ai_summary_is_null_before_generation(api, boss, project):
    response = api.get(f"/api/projects/{project['id']}/ai-summary", as_=boss)
    assert response.status == 200 and response.json == {"summary": None}


@pytest.mark.smoke
def test_generate_ai_summary_with_sandbox_and_read_it_back(api, db, boss, project):
    api.post(f"/api/projects/{project['id']}/goals", json={"title": "Launch the site"}, as_=boss)
    add_task(api, boss, project["id"], title="Build")
    response = api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss)
    assert response.status == 200, response
    summary = response.json["summary"]
    assert summary["project_id"] == project["id"]
    assert summary["summary_text"].startswith("Insight is active with 1 team member.")
    assert "1 top-level task" in summary["summary_text"]
    assert "2026-09-30" in summary["summary_text"]
    assert 2 <= len(summary["recommendations"]) <= 3
    assert any("Launch the site" in r for r in summary["recommendations"])
    assert summary["generated_at"].endswith("Z")
    assert api.get(f"/api/projects/{project['id']}/ai-summary", as_=boss).json["summary"] == summary


def test_regenerating_replaces_the_summary(api, db, boss, project):
    first = api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss).json["summary"]
    api.post(f"/api/projects/{project['id']}/goals", json={"title": "New goal"}, as_=boss)
    second = api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss).json["summary"]
    assert second["summary_text"] != first["summary_text"]
    count = db.scalar(select(func.count(ProjectAISummary.id)).where(ProjectAISummary.project_id == project["id"]))
    assert count == 1


def test_ai_summary_needs_only_projects_view(api, db, boss, project):
    from tests.factories import grant

    viewer = make_user(db)
    api.post(f"/api/projects/{project['id']}/members", json={"user_id": viewer.id}, as_=boss)
    grant(db, viewer, "projects", "view")
    assert api.post(f"/api/projects/{project['id']}/ai-summary", as_=viewer).status == 200


def test_ai_summary_is_503_when_ai_is_off(api, boss, project, set_env):
    set_env(AI_MODE="off")
    response = api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss)
    assert response.status == 503
    assert "error" in response.json


def test_ai_summary_is_503_when_live_has_no_key(api, boss, project, set_env):
    set_env(AI_MODE="live", AI_API_KEY=None)
    assert api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss).status == 503


def live(set_env):
    set_env(AI_MODE="live", AI_API_KEY="test-key", AI_BASE_URL="https://ai.example.test/v1")


def chat_answer(content):
    return {"choices": [{"message": {"role": "assistant", "content": content}}]}


@responses.activate
def test_ai_summary_is_502_when_provider_fails_and_keeps_previous(api, db, boss, project, set_env):
    previous = api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss).json["summary"]
    live(set_env)
    responses.add(responses.POST, AI_URL, json={"error": "boom"}, status=500)
    response = api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss)
    assert response.status == 502
    assert "error" in response.json
    assert api.get(f"/api/projects/{project['id']}/ai-summary", as_=boss).json["summary"] == previous


@responses.activate
def test_ai_summary_is_502_when_answer_is_invalid(api, boss, project, set_env):
    live(set_env)
    responses.add(responses.POST, AI_URL, json=chat_answer(json.dumps({"summary": "Too short.",
                                                                       "recommendations": ["one"]})))
    assert api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss).status == 502
    assert api.get(f"/api/projects/{project['id']}/ai-summary", as_=boss).json["summary"] is None


@responses.activate
def test_ai_summary_live_sends_the_project_facts_and_stores_the_answer(api, db, boss, project, set_env):
    api.post(f"/api/projects/{project['id']}/goals", json={"title": "Go live"}, as_=boss)
    add_task(api, boss, project["id"], title="Design")
    live(set_env)
    answer = {"summary": "One. Two. Three.", "recommendations": ["Do this", "Do that"]}
    responses.add(responses.POST, AI_URL, json=chat_answer(json.dumps(answer)))
    response = api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss)
    assert response.status == 200, response
    assert response.json["summary"]["summary_text"] == "One. Two. Three."
    assert response.json["summary"]["recommendations"] == ["Do this", "Do that"]
    sent = json.loads(responses.calls[0].request.body)
    assert responses.calls[0].request.headers["Authorization"] == "Bearer test-key"
    facts = json.loads(sent["messages"][1]["content"])
    assert facts["name"] == "Insight"
    assert [m["name"] for m in facts["members"]] == ["Boss"]
    assert [t["title"] for t in facts["tasks"]] == ["Design"]
    assert [g["title"] for g in facts["goals"]] == ["Go live"]


# ---------------------------------------------------------------- deal link

def create_deal(api, user, title="Big deal", status="open"):
    response = api.post("/api/deals/deals", json={"title": title, "status": status}, as_=user)
    assert response.status == 201, response
    return response.json["deal"]


def test_deal_link_is_null_without_a_deal(api, boss, project):
    response = api.get(f"/api/projects/{project['id']}/deal", as_=boss)
    assert response.status == 200 and response.json == {"deal_link": None}


def test_link_replace_and_unlink_a_deal(api, boss, project):
    path = f"/api/projects/{project['id']}/deal"
    first, second = create_deal(api, boss, "First", "open"), create_deal(api, boss, "Second", "won")
    response = api.put(path, json={"deal_id": first["id"]}, as_=boss)
    assert response.status == 200, response
    link = response.json["deal_link"]
    assert (link["deal_id"], link["deal_title"], link["deal_status"], link["project_id"]) == \
        (first["id"], "First", "open", project["id"])
    assert api.get(path, as_=boss).json["deal_link"] == link
    replaced = api.put(path, json={"deal_id": second["id"]}, as_=boss).json["deal_link"]
    assert (replaced["deal_id"], replaced["deal_title"], replaced["deal_status"]) == (second["id"], "Second", "won")
    assert api.put(path, json={"deal_id": None}, as_=boss).json == {"deal_link": None}
    assert api.get(path, as_=boss).json == {"deal_link": None}


def test_deal_link_validation(api, db, boss, project):
    path = f"/api/projects/{project['id']}/deal"
    assert api.put(path, json={}, as_=boss).status == 400
    assert api.put(path, json={"deal_id": "no-such-deal"}, as_=boss).status == 400
    assert api.put(path, json={"deal_id": 7}, as_=boss).status == 400
    assert api.put("/api/projects/missing/deal", json={"deal_id": None}, as_=boss).status == 404
    viewer = make_user(db)
    from tests.factories import grant

    api.post(f"/api/projects/{project['id']}/members", json={"user_id": viewer.id}, as_=boss)
    grant(db, viewer, "projects", "view")
    assert api.put(path, json={"deal_id": None}, as_=viewer).status == 403


def test_project_tasks_follow_the_list_order(api, db, boss, project):
    """Document 1, GET /api/projects/:id/tasks: ordered by sort_order, due_date, created_at descending (no sort order
    or due date last)."""
    from datetime import date, datetime, timedelta, timezone

    from tests.areas.tasks.factories import make_task

    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    made = {}
    for title, sort_order, due, minutes in (("unsorted newer", None, None, 5), ("unsorted older", None, None, 1),
                                            ("second, later due", 2, date(2026, 5, 2), 0),
                                            ("second, sooner due", 2, date(2026, 5, 1), 0),
                                            ("second, no due", 2, None, 0), ("first", 1, None, 0)):
        made[title] = make_task(db, title=title, resource_type="project", resource_id=project["id"],
                                sort_order=sort_order, due_date=due, created_at=start + timedelta(minutes=minutes))
    response = api.get(f"/api/projects/{project['id']}/tasks", as_=boss)
    assert response.status == 200, response
    assert [t["title"] for t in response.json["tasks"]] == [
        "first", "second, sooner due", "second, later due", "second, no due", "unsorted newer", "unsorted older"]


@responses.activate
def test_ai_summary_is_told_only_the_tasks_its_caller_may_see(api, db, boss, set_env):
    member = make_user(db, access_level="employee", name="Member")
    project = make_project(db, name="Shared", owner_id=boss.id, members=[member])
    add_task(api, boss, project.id, title="Mine", assignee_id=member.id)
    add_task(api, boss, project.id, title="Someone else's", assignee_id=boss.id)
    live(set_env)
    responses.add(responses.POST, AI_URL, json=chat_answer(json.dumps({"summary": "One. Two. Three.",
                                                                       "recommendations": ["Do this", "Do that"]})))
    assert api.post(f"/api/projects/{project.id}/ai-summary", as_=member).status == 200
    facts = json.loads(json.loads(responses.calls[0].request.body)["messages"][1]["content"])
    assert [t["title"] for t in facts["tasks"]] == ["Mine"]


AI_URL = "https://ai.example.test/v1/chat/completions"


@responses.activate
def test_ai_summary_is_502_when_the_provider_times_out_or_keeps_rate_limiting(api, boss, project, set_env, monkeypatch):
    """Document 1: "503 if the AI capability is not configured; 502 if generation fails". A configured provider that
    times out (was 504) or keeps rate limiting (was 503, the status of "not configured") failed the generation; the
    rate limit's retry_after stays in the body. Nothing is stored (conformance audit)."""
    from chalicelib.providers import http as provider_http

    set_env(AI_MODE="live", AI_API_KEY="test-key", AI_BASE_URL="https://ai.example.test/v1")
    monkeypatch.setattr(provider_http, "sleep", lambda s: None)
    responses.add(responses.POST, AI_URL, body=requests.exceptions.ReadTimeout("slow"))
    timed_out = api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss)
    assert timed_out.status == 502, timed_out
    responses.replace(responses.POST, AI_URL, json={"error": {"message": "slow down", "type": "requests"}}, status=429,
                      headers={"Retry-After": "600"})
    limited = api.post(f"/api/projects/{project['id']}/ai-summary", as_=boss)
    assert limited.status == 502 and limited.json["retry_after"] == 600, limited
    assert api.get(f"/api/projects/{project['id']}/ai-summary", as_=boss).json == {"summary": None}
