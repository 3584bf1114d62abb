"""Orchestrator proxy and business agents (issue 13 item 5): the sandbox keeps state in the database; the live
adapter forwards with requests (caller identity, timeout) and maps failures to 502/503/504."""
import json

import pytest
import requests
import responses

from tests.factories import grant, make_user

ORCH = "https://orchestrator.agency.test"
SEO = "https://seo-agent.agency.test/api"


@pytest.fixture
def manager_of_tasks(db):
    user = make_user(db, access_level="employee", email="ops.person@agency.test")
    grant(db, user, "tasks", "manage")
    return user


def test_sandbox_orchestrator_pause_resume_restart_and_tasks(api, db, exec_user, employee):
    status = api.get("/api/orchestrator/status", as_=employee)
    assert status.status == 200 and status.json["status"] == "running" and status.json["mode"] == "sandbox"
    paused = api.post("/api/orchestrator/pause", as_=exec_user)
    assert paused.status == 200 and paused.json["status"] == "paused"
    assert api.post("/api/orchestrator/pause", as_=exec_user).json["paused"] is True  # idempotent
    assert api.get("/api/orchestrator/status", as_=employee).json["status"] == "paused"
    assert api.post("/api/orchestrator/resume", as_=exec_user).json["status"] == "running"
    restarted = api.post("/api/orchestrator/restart", as_=exec_user).json
    assert restarted["restarts"] == 1 and restarted["last_restart_at"]

    created = api.post("/api/orchestrator/tasks", as_=exec_user, json={"title": "Nightly SEO audit", "priority": 2,
                                                                       "input": {"site": "client.test"}})
    assert created.status == 201, created
    task = created.json["task"]
    assert task["title"] == "Nightly SEO audit" and task["status"] == "queued" and task["requested_by"] == exec_user.id
    refused = api.post("/api/orchestrator/tasks", as_=exec_user, json={"priority": 1})
    assert refused.status == 400 and refused.json["error"] == "title is required"
    assert api.post("/api/orchestrator/tasks", as_=exec_user, json=[1, 2]).status == 400
    listed = api.get("/api/orchestrator/tasks", as_=employee).json["tasks"]
    assert [t["id"] for t in listed] == [task["id"]]
    assert api.get("/api/orchestrator/tasks?status=done", as_=employee).json["tasks"] == []
    assert api.get("/api/orchestrator/status", as_=employee).json["queued_tasks"] == 1


def test_sandbox_business_agents(api, db, exec_user, employee):
    agents = api.get("/api/business-agents", as_=employee)
    assert agents.status == 200 and {a["id"] for a in agents.json["agents"]} == {"actions", "reporting", "research"}
    health = api.get("/api/business-agents/reporting/status", as_=employee).json
    assert health["status"] == "healthy" and health["last_run_at"] is None
    command = api.post("/api/business-agents/reporting/command", as_=exec_user,
                       json={"command": "refresh", "args": {"month": "2026-10"}})
    assert command.status == 200 and command.json["command"]["status"] == "completed"
    assert api.post("/api/business-agents/reporting/command", as_=exec_user, json={}).status == 400
    triggered = api.post("/api/business-agents/reporting/trigger/weekly-digest", as_=exec_user)
    assert triggered.status == 202 and triggered.json["run"]["trigger"] == "weekly-digest"
    logs = api.get("/api/business-agents/reporting/logs", as_=employee).json["logs"]
    assert [entry["kind"] for entry in logs] == ["trigger", "command"]
    assert logs[1]["args"] == {"month": "2026-10"} and logs[0]["requested_by"] == exec_user.id
    assert api.get("/api/business-agents/reporting/logs?limit=1", as_=employee).json["logs"][0]["kind"] == "trigger"
    assert api.get("/api/business-agents/reporting/status", as_=employee).json["last_run_at"]
    assert api.get("/api/business-agents/research/logs", as_=employee).json["logs"] == []
    assert api.get("/api/business-agents/nope/status", as_=employee).status == 404
    assert api.post("/api/business-agents/reporting/trigger/bad%20name", as_=exec_user).status == 400
    assert api.post("/api/business-agents/reporting/trigger/weekly%0A", as_=exec_user).status == 400  # a newline


def test_sandbox_registry_from_settings(api, db, exec_user, set_env):
    set_env(BUSINESS_AGENTS="seo, billing-down")
    assert [a["id"] for a in api.get("/api/business-agents", as_=exec_user).json["agents"]] == ["seo", "billing-down"]
    assert api.get("/api/business-agents/billing-down/status", as_=exec_user).json["status"] == "unhealthy"
    refused = api.post("/api/business-agents/billing-down/command", as_=exec_user, json={"command": "run"})
    assert refused.status == 503 and "not running" in refused.json["error"]


def test_permissions_reads_view_commands_manage(api, db, employee, manager_of_tasks):
    for method, path in (("GET", "/api/orchestrator/status"), ("GET", "/api/orchestrator/tasks"),
                         ("GET", "/api/business-agents"), ("GET", "/api/business-agents/actions/status"),
                         ("GET", "/api/business-agents/actions/logs")):
        assert api.request(method, path, as_=employee).status == 200, path
    for path, body in (("/api/orchestrator/pause", None), ("/api/orchestrator/resume", None),
                       ("/api/orchestrator/restart", None), ("/api/orchestrator/tasks", {"title": "x"}),
                       ("/api/business-agents/actions/command", {"command": "x"}),
                       ("/api/business-agents/actions/trigger/sync", None)):
        assert api.post(path, as_=employee, json=body).status == 403, path
        assert api.post(path, as_=manager_of_tasks, json=body).status in (200, 201, 202), path


def test_off_is_503(api, db, exec_user, set_env):
    set_env(ORCHESTRATOR_MODE="off")
    for method, path in (("GET", "/api/orchestrator/status"), ("POST", "/api/orchestrator/pause"),
                         ("GET", "/api/business-agents"), ("GET", "/api/business-agents/actions/status")):
        answer = api.request(method, path, as_=exec_user)
        assert answer.status == 503 and answer.json["error"], (path, answer)


@pytest.fixture
def live(set_env):
    set_env(ORCHESTRATOR_MODE="live", ORCHESTRATOR_URL=ORCH + "/", ORCHESTRATOR_TOKEN="orch-token-123456",
            ORCHESTRATOR_TIMEOUT_SECONDS="2", BUSINESS_AGENTS=f"seo={SEO},reporting=")


@responses.activate
def test_live_forwards_with_identity_and_passes_the_answer_back(api, db, manager_of_tasks, live):
    responses.add(responses.GET, ORCH + "/status", json={"state": "running", "workers": 3})
    responses.add(responses.POST, ORCH + "/tasks", json={"id": "t-1", "queued": True}, status=201)
    responses.add(responses.GET, ORCH + "/tasks", json=[{"id": "t-1"}])
    status = api.get("/api/orchestrator/status", as_=manager_of_tasks)
    assert status.status == 200 and status.json == {"state": "running", "workers": 3}
    sent = responses.calls[0].request
    assert sent.headers["Authorization"] == "Bearer orch-token-123456"
    assert sent.headers["X-WMS-User-Id"] == manager_of_tasks.id
    assert sent.headers["X-WMS-User-Email"] == "ops.person@agency.test"
    assert sent.headers["X-WMS-Access-Level"] == "employee"
    created = api.post("/api/orchestrator/tasks", as_=manager_of_tasks, json={"title": "Audit", "extra": {"a": 1}})
    assert created.status == 201 and created.json == {"id": "t-1", "queued": True}
    assert json.loads(responses.calls[1].request.body) == {"title": "Audit", "extra": {"a": 1}}
    listed = api.get("/api/orchestrator/tasks?status=queued", as_=manager_of_tasks)
    assert listed.json == {"tasks": [{"id": "t-1"}]}
    assert responses.calls[2].request.url == ORCH + "/tasks?status=queued"


@responses.activate
def test_live_business_agents(api, db, manager_of_tasks, live):
    assert api.get("/api/business-agents", as_=manager_of_tasks).json == {
        "agents": [{"id": "seo", "name": "Seo"}, {"id": "reporting", "name": "Reporting"}]}
    responses.add(responses.GET, SEO + "/health", json={"ok": True})
    responses.add(responses.POST, SEO + "/command", json={"accepted": True}, status=202)
    responses.add(responses.GET, SEO + "/logs", json=[{"at": "2026-11-01"}])
    responses.add(responses.POST, SEO + "/trigger/crawl", json={"run": "r-1"})
    assert api.get("/api/business-agents/seo/status", as_=manager_of_tasks).json == {"ok": True}
    command = api.post("/api/business-agents/seo/command", as_=manager_of_tasks, json={"command": "crawl"})
    assert command.status == 202 and json.loads(responses.calls[1].request.body) == {"command": "crawl"}
    assert api.get("/api/business-agents/seo/logs", as_=manager_of_tasks).json == {"logs": [{"at": "2026-11-01"}]}
    assert api.post("/api/business-agents/seo/trigger/crawl", as_=manager_of_tasks).json == {"run": "r-1"}
    assert responses.calls[3].request.headers["X-WMS-User-Id"] == manager_of_tasks.id
    assert api.get("/api/business-agents/unknown/status", as_=manager_of_tasks).status == 404
    assert api.get("/api/business-agents/reporting/status", as_=manager_of_tasks).status == 503  # no URL


@pytest.mark.parametrize("reply, status, message", [
    ({"status": 500, "json": {"error": "boom"}}, 502, "answered HTTP 500"),
    ({"status": 200, "body": "<html>oops</html>"}, 502, "not JSON"),
    ({"body": requests.ConnectionError("refused")}, 502, "cannot be reached"),
    ({"body": requests.ReadTimeout("slow")}, 504, "did not answer within 2 s"),
    ({"status": 404, "json": {"error": "no such task"}}, 404, "no such task"),
    ({"status": 409, "json": {"message": "already paused"}}, 409, "already paused"),
    ({"status": 429, "json": {"error": "slow down"}, "headers": {"Retry-After": "7"}}, 429, "slow down"),
    # session 26: the upstream refusing the service's credentials is the agency's setup, not the caller's sign-in
    ({"status": 401, "json": {"error": "bad token"}}, 502, "refused the service's credentials"),
    ({"status": 407, "json": {"error": "proxy auth"}}, 502, "refused the service's credentials"),
    ({"status": 403, "json": {"error": "not for you"}}, 403, "not for you"),
])
@responses.activate
def test_live_failures(api, db, manager_of_tasks, live, reply, status, message):
    responses.add(responses.POST, ORCH + "/pause", **reply)
    answer = api.post("/api/orchestrator/pause", as_=manager_of_tasks)
    assert answer.status == status, answer
    assert message in answer.json["error"]
    if status == 429:
        assert answer.json["upstream"]["retry_after"] == 7  # whole seconds, no longer the raw header (session 30)


def test_live_without_a_url_is_503(api, db, manager_of_tasks, set_env):
    set_env(ORCHESTRATOR_MODE="live", ORCHESTRATOR_URL=None)
    answer = api.get("/api/orchestrator/status", as_=manager_of_tasks)
    assert answer.status == 503 and "ORCHESTRATOR_URL" in answer.json["error"]
