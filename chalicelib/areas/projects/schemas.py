"""Request models of the projects area. Unknown fields are ignored; read-only fields are never written."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import Field, StringConstraints

from chalicelib.core.schemas import CalendarDate, Id, Input

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]
Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
Status = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)]


class ProjectListQuery(Input):
    company_id: Optional[str] = None
    status: Optional[str] = None
    type_id: Optional[str] = None
    owner_id: Optional[str] = None
    squad: Optional[str] = None
    search: Optional[str] = None


class ProjectFields(Input):
    description: Optional[str] = None
    company_id: Optional[Id] = None
    type_id: Optional[Id] = None
    status: Optional[Status] = None
    owner_id: Optional[Id] = None
    delivery_manager_id: Optional[Id] = None
    squad: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]] = None
    start_date: CalendarDate = None
    end_date: CalendarDate = None
    metadata: Optional[str] = None
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
    description: Optional[str] = None
    status: Optional[Status] = None
    due_date: CalendarDate = None
    position: Optional[int] = Field(default=None, ge=-1_000_000, le=1_000_000)


class GoalUpdate(Input):
    NOT_NULL = frozenset({"title", "position", "status"})

    title: Optional[Title] = None
    description: Optional[str] = None
    status: Optional[Status] = None
    due_date: CalendarDate = None
    position: Optional[int] = Field(default=None, ge=-1_000_000, le=1_000_000)


class DecisionCreate(Input):
    title: Title
    decision: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
    rationale: Optional[str] = None
    decided_by: Optional[Id] = None
    decided_at: CalendarDate = None
    status: Optional[Status] = None


class DecisionUpdate(Input):
    NOT_NULL = frozenset({"title", "decision", "status"})

    title: Optional[Title] = None
    decision: Optional[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]] = None
    rationale: Optional[str] = None
    decided_by: Optional[Id] = None
    decided_at: CalendarDate = None
    status: Optional[Status] = None


class DealLinkPut(Input):
    deal_id: Optional[Id] = None
