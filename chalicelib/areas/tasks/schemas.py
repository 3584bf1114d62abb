"""Request models of the tasks area (unknown fields are ignored, read-only fields never written)."""

from typing import Annotated, Literal

from pydantic import Field, StrictFloat, StrictStr, field_validator

from chalicelib.core.schemas import (AgentMetaRead, CalendarDate, CommaList, Flag, Flag01, Id, Input, IsoDate,
                                     IsoTimestamp, JsonNumber, Money, PageQuery, QueryFlag, Read, Timestamp)


def _required_title(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError("title is required")
    return value


Number = Annotated[StrictFloat, Field(allow_inf_nan=False)]
# Hours and a cost estimate are never below zero (session 22's input audit: -5 hours was stored and summed)
Hours = Annotated[StrictFloat, Field(ge=0, le=1_000_000, allow_inf_nan=False)]

# An exact amount (core Money) sent as a JSON number (decisions: not strings, not booleans).
MoneyNumber = Annotated[Money, JsonNumber]

# Writable task fields (decisions.md: read-only fields in a body are ignored).
WRITABLE_FIELDS = (
    "title", "description", "resource_type", "resource_id", "status_id", "priority_id", "type_id", "phase_id",
    "assignee_id", "reporter_id", "parent_task_id", "roadmap_item_id", "sprint_id", "due_date", "start_date",
    "estimated_hours", "internal_hours", "is_private", "sort_order", "reported_by_contact_id", "requirements",
    "scope", "delivery_notes", "testing_notes", "estimate_compute_hours", "estimate_total_cost",
    "approved_by_user_id", "approved_at",
)


# A task's free text (description, requirements, scope, delivery and testing notes; a resource's description): every
# list answers it whole, so a few unbounded values pushed a shared list past the 6 MB a Lambda may answer (502 to
# everyone who lists them; security audit S6)
LONG_TEXT = 50_000
LongText = Annotated[StrictStr, Field(max_length=LONG_TEXT)]

class _TaskFields(Input):
    description: LongText | None = None
    resource_type: Annotated[StrictStr, Field(max_length=50)] | None = None
    resource_id: Id | None = None
    status_id: Id | None = None
    priority_id: Id | None = None
    type_id: Id | None = None
    phase_id: Id | None = None
    assignee_id: Id | None = None
    reporter_id: Id | None = None
    parent_task_id: Id | None = None
    roadmap_item_id: Id | None = None
    sprint_id: Id | None = None
    due_date: CalendarDate = None
    start_date: CalendarDate = None
    estimated_hours: Hours | None = None
    internal_hours: Hours | None = None
    is_private: Flag | None = None
    sort_order: Number | None = None
    reported_by_contact_id: Id | None = None
    requirements: LongText | None = None
    scope: LongText | None = None
    delivery_notes: LongText | None = None
    testing_notes: LongText | None = None
    estimate_compute_hours: Hours | None = None
    estimate_total_cost: Annotated[MoneyNumber, Field(ge=0)] | None = None
    approved_by_user_id: Id | None = None
    approved_at: Timestamp = None

    def changes(self) -> dict:
        """The writable fields present in the request, with their values (in WRITABLE_FIELDS order)."""
        return {name: getattr(self, name) for name in WRITABLE_FIELDS if name in self.model_fields_set}


class TaskCreate(_TaskFields):
    title: Annotated[StrictStr, Field(max_length=500)]

    _title_not_blank = field_validator("title")(_required_title)


class TaskUpdate(_TaskFields):
    NOT_NULL = frozenset({"title", "is_private"})

    title: Annotated[StrictStr, Field(max_length=500)] | None = None

    @field_validator("title")
    @classmethod
    def _title_not_blank(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("title cannot be empty")
        return value


class SubtaskCreate(Input):
    title: Annotated[StrictStr, Field(max_length=500)] | None = None
    assignee_id: Id | None = None
    due_date: CalendarDate = None


class TodoIn(Input):
    id: Id | None = None
    title: Annotated[StrictStr, Field(min_length=1, max_length=500)]
    is_done: Flag = False
    position: Annotated[int, Field(ge=-2_147_483_648, le=2_147_483_647, strict=True)] | None = None
    assignee_id: Id | None = None
    due_date: CalendarDate = None

    _title_not_blank = field_validator("title")(_required_title)


class TodosReplace(Input):
    todos: list[TodoIn] = Field(max_length=500)  # a checklist holds at most 500 todos (decisions.md 4)


class ResourceCreate(Input):
    url: Annotated[StrictStr, Field(max_length=2000)] | None = None
    title: Annotated[StrictStr, Field(max_length=500)] | None = None
    description: LongText | None = None


class ResourceReorder(Input):
    order: list[Id] | None = Field(default=None, max_length=500)  # a task holds at most 500 resources (decisions.md 4)


MAX_FILTER_VALUES = 100  # per comma-separated filter (docs/decisions/tasks.md)
Filter = CommaList(MAX_FILTER_VALUES)


class TaskListQuery(PageQuery):
    assignee_id: Filter = None
    status_id: Filter = None
    priority_id: Filter = None
    type_id: Filter = None
    squad: Filter = None
    resource_type: str | None = None
    resource_id: str | None = None
    roadmap_item_id: str | None = None
    parent_id: str | None = None
    show_subtasks: QueryFlag = None
    due: Literal["today", "upcoming", "overdue"] | None = None
    overdue: QueryFlag = None
    search: str | None = None

    @field_validator("due", mode="before")
    @classmethod
    def _blank_due(cls, value):
        return None if value == "" else value


# --- read models ----------------------------------------------------------------------------------

class TaskRead(Read):
    id: str
    title: str
    description: str | None
    resource_type: str | None
    resource_id: str | None
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
    # joined labels and names
    assignee_name: str | None
    assignee_picture: str | None
    reporter_name: str | None
    created_by_name: str | None
    status_label: str | None
    status_color: str | None
    status_value: str | None
    priority_label: str | None
    priority_color: str | None
    priority_value: str | None
    type_label: str | None
    type_value: str | None
    phase_label: str | None
    phase_color: str | None
    approved_by_name: str | None
    # counts
    subtask_count: int
    todo_count: int
    todo_done_count: int


class TodoRead(Read):
    id: str
    task_id: str
    title: str
    is_done: Flag01
    position: int
    assignee_id: str | None
    due_date: IsoDate | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    assignee_name: str | None
    assignee_picture: str | None


class WatcherRead(Read):
    id: str
    name: str
    picture: str | None


class TaskDetail(Read):
    task: TaskRead
    todos: list[TodoRead]
    subtasks: list[TaskRead]
    watchers: list[WatcherRead]
    agent: AgentMetaRead | None


class ResourceRead(Read):
    id: str
    task_id: str
    type: str
    url: str
    title: str
    description: str | None
    icon: str
    sort_order: int | None
    created_by: str | None
    created_at: IsoTimestamp
    created_by_name: str | None


class WatchingResponse(Read):
    watching: bool
