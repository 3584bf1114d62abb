"""Request and read models of service levels (unknown fields are ignored)."""
from __future__ import annotations

from typing import Annotated, Literal, Optional

from pydantic import Field

from chalicelib.core.schemas import Flag01, Id, Input, IsoTimestamp, Name, PageQuery, Read, Text, Timestamp

# A JSON number (strict: a boolean or a numeric string is a wrong type, 400, decisions.md section 4).
Hours = Annotated[float, Field(gt=0, le=100_000, strict=True)]
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


class TaskSlaAssign(Input):
    NOT_NULL = frozenset({"policy_id"})

    policy_id: Id
    created_at: Timestamp = None


class ComplianceQuery(Input):
    policy_id: Optional[Id] = None


class TaskSlaRead(Read):
    id: str
    task_id: str
    policy_id: str
    priority_id: str | None
    created_at: IsoTimestamp
    response_deadline: IsoTimestamp
    resolution_deadline: IsoTimestamp
    responded_at: IsoTimestamp | None
    resolved_at: IsoTimestamp | None
    response_met: Flag01
    resolution_met: Flag01
    response_breached: Flag01
    resolution_breached: Flag01
    policy_name: str
    response_hours: float | None
    resolution_hours: float | None
    priority_label: str | None


class TaskSlaResponse(Read):
    sla: TaskSlaRead | None


class SlaMarkResponse(Read):
    ok: Literal[True]
    breached: bool


class ComplianceEntry(Read):
    policy_id: str
    policy_name: str
    total: int
    response_breaches: int
    resolution_breaches: int
    open_response_breaches: int
    open_resolution_breaches: int


class AtRiskEntry(Read):
    id: str
    title: str
    response_deadline: IsoTimestamp
    resolution_deadline: IsoTimestamp
    policy_name: str
    assignee_name: str | None


class ComplianceReport(Read):
    compliance: list[ComplianceEntry]
    at_risk: list[AtRiskEntry]
