"""Session 30, a 429's Retry-After from the orchestrator, a business agent or the runner is read as every adapter
reads it (providers.http.retry_after: delay-seconds or an HTTP-date, 1 s when unreadable or not finite, never
below 0) and named in whole seconds: the orchestrator proxy's `upstream.retry_after` carried the raw header (a
string, an HTTP-date, any text the upstream sent), the runner's failure (the run's `error`) named it raw too ("?"
when absent)."""
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
import responses
from sqlalchemy import select

from chalicelib.areas.agents.models import AgentRun
from chalicelib.providers.runner import RunnerUnreachable
from chalicelib.providers.runner.live import HttpRunner
from tests.areas.agents.test_proxies import ORCH, live, manager_of_tasks  # noqa: F401 - fixtures
from tests.areas.agents.test_runner import PAYLOAD, SECRET, URL, _setup


def _in(seconds: float) -> str:
    return format_datetime(datetime.now(timezone.utc) + timedelta(seconds=seconds), usegmt=True)


IN_120 = "an HTTP-date 120 s ahead"  # made when the test runs


@pytest.mark.parametrize("header, seconds", [
    ("7", 7), ("2.5", 3), (IN_120, {119, 120}), ("soon", 1), ("inf", 1), ("1e999", 1), ("nan", 1), ("-5", 0),
    (None, None),
])
@responses.activate
def test_the_proxy_names_the_wait_in_whole_seconds(api, db, manager_of_tasks, live, header, seconds):  # noqa: F811
    header = _in(120) if header == IN_120 else header
    responses.add(responses.POST, ORCH + "/pause", status=429, json={"error": "slow down"},
                  headers={"Retry-After": header} if header is not None else {})
    answer = api.post("/api/orchestrator/pause", as_=manager_of_tasks)
    assert answer.status == 429, answer.json
    got = answer.json["upstream"]["retry_after"]
    assert got in seconds if isinstance(seconds, set) else got == seconds
    assert answer.json["error"] == "slow down"


@pytest.mark.parametrize("header, message", [
    ("30", "the runner is rate limiting (retry after 30 s)"),
    (IN_120, "the runner is rate limiting (retry after 120 s)"),
    ("inf", "the runner is rate limiting (retry after 1 s)"),
    ("<script>", "the runner is rate limiting (retry after 1 s)"),
    (None, "the runner is rate limiting"),
])
@responses.activate
def test_the_runner_names_the_wait_in_whole_seconds(header, message):
    header = _in(120) if header == IN_120 else header
    responses.add(responses.POST, URL, status=429, headers={"Retry-After": header} if header is not None else {})
    with pytest.raises(RunnerUnreachable) as caught:
        HttpRunner(timeout=4).start_run(runner_url=URL, secret=SECRET, payload=PAYLOAD)
    assert str(caught.value) in {message, message.replace("120 s", "119 s")}


@responses.activate
def test_the_failed_run_names_the_wait(api, db, exec_user, set_env):
    set_env(RUNNER_MODE="live")
    _project, task, _agent, config = _setup(db)
    responses.add(responses.POST, config.runner_url, status=429, headers={"Retry-After": "12.2"})
    answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert answer.status == 200, answer.json
    db.expire_all()
    run = db.scalars(select(AgentRun).where(AgentRun.task_id == task.id)).one()
    assert run.status == "failed" and run.error == "the runner is rate limiting (retry after 13 s)"
