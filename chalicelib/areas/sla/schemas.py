"""Request and read models of service levels (unknown fields are ignored)."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import Field

from chalicelib.core.schemas import Id, Input, IsoTimestamp, Name, PageQuery, Read, Text

Hours = Annotated[float, Field(gt=0, le=100_000)]
Description = Text(20000)


class SlaRuleInput(Input):
    NOT_NULL = frozenset({"priority_id", "response_hours", "resolution_hours"})

    priority_id: Id
    response_hours: Hours
    resolution_hours: Hours


class SlaPolicyCreate(Input):
    NOT_NULL = frozenset({"name", "rules"})

    name: Name
    description: Optional[Description] = None
    company_id: Optional[Id] = None
    rules: list[SlaRuleInput] = Field(default_factory=list, max_length=100)


class SlaPolicyUpdate(SlaPolicyCreate):
    name: Optional[Name] = None
    rules: Optional[list[SlaRuleInput]] = Field(None, max_length=100)


class SlaPolicyListQuery(PageQuery):
    company_id: Optional[Id] = None


# --- read models ----------------------------------------------------------------------------------

class SlaRuleRead(Read):
    id: str
    priority_id: str
    response_hours: float
    resolution_hours: float
    priority_label: str | None
    priority_value: str | None
    priority_color: str | None
    priority_position: int | None


class SlaPolicyRead(Read):
    id: str
    name: str
    description: str | None
    company_id: str | None
    company_name: str | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    rules: list[SlaRuleRead]
