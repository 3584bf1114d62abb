"""What the project AI summary is built from and who reads it (session 28, docs/decisions/projects.md "AI summary"):
it is told today's date in the organisation's zone, names no former staff (the portal shows it to the client), and
the stored summary is answered only to a reader whose task scope covers the tasks it was built from."""
import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import responses

from chalicelib.providers.ai.sandbox import SandboxAI
from tests.areas.tasks.factories import make_task
from tests.factories import make_user

from .factories import make_project

AI_URL = "https://ai.example.test/v1/chat/completions"


@pytest.fixture
def told(monkeypatch):
    """The facts each generation tells the model, which quotes the tasks' titles in its summary (as a live one may)."""
    facts_told = []

    def model(self, facts):
        facts_told.append(facts)
        titles = ", ".join(task["title"] for task in facts["tasks"])
        return {"summary": f"{facts['name']} is {facts['status']}. Open work: {titles}. More soon.",
                "recommendations": ["Review open tasks.", "Agree the next goals."]}

    monkeypatch.setattr(SandboxAI, "project_summary", model)
    return facts_told


@pytest.fixture
def relaunch(db):
    """A project of an executive with two employee members; one task of Emma's, one neither member may read."""
    executive = make_user(db, access_level="executive", name="Erin Exec")
    member = make_user(db, access_level="employee", name="Emma Member")
    colleague = make_user(db, access_level="employee", name="Colin Colleague")
    project = make_project(db, name="Relaunch", owner_id=executive.id, members=(member, colleague))
    make_task(db, title="Emma's banner", resource_type="project", resource_id=project.id, assignee_id=member.id,
              created_by=executive.id, reporter_id=executive.id)
    make_task(db, title="Performance plan for Colin", resource_type="project", resource_id=project.id,
              assignee_id=executive.id, created_by=executive.id, reporter_id=executive.id)
    return project, executive, member, colleague


def test_ai_summary_read_by_a_member_is_not_built_from_tasks_hidden_from_them(api, relaunch, told):
    project, executive, member, _ = relaunch
    assert api.post(f"/api/projects/{project.id}/ai-summary", as_=executive).status == 200
    assert "Performance plan for Colin" in [t["title"] for t in told[0]["tasks"]]
    read = api.get(f"/api/projects/{project.id}/ai-summary", as_=member)
    assert read.status == 200, read
    assert read.json == {"summary": None}
    assert api.get(f"/api/projects/{project.id}/ai-summary", as_=executive).json["summary"] is not None


def test_ai_summary_is_answered_to_readers_who_see_every_task_it_was_built_from(api, relaunch, told):
    project, executive, member, colleague = relaunch
    made = api.post(f"/api/projects/{project.id}/ai-summary", as_=member)
    assert made.status == 200, made
    assert [t["title"] for t in told[0]["tasks"]] == ["Emma's banner"]
    assert api.get(f"/api/projects/{project.id}/ai-summary", as_=member).json["summary"] == made.json["summary"]
    assert api.get(f"/api/projects/{project.id}/ai-summary", as_=executive).json["summary"] == made.json["summary"]
    assert api.get(f"/api/projects/{project.id}/ai-summary", as_=colleague).json == {"summary": None}


def test_the_ai_summary_names_no_former_staff(api, db, told):
    executive = make_user(db, access_level="executive", name="Erin Exec")
    owner, manager = make_user(db, name="Former Owner"), make_user(db, name="Former Manager")
    member, current = make_user(db, name="Former Member"), make_user(db, name="Current Member")
    project = make_project(db, name="Relaunch", owner_id=owner.id, delivery_manager_id=manager.id,
                           members=(member, current))
    make_task(db, title="Copy", resource_type="project", resource_id=project.id, assignee_id=member.id)
    for user in (owner, manager, member):
        user.is_active = False
    db.flush()
    assert api.post(f"/api/projects/{project.id}/ai-summary", as_=executive).status == 200
    facts = told[0]
    assert (facts["owner"], facts["delivery_manager"]) == (None, None)
    assert [m["name"] for m in facts["members"]] == ["Current Member"]
    assert [(t["title"], t["assignee"]) for t in facts["tasks"]] == [("Copy", None)]


@responses.activate
def test_the_ai_summary_is_told_today_in_the_organisation_zone(api, db, set_env):
    executive = make_user(db, access_level="executive")
    project = make_project(db, name="Relaunch")
    set_env(ORG_TIMEZONE="Pacific/Kiritimati", AI_MODE="live", AI_API_KEY="test-key",
            AI_BASE_URL="https://ai.example.test/v1")
    answer = {"summary": "One. Two. Three.", "recommendations": ["Do this", "Do that"]}
    responses.add(responses.POST, AI_URL,
                  json={"choices": [{"message": {"role": "assistant", "content": json.dumps(answer)}}]})
    assert api.post(f"/api/projects/{project.id}/ai-summary", as_=executive).status == 200
    prompt, facts = json.loads(responses.calls[0].request.body)["messages"]
    told = json.loads(facts["content"])
    assert told["today"] == datetime.now(ZoneInfo("Pacific/Kiritimati")).date().isoformat()
    assert told["time_zone"] == "Pacific/Kiritimati"
    assert "today" in prompt["content"]
