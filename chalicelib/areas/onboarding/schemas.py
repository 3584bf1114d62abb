"""Request and read models of client onboarding templates and progress (unknown fields are ignored)."""
from __future__ import annotations

import re
from typing import Annotated, Literal, Optional

from pydantic import AfterValidator, Field, StringConstraints

from chalicelib.core.schemas import Flag, Flag01, Id, Input, IsoTimestamp, Name, Read, Text

Label = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
Color = Annotated[str, StringConstraints(strip_whitespace=True, max_length=50)]
Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]
Order = Annotated[int, Field(ge=0, le=1_000_000, strict=True)]


def _source_code(value: str) -> str:
    """A milestone's auto_source in its code form: lower-case, each run of spaces, hyphens and underscores one
    underscore (session 32, "labels" audit). The sources that fire are codes compared exactly (`deal_won`,
    `project_created`, `first_invoice`), so "Project_Created" or "first invoice" never completed its milestone."""
    return re.sub(r"[\s_-]+", "_", value.lower())


# after the strip and the length check: a blank one is still a 400
Source = Annotated[Label, AfterValidator(_source_code)]
Description = Text(20_000)


class TemplateCreate(Input):
    NOT_NULL = frozenset({"name"})

    name: Name
    description: Optional[Description] = None


class TemplateUpdate(Input):
    NOT_NULL = frozenset({"name", "is_default", "is_active"})

    name: Optional[Name] = None
    description: Optional[Description] = None
    is_default: Optional[Flag] = None
    is_active: Optional[Flag] = None


class StageCreate(Input):
    NOT_NULL = frozenset({"name", "stage_type"})

    name: Name
    stage_type: Label
    description: Optional[Description] = None
    color: Optional[Color] = None


class StageUpdate(Input):
    NOT_NULL = frozenset({"name", "stage_type", "sort_order"})

    name: Optional[Name] = None
    stage_type: Optional[Label] = None
    description: Optional[Description] = None
    color: Optional[Color] = None
    sort_order: Optional[Order] = None


class MilestoneCreate(Input):
    NOT_NULL = frozenset({"title", "is_required"})

    title: Title
    description: Optional[Description] = None
    is_required: Flag = True
    auto_source: Optional[Source] = None


class MilestoneUpdate(Input):
    NOT_NULL = frozenset({"title", "is_required", "sort_order"})

    title: Optional[Title] = None
    description: Optional[Description] = None
    is_required: Optional[Flag] = None
    auto_source: Optional[Source] = None
    sort_order: Optional[Order] = None


class StageOrder(Input):
    NOT_NULL = frozenset({"id", "sort_order"})

    id: Id
    sort_order: Order


class MilestoneOrder(Input):
    NOT_NULL = frozenset({"id", "stage_id", "sort_order"})

    id: Id
    stage_id: Id
    sort_order: Order


class ReorderBody(Input):
    NOT_NULL = frozenset({"stages", "milestones"})

    stages: list[StageOrder] = Field(default_factory=list, max_length=500)
    milestones: list[MilestoneOrder] = Field(default_factory=list, max_length=2000)


class StartBody(Input):
    template_id: Optional[Id] = None


class TemplateChangeBody(Input):
    """PUT /api/clients/:companyId/onboarding: the active template a started onboarding moves to."""
    NOT_NULL = frozenset({"template_id"})

    template_id: Id


# --- read models ----------------------------------------------------------------------------------

class TemplateRead(Read):
    id: str
    name: str
    description: str | None
    is_default: Flag01
    is_active: Flag01
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    stage_count: int
    milestone_count: int
    clients_using: int


class MilestoneRead(Read):
    id: str
    stage_id: str
    title: str
    description: str | None
    is_required: Flag01
    auto_source: str | None
    sort_order: int


class StageRead(Read):
    id: str
    template_id: str
    name: str
    stage_type: str
    description: str | None
    color: str | None
    sort_order: int
    milestones: list[MilestoneRead]


class TemplateDetailResponse(Read):
    template: TemplateRead
    stages: list[StageRead]
    clients_using: int


class DeleteResponse(Read):
    ok: Literal[True]
    soft_disabled: bool | None = None


class ProgressMilestone(MilestoneRead):
    completed_at: IsoTimestamp | None
    completed_by: str | None
    source: str | None


class ProgressStage(Read):
    id: str
    name: str
    stage_type: str
    color: str | None
    sort_order: int
    milestones: list[ProgressMilestone]


class CurrentStage(Read):
    id: str
    name: str
    stage_type: str


class ProgressRead(Read):
    id: str
    company_id: str
    template_id: str
    template_name: str
    started_at: IsoTimestamp
    completed_at: IsoTimestamp | None
    percent_complete: int
    current_stage: CurrentStage | None
    stages: list[ProgressStage]


class ProgressResponse(Read):
    onboarding: ProgressRead | None
