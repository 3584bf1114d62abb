"""Request and read models of the agent pipeline (unknown fields are ignored)."""
from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal, Optional
from urllib.parse import urlsplit

from pydantic import BeforeValidator, Field, create_model, field_validator

from chalicelib.core.schemas import (AgentMetaRead, Flag, Flag01, Id, Input, IsoDate, IsoTimestamp, PageQuery, Read, Text,
                                     non_blank)

from .models import STAGES

EffortEstimate = Text(50)
ScopeDocument = Text(100_000)
ConfidenceNote = Text(20_000)
Reason = Text(5_000)


def http_url(value: str | None, field: str = "url") -> str | None:
    """An http or https URL with a host (None passes); ValueError otherwise."""
    if value is None:
        return None
    value = value.strip()
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as exc:
        raise ValueError("must be a valid http or https URL") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http or https URL")
    if any(ch.isspace() for ch in value):
        raise ValueError("must not contain spaces")
    return value


# --- agent tasks ----------------------------------------------------------------------------------

class AgentTaskListQuery(PageQuery):
    project_id: Optional[Id] = None
    stage: Optional[Text(300)] = None  # comma-separated stages


class AgentStatsQuery(Input):
    project_id: Optional[Id] = None


class AgentTaskUpdate(Input):
    """Only these three fields are written; every other field of the body is ignored."""

    effort_estimate: Optional[EffortEstimate] = None
    scope_document: Optional[ScopeDocument] = None
    agent_confidence_note: Optional[ConfidenceNote] = None


class ReasonBody(Input):
    NOT_NULL = frozenset({"reason"})

    reason: Reason

    _reason = field_validator("reason")(non_blank)


class ReviewApproveBody(Input):
    NOT_NULL = frozenset({"force"})

    force: Flag = False


# --- project agent configuration ------------------------------------------------------------------

class AgentConfigPut(Input):
    """The whole configuration (create or replace). `runner_secret` left out keeps the stored one, null clears
    it, a string replaces it; it is stored encrypted and never returned."""

    project_type: Optional[Text(100)] = None
    repo_org: Optional[Text(200)] = None
    repo_name: Optional[Text(200)] = None
    default_branch: Optional[Text(200)] = None
    deploy_target: Optional[Text(200)] = None
    preview_url_pattern: Optional[Text(1000)] = None
    production_url: Optional[Text(1000)] = None
    workflow_config: Optional[dict[str, Any]] = None
    runner_url: Optional[Text(1000)] = None
    enabled: Flag = False
    runner_secret: Optional[Text(500)] = None

    @field_validator("production_url", "runner_url")
    @classmethod
    def _url(cls, value):
        return http_url(value)

    @field_validator("preview_url_pattern")
    @classmethod
    def _pattern(cls, value):
        if value is None:
            return None
        if "{branch}" not in value:
            raise ValueError("must contain the {branch} placeholder")
        http_url(value.replace("{branch}", "branch"))
        return value.strip()

    @field_validator("runner_secret")
    @classmethod
    def _secret(cls, value):
        if value is None:
            return None
        if not value.strip():
            raise ValueError("must not be empty")
        if len(value) < 16:
            raise ValueError("must be at least 16 characters")
        return value


# --- runner callback --------------------------------------------------------------------------------

def _no_bool(value):
    if isinstance(value, bool):
        raise ValueError("must be a number")
    if isinstance(value, float):
        return Decimal(repr(value))
    return value


RunCost = Annotated[Decimal, BeforeValidator(_no_bool), Field(ge=0, max_digits=14, decimal_places=6, allow_inf_nan=False)]
Tokens = Annotated[int, Field(ge=0, le=2**31 - 1, strict=True)]  # the run's column is a 32-bit integer


class CallbackResult(Input):
    scope_document: Optional[ScopeDocument] = None
    effort_estimate: Optional[EffortEstimate] = None
    agent_confidence_note: Optional[ConfidenceNote] = None
    branch_name: Optional[Text(300)] = None
    pr_url: Optional[Text(2000)] = None
    preview_url: Optional[Text(2000)] = None
    browser_test_status: Optional[Text(30)] = None
    browser_test_video_url: Optional[Text(2000)] = None
    ci_status: Optional[Text(30)] = None
    tokens: Optional[Tokens] = None
    cost: Optional[RunCost] = None
    error: Optional[Text(5000)] = None

    @field_validator("pr_url", "preview_url", "browser_test_video_url")
    @classmethod
    def _link(cls, value):
        """Shown to staff as links: http or https only (a `javascript:` URL would run in the reader's session);
        an empty value stays empty."""
        return value if value is None or not value.strip() else http_url(value)


class AgentCallback(Input):
    NOT_NULL = frozenset({"task_id", "project_id", "stage", "status", "run_id"})

    task_id: Id
    project_id: Id
    stage: Text(30)
    status: Text(30)
    run_id: Id
    result: Optional[CallbackResult] = None

    _filled = field_validator("stage", "status")(non_blank)


# --- read models ----------------------------------------------------------------------------------

class AgentTaskBrief(Read):
    """The task of an agent task: its own fields with the names and labels a pipeline board shows."""
    id: str
    title: str
    description: str | None
    resource_type: str | None
    resource_id: str | None
    project_id: str | None
    status_id: str | None
    priority_id: str | None
    type_id: str | None
    phase_id: str | None
    assignee_id: str | None
    reporter_id: str | None
    created_by: str | None
    parent_task_id: str | None
    roadmap_item_id: str | None
    sprint_id: str | None
    due_date: IsoDate | None
    start_date: IsoDate | None
    estimated_hours: float | None
    internal_hours: float | None
    is_private: Flag01
    sort_order: float | None
    reported_by_contact_id: str | None
    requirements: str | None
    scope: str | None
    delivery_notes: str | None
    testing_notes: str | None
    estimate_compute_hours: float | None
    estimate_total_cost: float | None
    approved_by_user_id: str | None
    approved_at: IsoTimestamp | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    status_label: str | None
    status_color: str | None
    status_value: str | None
    priority_label: str | None
    priority_color: str | None
    priority_value: str | None
    assignee_name: str | None
    assignee_picture: str | None
    reporter_name: str | None


class AgentTaskItemRead(AgentTaskBrief):
    agent: AgentMetaRead


class AgentRunRead(Read):
    id: str
    task_id: str
    project_id: str | None
    stage: str
    status: str
    tokens: int
    cost: float
    error: str | None
    feedback: str | None
    created_by: str | None
    started_at: IsoTimestamp | None
    finished_at: IsoTimestamp | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class AgentTaskDetail(Read):
    task: AgentTaskBrief
    agent: AgentMetaRead
    runs: list[AgentRunRead]
    runs_total: int


class AgentTaskMoved(Read):
    task: AgentTaskItemRead
    run: AgentRunRead | None


# how many tasks sit in each stage (every stage present, 0 when none)
StageCounts = create_model("AgentStageCounts", __base__=Read, **{stage: (int, ...) for stage in STAGES})


class AgentStats(Read):
    total_tasks: int
    total_runs: int
    total_tokens: int
    total_cost: float
    stages: StageCounts


class AgentConfigRead(Read):
    id: str
    project_id: str
    project_type: str | None
    repo_org: str | None
    repo_name: str | None
    default_branch: str | None
    deploy_target: str | None
    preview_url_pattern: str | None
    production_url: str | None
    workflow_config: dict[str, Any] | None
    runner_url: str | None
    enabled: Flag01
    runner_secret_set: Flag01
    updated_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class AgentConfigResponse(Read):
    config: AgentConfigRead | None


class CallbackAnswer(Read):
    ok: Literal[True]
    task_id: str
    run_id: str
    stage: str
    run_status: str
    duplicate: Flag01


# --- orchestrator and business agents -----------------------------------------------------------------

class UpstreamAnswer(Read):
    """The orchestrator's or agent's JSON answer, passed back as it came (its payloads are the upstream's)."""

    model_config = {"extra": "allow"}


class BusinessAgentRead(Read):
    id: str
    name: str
