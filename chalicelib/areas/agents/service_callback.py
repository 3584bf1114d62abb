"""The runner callback: POST /api/webhooks/agent-callback (no user session).

`Authorization: Bearer <runner secret>` is compared in constant time with the stored secret of the project named
in the body; an unknown project, a project without a secret, a project whose configuration is disabled and a wrong
secret all answer the same 401, and so does a body that is not JSON (it names no project whose secret could be compared). Credentials come first: only
then is the body validated (400). The run must be one of the task's runs sent to that project (the run's
project_id, whatever project the task has moved to since; 404 otherwise) and the task an agent task (404), reporting
the run's own stage (400 otherwise). The report is applied once: (run id, stage,
status) is recorded with `INSERT ... ON CONFLICT DO NOTHING`, so the same delivery repeated answers the same and
changes nothing (but a repeated `running` (or interim) report of a run not yet ended is a heartbeat: it moves the
run's `last_report_at`, the stale-runs job's clock; session 27).

A run that has ended (`success` or `failed`: so reported, its runner unreachable, or given up by the stale-runs job)
is not reopened (session 27): a later report records what the runner spent (tokens, cost) and a history event, and
changes nothing else, neither the run's status, error and finish time nor anything of the task (_ended_run_report;
its tokens and cost only ever go up).

Applied (a run not yet ended): the run's status (_run_status: an ended status, `success` or `failed`, with
finished_at; `queued` never moves a run back; any other status, interim ones included, is `running`, so the run stays
in reach of the stale-runs job; session 27), its last_report_at, tokens and cost (the run's totals so far: the larger
of the stored and the reported, so a delivery arriving late lowers neither, an ended run's included), error;
the agent meta's scope document, effort estimate, confidence note and proof-of-work fields that the result
carries, only when the run is the task's latest of its stage (the scope document from a scoping run only, and never
onto an approved task: session 31). Status `success` for stage `scoping` moves a task
in scoping to pending_approval, for stage `building` a task in building to review (decisions.md section 9);
status `failed` of the task's latest run of the stage the task is still in puts the task back in the stage that
run's start left (session 26), as a runner that cannot be reached does; another status, a task no longer in the
reported stage, or a run that is not the task's latest of that stage (given up on and dispatched again), records
the run and leaves the stage. Such a stale run records its own
status, tokens, cost and error, but writes none of its results onto the task: a new build cleared the proof of
work, and a late `passed` of the build given up on would stand for it.

Who hears (session 25): a success move tells the task's assignee and reporter who may read it, else the run's
dispatcher (`created_by`) when a reader, for pending_approval and review alike. A `failed` report of the task's
latest run of the stage the task is still in tells the same audience (`agent_run_failed`), and the dispatcher also
when they hold tasks:update and none of those told does (session 27: the failed run's one notice). Once per failed
run, as the report is applied once; a stale run's failure tells nobody.

A failed run puts the task back (session 26): scoping and building have no move of the API out of them (dispatch is
from draft or rejected, approve and reject from pending_approval, the review moves from review), so a task left
there after its run failed was stuck for good. The stage to go back to is the one the move into the run's stage left
(the `from` of the task's latest `agent_stage_changed`: the task is still in the run's stage, so that move started
the run), the stage the unreachable-runner path (service_moves.send_run) goes back to; without such an event it is
derived from the run: scoping from draft, building from review when the run carries review-reject feedback, else
from pending_approval. The move is a stage change (history), told by the one `agent_run_failed` notice, which says
where the task is now (session 27: no `agent_task_stage_changed` besides it to the same people).

"""
from __future__ import annotations

import hmac
import logging

from sqlalchemy import select

from chalicelib.core import history
from chalicelib.core.models import HistoryEntry
from chalicelib.core.errors import BadRequest, NotFound, Unauthorized
from chalicelib.core.http import check_request_values, load_json_body, validate
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_ignore, lock_row

from .models import APPROVED_STAGES, AgentRun, AgentRunReport, AgentTask
from .queries import project_config, task_model
from .schemas import AgentCallback
from .service_config import runner_secret
from .service_moves import change_stage, notify_run_failed, notify_task_people

log = logging.getLogger("wms.agents")

RESULT_FIELDS = ("scope_document", "effort_estimate", "agent_confidence_note", "branch_name", "pr_url",
                 "preview_url", "browser_test_status", "browser_test_video_url", "ci_status")
SUCCESS_MOVES = {"scoping": "pending_approval", "building": "review"}
WAITING = ("queued", "running")  # a run not yet ended: the runner may still report it
ENDED = ("success", "failed")  # a run ended (by the runner, an unreachable runner or the stale-runs job): final
# the stages a move into a run's stage starts from (service_moves.MOVES): where a failed run's task goes back to
BACK_FROM = {"scoping": ("draft", "rejected"), "building": ("pending_approval", "review")}
_DUMMY = "x" * 43  # compared against when there is no secret, so an unknown project costs the same time
REFUSED = "Invalid runner credentials"


def _bearer(ctx) -> str | None:
    value = ctx.header("Authorization") or ""
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _check_secret(ctx, token: str, project_id) -> None:
    config = project_config(ctx.db, project_id) if isinstance(project_id, str) and 0 < len(project_id) <= 36 else None
    # a disabled configuration's secret still takes part in the comparison (same time), but never matches: a
    # runner (or anyone holding the secret) must not write results or move stages once the project turned it off
    secret = runner_secret(config)
    matches = hmac.compare_digest(token.encode(), (secret or _DUMMY).encode())
    if secret is None or not matches or not config.enabled:
        log.warning("runner callback refused", extra={"project_id": project_id if isinstance(project_id, str) else None})
        raise Unauthorized(REFUSED)


def _read_body(ctx):
    """The body parsed as far as the secret check needs it: the JSON value, or None when it is not JSON (the
    project it names cannot be known then, so the secret cannot be matched: 401 like an unknown project).
    What JSON cannot stop (NUL, lone surrogates, deep nesting) is refused with a 400 only after the check."""
    try:
        return load_json_body(ctx.request)
    except BadRequest:
        return None


def _named_project(raw) -> str | None:
    project_id = raw.get("project_id") if isinstance(raw, dict) else None
    if not isinstance(project_id, str):
        return None
    try:
        check_request_values(project_id)  # text the database cannot compare is no project
    except BadRequest:
        return None
    return project_id


def receive(ctx) -> dict:
    """Credentials first (decisions/agents.md): no bearer, or a body that names no readable project, is the
    401 of a wrong secret before anything else about the body is checked; then the body is validated (400)."""
    token = _bearer(ctx)
    if token is None:
        raise Unauthorized("A runner callback needs Authorization: Bearer <runner secret>")
    raw = _read_body(ctx)
    _check_secret(ctx, token, _named_project(raw))
    check_request_values(raw)
    body = validate(AgentCallback, raw, "request body")
    return apply_report(ctx, body)


def _answer(agent, run, duplicate: bool) -> dict:
    return {"ok": True, "task_id": agent.task_id, "run_id": run.id, "stage": agent.stage, "run_status": run.status,
            "duplicate": 1 if duplicate else 0}


def _latest_run_of_stage(db, task_id: str, stage: str) -> str | None:
    """The id of the task's newest run of this stage: only its success moves the task (a run given up on, whose
    task was dispatched again, may still report late: recorded, but it moves nothing)."""
    return db.scalar(select(AgentRun.id).where(AgentRun.task_id == task_id, AgentRun.stage == stage)
                     .order_by(AgentRun.created_at.desc(), AgentRun.id.desc()).limit(1))


def _stage_left(db, task_id: str, run: AgentRun) -> str:
    """The stage the move that started this run left, where its failure puts the task back (session 26): the `from`
    of the task's latest stage change, which is the move into the run's stage (the task is still there and the run is
    its latest of that stage; send_run knows it from the move itself). One statement. Without such an event (a task
    set in its stage by other means): scoping from draft; building from review for a rebuild (review-reject sends its
    reason as the run's feedback, approve sends none), else from pending_approval."""
    changes = db.scalar(select(HistoryEntry.changes).where(
        HistoryEntry.entity_type == "task", HistoryEntry.entity_id == task_id,
        HistoryEntry.action == "agent_stage_changed").order_by(HistoryEntry.created_at.desc(),
                                                               HistoryEntry.id.desc()).limit(1))
    moved = (changes or {}).get("stage") if isinstance(changes, dict) else None
    allowed = BACK_FROM.get(run.stage, ())
    if isinstance(moved, dict) and moved.get("to") == run.stage and moved.get("from") in allowed:
        return moved["from"]
    if run.stage == "building":
        return "review" if run.feedback is not None else "pending_approval"
    return "draft"


def apply_report(ctx, body: AgentCallback) -> dict:
    # the run is checked against the project it was sent to (its project_id, whose secret was checked), not the
    # task's current project: a task moved mid-run still hears from the runner it was sent to, and the new
    # project's secret cannot report that run (decisions/agents.md, session 24)
    run = ctx.db.scalar(select(AgentRun).where(AgentRun.id == body.run_id, AgentRun.task_id == body.task_id,
                                               AgentRun.project_id == body.project_id))
    if run is None:
        raise NotFound("Run not found for this task in this project")
    Task = task_model()
    row = ctx.db.execute(select(AgentTask, Task).join(Task, Task.id == AgentTask.task_id).where(
        Task.id == run.task_id)).first()
    if row is None:
        raise NotFound("Agent task not found")
    agent, task = row
    if body.stage != run.stage:
        raise BadRequest(f"The run is a {run.stage} run", details=[{"field": "stage",
                                                                     "message": f"must be {run.stage} for this run"}])
    agent = lock_row(ctx.db, AgentTask, agent.id)
    run = lock_row(ctx.db, AgentRun, run.id)
    if agent is None or run is None:  # the task (and its runs) deleted while this report waited for its rows
        raise NotFound("Agent task not found")
    fresh = insert_ignore(ctx.db, AgentRunReport, {"run_id": run.id, "stage": body.stage, "status": body.status},
                          conflict=("run_id", "stage", "status"))
    now = utcnow()
    if not fresh:
        # a repeated progress report (`running`, or an interim status: see _run_status) is a heartbeat (session 27)
        if body.status not in ENDED and body.status != "queued" and run.status in WAITING:
            run.last_report_at = now
        return _answer(agent, run, True)
    result = body.result
    if run.status in ENDED:
        return _ended_run_report(ctx, agent, task, run, body)
    values = {name: getattr(result, name) for name in RESULT_FIELDS
              if result is not None and getattr(result, name) is not None}
    if run.stage != "scoping" or agent.stage in APPROVED_STAGES:
        # the scope document is the scoping run's result, and after approval the approved scope: a build run's (or a
        # rebuild's) copy of it is not written over what was approved; the rest of its report is (session 31)
        values.pop("scope_document", None)
    target = SUCCESS_MOVES.get(body.stage) if body.status == "success" and agent.stage == body.stage else None
    # asked before the run changes (nothing to flush); a run given up on and dispatched again records itself, but
    # neither its results nor its success count
    # a failed run moves the task back (and is told of) only when the task is still in the run's stage and the run is
    # its latest of that stage: a stale run's failure changes nothing
    failing = body.status == "failed" and agent.stage == body.stage
    current = bool(values or target or failing) and _latest_run_of_stage(ctx.db, task.id, run.stage) == run.id
    failed_here = failing and current
    run.status = _run_status(run.status, body.status)
    run.started_at = run.started_at or now
    run.last_report_at = now
    if run.status in ENDED:
        run.finished_at = now
    _take_spend(run, result)
    if result is not None and result.error is not None:
        run.error = result.error
    if current:
        for name, value in values.items():
            setattr(agent, name, value)
    agent.updated_at = now
    ctx.db.flush()
    history.record(ctx.db, entity_type="task", entity_id=task.id, action="agent_run_reported", actor_id=None,
                   changes={"run_id": run.id, "stage": body.stage, "status": body.status})
    if target is not None and current:
        # a task awaiting approval or review whose assignee and reporter may not decide (left, none, or view only) is
        # not left unseen: the user who dispatched the run is told too, when they may (decisions/agents.md, 25, 26)
        change_stage(ctx, agent, task, target, actor_id=None, run_id=run.id, fallback_id=run.created_by)
    elif failed_here:
        put_back(ctx, agent, task, run)
    return _answer(agent, run, False)


def _run_status(current: str, reported: str) -> str:
    """The status a report of a run not yet ended gives it (session 27, reports out of order). An ended status
    (`success`, `failed`) is the run's; `queued` leaves the run as it is (the runner's first word, delivered late
    after `running`, must not move the run back); any other status (`running`, or an interim one a runner may send:
    `cancelled`, `building_preview`, ...) is a run still at work, `running`: it stays waiting, so the stale-runs job
    gives it up when the runner goes quiet (a status outside queued/running left the job's reach and the task in
    scoping or building for good). The reported status itself is kept in the `agent_run_reported` history event."""
    if reported in ENDED:
        return reported
    if reported == "queued":
        return current
    return "running"


def _take_spend(run: AgentRun, result) -> None:
    """The run's tokens and cost: the runner reports its totals so far, so the run keeps the larger of the stored and
    the reported (each on its own; session 27): a delivery arriving late (`running` after `success`, to a run open or
    ended) never lowers them."""
    if result is not None:
        if result.tokens is not None:
            run.tokens = max(run.tokens or 0, result.tokens)
        if result.cost is not None:
            run.cost = max(run.cost or 0, result.cost)


def _ended_run_report(ctx, agent: AgentTask, task, run: AgentRun, body: AgentCallback) -> dict:
    """A report of a run that has ended (`success` or `failed`: reported so by the runner, failed by an unreachable
    runner or given up by the stale-runs job), the report not seen before (session 27). The run is not reopened: its
    status, error, finish time and heartbeat stay, and nothing of the report is written onto the task (no result
    field, no move, no notice), whether or not the run is still the task's latest of its stage (before, a build given
    up on that reported `passed` late set the gates of a task back in review). Only what the runner spent (tokens,
    cost) is taken, and the report is recorded (the history event, `ended` naming the run's kept status). Answered as
    any report (200; `run_status` the run's kept status, so the runner can tell it was not applied)."""
    _take_spend(run, body.result)
    ctx.db.flush()
    history.record(ctx.db, entity_type="task", entity_id=task.id, action="agent_run_reported", actor_id=None,
                   changes={"run_id": run.id, "stage": body.stage, "status": body.status, "ended": run.status})
    return _answer(agent, run, False)


def put_back(ctx, agent: AgentTask, task, run: AgentRun) -> str:
    """A failed run (`run.status` failed, its error set) that is the task's latest run of the stage the task is still
    in, the agent meta and run rows locked: the task goes back in the stage the run's start left, from where a person
    can send it again or decide (session 26); the move's history event, and one notice, `agent_run_failed` (session
    27; the dispatcher too when none told may decide). The runner's `failed` report and the stale-runs job
    (service_stale, a run the runner never reported) both. Answers the stage."""
    back = _stage_left(ctx.db, task.id, run)
    change_stage(ctx, agent, task, back, actor_id=None, run_id=run.id, notify=False,
                 reason=run.error or "the runner reported the run failed")
    notify_run_failed(ctx, task, run, back)
    return back
