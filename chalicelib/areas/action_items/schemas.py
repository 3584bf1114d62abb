"""Request and read models of action items (unknown fields are ignored)."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import Field, StringConstraints

from chalicelib.core.schemas import (CalendarDate, CommaList, Flag, Flag01, Id, Input, IsoDate, IsoTimestamp, Read,
                                     Text, choice)

from .models import URGENCIES

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
Module = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)]
Urgency = choice(*URGENCIES)
PAGE_SIZE, PAGE_MAX = 50, 100  # document 1, Limits: action items page size
Names = CommaList(50, item_length=50)  # a module or source type filter: at most 50 names of at most 50 characters


class ActionItemListQuery(Input):
    source_module: Names = None
    source_type: Names = None
    urgency: Optional[Urgency] = None
    company_id: Optional[Id] = None
    project_id: Optional[Id] = None
    assigned_to: Optional[Id] = None
    is_completed: choice("0", "1") = "0"
    page: int = Field(1, ge=1, le=1_000_000)
    limit: int = Field(PAGE_SIZE, ge=1, le=PAGE_MAX)


class ActionCentreQuery(Input):
    sprint_id: Optional[Id] = None


class ActionItemCreate(Input):
    NOT_NULL = frozenset({"title"})

    title: Title
    description: Optional[Text(20000)] = None
    company_id: Optional[Id] = None
    contact_id: Optional[Id] = None
    deal_id: Optional[Id] = None
    project_id: Optional[Id] = None
    assigned_to: Optional[Id] = None
    due_date: CalendarDate = None
    notes: Optional[Text(20000)] = None


class ActionItemUpdate(Input):
    NOT_NULL = frozenset({"title", "urgency"})

    title: Optional[Title] = None
    description: Optional[Text(20000)] = None
    assigned_to: Optional[Id] = None
    due_date: CalendarDate = None
    notes: Optional[Text(20000)] = None
    urgency: Optional[Urgency] = None


class ActionItemPreferenceInput(Input):
    NOT_NULL = frozenset({"source_module", "is_visible", "show_in_feed", "show_work_board"})

    source_module: Module
    is_visible: Flag = True
    show_in_feed: Flag = True
    show_work_board: Flag = True


class ActionItemPreferencesUpdate(Input):
    NOT_NULL = frozenset({"preferences"})

    preferences: list[ActionItemPreferenceInput] = Field(..., max_length=100)


# --- read models ----------------------------------------------------------------------------------

class ActionItemRead(Read):
    id: str
    title: str
    description: str | None
    company_id: str | None
    contact_id: str | None
    deal_id: str | None
    project_id: str | None
    assigned_to: str | None
    created_by: str | None
    due_date: IsoDate | None
    notes: str | None
    urgency: Urgency
    source_module: str
    source_type: str | None
    source_id: str | None
    is_completed: Flag01
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    assigned_user_name: str | None
    assigned_user_picture: str | None
    contact_first_name: str | None
    contact_last_name: str | None


class ActionItemPage(Read):
    action_items: list[ActionItemRead]
    total: int
    page: int
    limit: int


class ActionItemCountsRead(Read):
    overdue: int
    today: int
    this_week: int
    total: int
    by_module: dict[str, int]


class ActionItemPreferenceRead(Read):
    source_module: str
    is_visible: Flag01
    show_in_feed: Flag01
    show_work_board: Flag01


class ActionItemPreferencesRead(Read):
    preferences: list[ActionItemPreferenceRead]


class SprintSummaryRead(Read):
    id: str
    name: str
    start_date: IsoDate | None
    end_date: IsoDate | None
    status: str
    project_id: str
    project_name: str | None
    company_name: str | None


class SprintBriefRead(Read):
    id: str
    name: str


class SprintAdjacentRead(Read):
    previous: SprintBriefRead | None
    next: SprintBriefRead | None


class CentreTaskRead(Read):
    """A sprint or backlog task on the work board (served by the tasks area)."""
    id: str
    title: str
    sprint_id: str | None
    parent_task_id: str | None
    status_id: str | None
    priority_id: str | None
    type_id: str | None
    assignee_id: str | None
    due_date: IsoDate | None
    start_date: IsoDate | None
    sort_order: float | None
    created_at: IsoTimestamp
    status_label: str | None
    status_color: str | None
    status_value: str | None
    priority_label: str | None
    priority_color: str | None
    type_label: str | None
    type_color: str | None
    assignee_name: str | None
    assignee_picture: str | None
    project_id: str | None
    project_name: str | None
    company_name: str | None


class ActionCentreRead(Read):
    action_items: list[ActionItemRead]
    counts: ActionItemCountsRead
    preferences: list[ActionItemPreferenceRead]
    show_work_board: bool
    current_sprint: SprintSummaryRead | None
    sprint_tasks: list[CentreTaskRead]
    backlog_tasks: list[CentreTaskRead]
    sprint_adjacent: SprintAdjacentRead
