"""Request and read models of sprints (unknown fields are ignored)."""
from __future__ import annotations

from typing import Optional

from chalicelib.core.schemas import CalendarDate, Id, Input, IsoDate, IsoTimestamp, Name, PageQuery, Read, choice

Status = choice("planned", "active", "closed")


class SprintCreate(Input):
    NOT_NULL = frozenset({"project_id", "name", "status"})

    project_id: Id
    name: Name
    start_date: CalendarDate = None
    end_date: CalendarDate = None
    status: Status = "planned"


class SprintUpdate(SprintCreate):
    project_id: Optional[Id] = None
    name: Optional[Name] = None
    status: Optional[Status] = None


class SprintListQuery(PageQuery):
    NOT_NULL = frozenset({"project_id", "status"})

    project_id: Optional[Id] = None
    status: Optional[Status] = None


# --- read models ----------------------------------------------------------------------------------

class SprintRead(Read):
    id: str
    project_id: str
    name: str
    start_date: IsoDate | None
    end_date: IsoDate | None
    status: str
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    project_name: str | None
