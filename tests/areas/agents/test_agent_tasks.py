"""Agent tasks (tool tasks): list, detail, PATCH, stage moves, stats."""
import pytest
from sqlalchemy import select

from chalicelib.areas.agents.models import AgentRun, AgentTask
from chalicelib.core.history import HistoryEntry
from chalicelib.core.notify import Notification
from tests.areas.agents.factories import make_agent_task, make_config, make_run
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import task_type
from tests.factories import make_user


def test_a_task_of_type_agent_task_appears_in_draft(api, db, exec_user):
    project = make_project(db, owner_id=exec_user.id)
    kind = task_type(db, "agent_task")
    created = api.post("/api/tasks", as_=exec_user, json={"title": "Build the landing page", "type_id": kind.id,
                                                          "resource_type": "project", "resource_id": project.id})
    assert created.status == 201, created
    listed = api.get("/api/agent-tasks", as_=exec_user).json
    assert [t["id"] for t in listed["tasks"]] == [created.json["task"]["id"]]
    item = listed["tasks"][0]
    assert item["agent"]["stage"] == "draft" and item["agent"]["retry_count"] == 0
    assert item["project_id"] == project.id and item["title"] == "Build the landing page"
    # the tasks detail still shows the agent meta record (now modelled by the agents area)
    assert api.get(f"/api/tasks/{item['id']}", as_=exec_user).json["agent"]["stage"] == "draft"


def test_list_filters_by_project_and_stages(api, db, exec_user):
    one, two = make_project(db), make_project(db)
    draft, _ = make_agent_task(db, project=one, stage="draft")
    review, _ = make_agent_task(db, project=one, stage="review")
    other, _ = make_agent_task(db, project=two, stage="review")

    def ids(query):
        answer = api.get(f"/api/agent-tasks{query}", as_=exec_user)
        assert answer.status == 200, answer
        return {t["id"] for t in answer.json["tasks"]}

    assert ids("") == {draft.id, review.id, other.id}
    assert ids(f"?project_id={one.id}") == {draft.id, review.id}
    assert ids("?stage=review") == {review.id, other.id}
    assert ids(f"?project_id={one.id}&stage=review,%20draft") == {draft.id, review.id}
    assert ids(f"?project_id={two.id}&stage=draft") == set()
    bad = api.get("/api/agent-tasks?stage=review,bogus", as_=exec_user)
    assert bad.status == 400 and bad.json["details"][0]["field"] == "stage"


def test_agent_tasks_are_scoped_like_tasks(api, db, exec_user, employee):
    mine, _ = make_agent_task(db, owner=employee)
    hidden, _ = make_agent_task(db, owner=make_user(db))
    manager = make_user(db, access_level="manager")
    assert {t["id"] for t in api.get("/api/agent-tasks", as_=employee).json["tasks"]} == {mine.id}
    assert api.get("/api/agent-tasks", as_=manager).json["tasks"] == []
    assert {t["id"] for t in api.get("/api/agent-tasks", as_=exec_user).json["tasks"]} >= {mine.id, hidden.id}
    for viewer in (employee, manager):
        assert api.get(f"/api/agent-tasks/{hidden.id}", as_=viewer).status == 404
        assert api.patch(f"/api/agent-tasks/{hidden.id}", as_=viewer, json={"effort_estimate": "S"}).status == 404
        assert api.post(f"/api/agent-tasks/{hidden.id}/dispatch", as_=viewer).status == 404
    assert api.get(f"/api/agent-tasks/{hidden.id}", as_=exec_user).status == 200
    stats = api.get("/api/agent-tasks/stats", as_=employee).json
    assert stats["total_tasks"] == 1


def test_detail_has_task_agent_and_runs_newest_first(api, db, exec_user):
    from datetime import datetime, timedelta, timezone

    task, agent = make_agent_task(db, stage="pending_approval", scope_document="Scope", effort_estimate="M")
    start = datetime(2026, 11, 1, tzinfo=timezone.utc)
    older = make_run(db, task, created_at=start, started_at=start, finished_at=start + timedelta(minutes=5))
    newer = make_run(db, task, stage="building", status="failed", tokens=7, cost=1.5, created_at=start + timedelta(days=1))
    detail = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user)
    assert detail.status == 200, detail
    body = detail.json
    assert body["task"]["id"] == task.id and "agent" not in body["task"]
    assert body["agent"]["stage"] == "pending_approval" and body["agent"]["scope_document"] == "Scope"
    assert [r["id"] for r in body["runs"]] == [newer.id, older.id] and body["runs_total"] == 2
    assert body["runs"][0] | {} == body["runs"][0]
    assert (body["runs"][0]["tokens"], body["runs"][0]["cost"], body["runs"][0]["status"]) == (7, 1.5, "failed")
    assert body["runs"][1]["started_at"] == "2026-11-01T00:00:00Z"
    assert body["runs"][1]["finished_at"] == "2026-11-01T00:05:00Z"
    assert api.get("/api/agent-tasks/nope", as_=exec_user).status == 404
    plain = make_agent_task(db)[0]
    db.delete(db.get(AgentTask, db.scalar(select(AgentTask.id).where(AgentTask.task_id == plain.id))))
    db.flush()
    assert api.get(f"/api/agent-tasks/{plain.id}", as_=exec_user).status == 404  # a task, not an agent task


def test_patch_writes_only_the_three_fields(api, db, exec_user):
    task, agent = make_agent_task(db, stage="draft")
    answer = api.patch(f"/api/agent-tasks/{task.id}", as_=exec_user, json={
        "effort_estimate": "L", "scope_document": "# Scope", "agent_confidence_note": "fairly sure",
        "stage": "done", "retry_count": 9, "ci_status": "passed", "title": "renamed"})
    assert answer.status == 200, answer
    got = answer.json["task"]
    assert (got["agent"]["effort_estimate"], got["agent"]["scope_document"], got["agent"]["agent_confidence_note"]) == (
        "L", "# Scope", "fairly sure")
    assert got["agent"]["stage"] == "draft" and got["agent"]["retry_count"] == 0 and got["agent"]["ci_status"] is None
    assert got["title"] == task.title
    only_ignored = api.patch(f"/api/agent-tasks/{task.id}", as_=exec_user, json={"stage": "done"})
    assert only_ignored.status == 400
    assert api.patch(f"/api/agent-tasks/{task.id}", as_=exec_user, json={"effort_estimate": "x" * 51}).status == 400
    cleared = api.patch(f"/api/agent-tasks/{task.id}", as_=exec_user, json={"agent_confidence_note": None})
    assert cleared.json["task"]["agent"]["agent_confidence_note"] is None


def _history(db, task_id):
    return db.scalars(select(HistoryEntry).where(HistoryEntry.entity_id == task_id,
                                                 HistoryEntry.action == "agent_stage_changed")
                      .order_by(HistoryEntry.created_at)).all()


def _notices(db, task_id):
    return db.scalars(select(Notification).where(Notification.resource_id == task_id,
                                                 Notification.type == "agent_task_stage_changed")).all()


MOVES = [  # (move, from stages that work, to, body)
    ("dispatch", ("draft", "rejected"), "scoping", None),
    ("approve", ("pending_approval",), "building", None),
    ("reject", ("pending_approval",), "rejected", {"reason": "too big"}),
    ("review-approve", ("review",), "done", {"force": True}),
    ("review-reject", ("review",), "building", {"reason": "the header is broken"}),
]
STAGES = ("draft", "scoping", "pending_approval", "building", "review", "done", "rejected")


@pytest.mark.parametrize("move, allowed, to, body", MOVES, ids=[m[0] for m in MOVES])
def test_every_stage_move_allowed_and_409(api, db, exec_user, move, allowed, to, body):
    reporter, assignee = make_user(db), make_user(db)
    for stage in STAGES:
        task, agent = make_agent_task(db, stage=stage, reporter_id=reporter.id, assignee_id=assignee.id)
        make_config(db, db.get(type(make_project(db)), task.resource_id))
        answer = api.post(f"/api/agent-tasks/{task.id}/{move}", as_=exec_user, json=body)
        db.refresh(agent)
        if stage in allowed:
            assert answer.status == 200, (stage, answer)
            assert answer.json["task"]["agent"]["stage"] == to == agent.stage
            [event] = _history(db, task.id)
            assert event.changes["stage"] == {"from": stage, "to": to} and event.actor_id == exec_user.id
            assert {n.user_id for n in _notices(db, task.id)} == {reporter.id, assignee.id}
        else:
            assert answer.status == 409, (stage, answer)
            assert stage in answer.json["error"]
            assert agent.stage == stage and _history(db, task.id) == [] and _notices(db, task.id) == []


def test_dispatch_and_approve_create_runs(api, db, exec_user):
    task, agent = make_agent_task(db, stage="draft")
    config = make_config(db, db.get(type(make_project(db)), task.resource_id))
    dispatched = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user).json
    run = dispatched["run"]
    assert run["stage"] == "scoping" and run["task_id"] == task.id and run["project_id"] == config.project_id
    assert run["created_by"] == exec_user.id and run["status"] == "queued"  # as answered, before the runner is asked
    db.refresh(agent)
    agent.stage = "pending_approval"
    db.flush()
    approved = api.post(f"/api/agent-tasks/{task.id}/approve", as_=exec_user).json
    assert approved["run"]["stage"] == "building"
    runs = db.scalars(select(AgentRun).where(AgentRun.task_id == task.id)).all()
    assert sorted(r.stage for r in runs) == ["building", "scoping"]
    assert {r.status for r in runs} == {"running"}  # the sandbox runner took both after commit
    detail = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json
    assert [r["stage"] for r in detail["runs"]] == ["building", "scoping"]


def test_dispatch_from_rejected_creates_a_scoping_run(api, db, exec_user):
    """Document 1, States and transitions: draft or rejected -> scoping creates a run record (from either)."""
    task, _ = make_agent_task(db, stage="rejected")
    make_config(db, db.get(type(make_project(db)), task.resource_id))
    answer = api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=exec_user)
    assert answer.status == 200, answer
    assert answer.json["task"]["agent"]["stage"] == "scoping"
    assert answer.json["run"]["stage"] == "scoping" and answer.json["run"]["task_id"] == task.id
    runs = db.scalars(select(AgentRun).where(AgentRun.task_id == task.id)).all()
    assert [(r.stage, r.id) for r in runs] == [("scoping", answer.json["run"]["id"])]


def test_reasons_are_required(api, db, exec_user):
    for stage, move in (("pending_approval", "reject"), ("review", "review-reject")):
        task, agent = make_agent_task(db, stage=stage)
        for body in (None, {}, {"reason": ""}, {"reason": "   "}, {"reason": None}, {"reason": 5}):
            answer = api.post(f"/api/agent-tasks/{task.id}/{move}", as_=exec_user, json=body)
            assert answer.status == 400, (move, body, answer)
        db.refresh(agent)
        assert agent.stage == stage


def test_review_approve_checks_the_gates(api, db, exec_user):
    task, agent = make_agent_task(db, stage="review", browser_test_status="passed", ci_status="failed")
    refused = api.post(f"/api/agent-tasks/{task.id}/review-approve", as_=exec_user, json={})
    assert refused.status == 409 and [d["field"] for d in refused.json["details"]] == ["ci_status"]
    assert api.post(f"/api/agent-tasks/{task.id}/review-approve", as_=exec_user,
                    json={"force": False}).status == 409
    agent.browser_test_status = None
    agent.ci_status = "passed"
    db.flush()
    refused = api.post(f"/api/agent-tasks/{task.id}/review-approve", as_=exec_user)
    assert refused.status == 409 and [d["field"] for d in refused.json["details"]] == ["browser_test_status"]
    forced = api.post(f"/api/agent-tasks/{task.id}/review-approve", as_=exec_user, json={"force": True})
    assert forced.status == 200 and forced.json["task"]["agent"]["stage"] == "done"
    assert _history(db, task.id)[-1].changes["forced"] is True

    passing, _ = make_agent_task(db, stage="review", browser_test_status="passed", ci_status="passed")
    approved = api.post(f"/api/agent-tasks/{passing.id}/review-approve", as_=exec_user, json={})
    assert approved.status == 200 and approved.json["task"]["agent"]["stage"] == "done"
    assert "forced" not in _history(db, passing.id)[-1].changes
    assert api.post(f"/api/agent-tasks/{passing.id}/review-approve", as_=exec_user,
                    json={"force": "yes"}).status == 400


def test_review_reject_counts_retries_and_starts_a_build(api, db, exec_user):
    task, agent = make_agent_task(db, stage="review", browser_test_status="passed", ci_status="passed")
    make_config(db, db.get(type(make_project(db)), task.resource_id))
    answer = api.post(f"/api/agent-tasks/{task.id}/review-reject", as_=exec_user, json={"reason": "fix the footer"})
    assert answer.status == 200, answer
    got = answer.json
    assert got["task"]["agent"]["retry_count"] == 1 and got["task"]["agent"]["stage"] == "building"
    assert got["task"]["agent"]["ci_status"] is None  # a new build: earlier proof of work no longer counts
    assert got["run"]["stage"] == "building" and got["run"]["feedback"] == "fix the footer"
    assert _history(db, task.id)[-1].changes["reason"] == "fix the footer"
    db.refresh(agent)
    agent.stage = "review"
    db.flush()
    again = api.post(f"/api/agent-tasks/{task.id}/review-reject", as_=exec_user, json={"reason": "still broken"})
    assert again.json["task"]["agent"]["retry_count"] == 2
    # a project without an agent configuration: refused as approve is (session 26: no task waits in building for a
    # run that was never started), nothing written
    bare, bare_agent = make_agent_task(db, stage="review")
    moved = api.post(f"/api/agent-tasks/{bare.id}/review-reject", as_=exec_user, json={"reason": "no"})
    assert moved.status == 409
    db.refresh(bare_agent)
    assert (bare_agent.stage, bare_agent.retry_count) == ("review", 0)


def test_the_actor_is_not_notified_of_their_own_move(api, db, exec_user):
    other = make_user(db)
    task, _ = make_agent_task(db, stage="pending_approval", reporter_id=exec_user.id, assignee_id=other.id)
    api.post(f"/api/agent-tasks/{task.id}/reject", as_=exec_user, json={"reason": "no"})
    assert [n.user_id for n in _notices(db, task.id)] == [other.id]


def test_moves_need_tasks_update(api, db, exec_user):
    from tests.factories import grant

    viewer = make_user(db)
    grant(db, viewer, "tasks", "view")
    task, _ = make_agent_task(db, owner=viewer, stage="draft")
    assert api.get(f"/api/agent-tasks/{task.id}", as_=viewer).status == 200
    assert api.post(f"/api/agent-tasks/{task.id}/dispatch", as_=viewer).status == 403
    assert api.patch(f"/api/agent-tasks/{task.id}", as_=viewer, json={"effort_estimate": "S"}).status == 403


def test_stats(api, db, exec_user):
    one, two = make_project(db), make_project(db)
    a, _ = make_agent_task(db, project=one, stage="draft")
    b, _ = make_agent_task(db, project=one, stage="review")
    c, _ = make_agent_task(db, project=two, stage="review")
    make_run(db, a, tokens=100, cost=0.5)
    make_run(db, b, tokens=250, cost=1.25)
    make_run(db, c, tokens=1000, cost=10)
    every = api.get("/api/agent-tasks/stats", as_=exec_user)
    assert every.status == 200, every
    got = every.json
    assert got["total_tasks"] >= 3
    scoped = api.get(f"/api/agent-tasks/stats?project_id={one.id}", as_=exec_user).json
    assert scoped == {"total_tasks": 2, "total_runs": 2, "total_tokens": 350, "total_cost": 1.75,
                      "stages": {"draft": 1, "scoping": 0, "pending_approval": 0, "building": 0, "review": 1,
                                 "done": 0, "rejected": 0}}


def test_list_and_stats_cost_constant_statements(api, db, exec_user, count_queries):
    project = make_project(db)
    people = [make_user(db) for _ in range(3)]

    def grow(n):
        for i in range(n):
            task, _ = make_agent_task(db, project=project, stage=STAGES[i % len(STAGES)],
                                      assignee_id=people[i % 3].id, reporter_id=people[(i + 1) % 3].id)
            make_run(db, task, tokens=i)

    counts = []
    for n in (5, 95):
        grow(n)
        with count_queries() as counter:
            listed = api.get(f"/api/agent-tasks?project_id={project.id}", as_=exec_user)
        with count_queries() as stats_counter:
            stats = api.get(f"/api/agent-tasks/stats?project_id={project.id}", as_=exec_user)
        assert listed.status == 200 and stats.status == 200
        counts.append((counter.count, stats_counter.count))
    assert len(listed.json["tasks"]) == 100 and stats.json["total_tasks"] == 100 and stats.json["total_runs"] == 100
    assert counts[0] == counts[1], counts
    assert all(t["assignee_name"] for t in listed.json["tasks"])


def test_a_task_whose_type_changed_away_is_no_longer_an_agent_task(api, db, exec_user):
    """Document 1: an agent task is a task whose type is `agent_task`. The meta record is kept when the type
    changes away (docs/decisions/tasks.md), but the task leaves the pipeline until its type is agent_task again."""
    project = make_project(db, owner_id=exec_user.id)
    agent_kind, bug_kind = task_type(db, "agent_task"), task_type(db, "bug")
    task_id = api.post("/api/tasks", as_=exec_user, json={"title": "Was an agent task", "type_id": agent_kind.id,
                                                          "resource_type": "project", "resource_id": project.id}
                       ).json["task"]["id"]
    make_config(db, project)
    assert api.patch(f"/api/agent-tasks/{task_id}", as_=exec_user, json={"effort_estimate": "S"}).status == 200
    assert api.put(f"/api/tasks/{task_id}", as_=exec_user, json={"type_id": bug_kind.id}).status == 200

    assert task_id not in {t["id"] for t in api.get("/api/agent-tasks", as_=exec_user).json["tasks"]}
    assert api.get(f"/api/agent-tasks/{task_id}", as_=exec_user).status == 404
    assert api.patch(f"/api/agent-tasks/{task_id}", as_=exec_user, json={"effort_estimate": "M"}).status == 404
    assert api.post(f"/api/agent-tasks/{task_id}/dispatch", as_=exec_user).status == 404
    assert api.get(f"/api/agent-tasks/stats?project_id={project.id}", as_=exec_user).json["total_tasks"] == 0
    assert db.scalar(select(AgentTask.stage).where(AgentTask.task_id == task_id)) == "draft"  # nothing dispatched

    # back to agent_task: the kept record (and its estimate) is the agent task again
    assert api.put(f"/api/tasks/{task_id}", as_=exec_user, json={"type_id": agent_kind.id}).status == 200
    detail = api.get(f"/api/agent-tasks/{task_id}", as_=exec_user)
    assert detail.status == 200 and detail.json["agent"]["effort_estimate"] == "S"
    assert api.get(f"/api/agent-tasks/stats?project_id={project.id}", as_=exec_user).json["total_tasks"] == 1


def test_an_agent_task_carries_its_task_fields(api, db, exec_user):
    """decisions.md section 9: the list's entries are each a task with `agent`, and the detail's `task` is the
    task (docs/decisions/agents.md: each task with its own fields). The Task fields an agent pipeline works from
    (document 1, Task: requirements, scope, delivery and testing notes, compute and cost estimates, approval)
    and the rest of the task's own columns are answered, is_private as 0/1."""
    from datetime import date, datetime, timezone

    task, _ = make_agent_task(db, stage="pending_approval", owner=exec_user)
    values = {"requirements": "Must load in 1 s", "scope": "Landing page", "delivery_notes": "Ship on Friday",
              "testing_notes": "Check mobile", "estimate_compute_hours": 2.5, "estimate_total_cost": 12.75,
              "approved_by_user_id": exec_user.id, "approved_at": datetime(2026, 11, 2, 3, 4, 5, tzinfo=timezone.utc),
              "start_date": date(2026, 11, 1), "estimated_hours": 6.0, "internal_hours": 1.5, "sort_order": 3.0,
              "is_private": True, "reported_by_contact_id": None}
    for name, value in values.items():
        setattr(task, name, value)
    db.flush()
    expected = {**values, "approved_at": "2026-11-02T03:04:05Z", "start_date": "2026-11-01", "is_private": 1,
                "phase_id": None, "parent_task_id": None, "roadmap_item_id": None, "sprint_id": None}
    [listed] = api.get("/api/agent-tasks", as_=exec_user).json["tasks"]
    detail = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user).json["task"]
    patched = api.patch(f"/api/agent-tasks/{task.id}", as_=exec_user, json={"effort_estimate": "M"}).json["task"]
    for record in (listed, detail, patched):
        assert {name: record.get(name, "missing") for name in expected} == expected
