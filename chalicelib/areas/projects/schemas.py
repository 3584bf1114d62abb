"""Request and read models of the projects area. Unknown fields are ignored; read-only fields are never written."""

from typing import Annotated, Optional

from pydantic import Field, StringConstraints

from chalicelib.core.schemas import CalendarDate, CommaList, Id, Input, IsoDate, IsoTimestamp, PageQuery, Read, Text

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]
Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
# Free text every list or detail answers whole (description, metadata, a goal's description, a decision and its
# rationale): bounded, so that a few values cannot push the project list past the 6 MB a Lambda may answer
# (security audit S6)
LongText = Text(50_000)
Status = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)]


MAX_FILTER_VALUES = 100  # per comma-separated filter (docs/decisions/projects.md)
Filter = CommaList(MAX_FILTER_VALUES)


class ProjectListQuery(PageQuery):
    company_id: Optional[str] = None
    status: Filter = None
    type_id: Filter = None
    owner_id: Filter = None
    squad: Filter = None
    search: Optional[str] = None


class ProjectFields(Input):
    description: Optional[LongText] = None
    company_id: Optional[Id] = None
    type_id: Optional[Id] = None
    status: Optional[Status] = None
    owner_id: Optional[Id] = None
    delivery_manager_id: Optional[Id] = None
    squad: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]] = None
    start_date: CalendarDate = None
    end_date: CalendarDate = None
    metadata: Optional[LongText] = None
    sla_policy_id: Optional[Id] = None
    auto_ticket_from_email: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=320)]] = None


class ProjectCreate(ProjectFields):
    NOT_NULL = frozenset({"name", "status"})

    name: Name


class ProjectUpdate(ProjectFields):
    NOT_NULL = frozenset({"name", "status"})

    name: Optional[Name] = None


class MemberAdd(Input):
    user_id: Id
    role: Optional[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)]] = None


class GoalCreate(Input):
    title: Title
    description: Optional[LongText] = None
    status: Optional[Status] = None
    due_date: CalendarDate = None
    position: Optional[int] = Field(default=None, ge=-1_000_000, le=1_000_000, strict=True)


class GoalUpdate(Input):
    NOT_NULL = frozenset({"title", "position", "status"})

    title: Optional[Title] = None
    description: Optional[LongText] = None
    status: Optional[Status] = None
    due_date: CalendarDate = None
    position: Optional[int] = Field(default=None, ge=-1_000_000, le=1_000_000, strict=True)


class DecisionCreate(Input):
    title: Title
    decision: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50_000)]
    rationale: Optional[LongText] = None
    decided_by: Optional[Id] = None
    decided_at: CalendarDate = None
    status: Optional[Status] = None


class DecisionUpdate(Input):
    NOT_NULL = frozenset({"title", "decision", "status"})

    title: Optional[Title] = None
    decision: Optional[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50_000)]] = None
    rationale: Optional[LongText] = None
    decided_by: Optional[Id] = None
    decided_at: CalendarDate = None
    status: Optional[Status] = None


class DealLinkPut(Input):
    deal_id: Optional[Id] = None


# --- read models ----------------------------------------------------------------------------------

class ProjectRead(Read):
    """A project as the list answers it."""
    id: str
    name: str
    description: str | None
    company_id: str | None
    type_id: str | None
    status: str
    owner_id: str | None
    delivery_manager_id: str | None
    squad: str | None
    start_date: IsoDate | None
    end_date: IsoDate | None
    metadata: str | None
    sla_policy_id: str | None
    auto_ticket_from_email: str | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    owner_name: str | None
    delivery_manager_name: str | None
    type_label: str | None
    type_value: str | None
    member_count: int
    company_name: str | None
    task_count: int


class ProjectFullRead(ProjectRead):
    """A project as the detail, create and update answer it: the list shape with the owner's picture and
    the SLA policy fields (null without a policy)."""
    owner_picture: str | None
    sla_policy_name: str | None
    sla_response_hours: float | None
    sla_resolution_hours: float | None


class MemberRead(Read):
    id: str
    project_id: str
    user_id: str
    role: str
    created_at: IsoTimestamp
    name: str | None
    picture: str | None
    job_title: str | None


class GoalRead(Read):
    id: str
    project_id: str
    title: str
    description: str | None
    status: str | None
    due_date: IsoDate | None
    position: int
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class ProjectDetail(Read):
    project: ProjectFullRead
    members: list[MemberRead]
    goals: list[GoalRead]
    goals_limit: int | None = Field(None, description="present only when the goals were too long to answer together "
                                                      "(6 MB): how many `goals` carries, the first ones; the rest "
                                                      "from GET /api/projects/:id/goals?offset=goals_limit")


class DecisionRead(Read):
    id: str
    project_id: str
    title: str
    decision: str
    rationale: str | None
    decided_by: str | None
    decided_at: IsoDate | None
    status: str
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    decided_by_name: str | None


class ProjectTaskRead(Read):
    """A top-level task of the project (served by the tasks area)."""
    id: str
    title: str
    status_id: str | None
    priority_id: str | None
    assignee_id: str | None
    due_date: IsoDate | None
    sort_order: float | None
    created_at: IsoTimestamp
    assignee_name: str | None
    assignee_picture: str | None
    status_label: str | None
    status_color: str | None
    status_value: str | None
    priority_label: str | None
    priority_color: str | None


class AiSummaryRead(Read):
    id: str
    project_id: str
    summary_text: str
    recommendations: list[str]
    generated_at: IsoTimestamp


class AiSummaryResponse(Read):
    summary: AiSummaryRead | None


class DealLinkRead(Read):
    id: str
    project_id: str
    deal_id: str
    deal_title: str | None
    deal_status: str | None
    linked_by: str | None
    created_at: IsoTimestamp


class DealLinkResponse(Read):
    deal_link: DealLinkRead | None
