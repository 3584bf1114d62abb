"""Request models of sprints (unknown fields are ignored)."""
from __future__ import annotations

from datetime import date
from typing import Literal, Optional

from chalicelib.core.schemas import Id, Input, Name

Status = Literal["planned", "active", "closed"]


class SprintCreate(Input):
    NOT_NULL = frozenset({"project_id", "name", "status"})

    project_id: Id
    name: Name
    start_date: Optional[date] = None
    end_date: Optional[date] = None
    status: Status = "planned"


class SprintUpdate(SprintCreate):
    project_id: Optional[Id] = None
    name: Optional[Name] = None
    status: Optional[Status] = None


class SprintQuery(Input):
    NOT_NULL = frozenset({"project_id", "status"})

    project_id: Optional[Id] = None
    status: Optional[Status] = None
