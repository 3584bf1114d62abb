"""Request and read models of roadmaps (unknown fields are ignored)."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import Field, StringConstraints, ValidationInfo, field_validator

from chalicelib.core.schemas import (CalendarDate, HexColour, Id, Input, IsoDate, IsoTimestamp, Name, PageQuery, Read,
                                     Text)

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
Description = Text(20000)
Position = Annotated[int, Field(ge=0, le=1_000_000, strict=True)]


class _Dates(Input):
    @field_validator("end_date", check_fields=False)
    @classmethod
    def _range(cls, end, info: ValidationInfo):
        """A range sent ending before it starts is a 400 naming end_date (start_date is declared, so validated,
        first), as the core names a field: a model validator's detail named `body` (session 32, audit "error bodies
        that name the wrong field"). An update sending one date is checked against the stored other by the service."""
        start = info.data.get("start_date")
        if start is not None and end is not None and end < start:
            raise ValueError("must not be before start_date")
        return end


class RoadmapCreate(_Dates):
    NOT_NULL = frozenset({"name"})

    name: Name
    description: Optional[Description] = None
    project_id: Optional[Id] = None
    start_date: CalendarDate = None
    end_date: CalendarDate = None


class RoadmapUpdate(RoadmapCreate):
    name: Optional[Name] = None


class RoadmapListQuery(PageQuery):
    project_id: Optional[Id] = None


class RoadmapItemCreate(_Dates):
    NOT_NULL = frozenset({"title", "position"})

    title: Title
    description: Optional[Description] = None
    goal_id: Optional[Id] = None
    area: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)]] = None
    start_date: CalendarDate = None
    end_date: CalendarDate = None
    color: HexColour = None
    position: Position = 0



class RoadmapItemUpdate(RoadmapItemCreate):
    title: Optional[Title] = None
    position: Optional[Position] = None


# --- read models ----------------------------------------------------------------------------------

class RoadmapRead(Read):
    id: str
    name: str
    description: str | None
    project_id: str | None
    start_date: IsoDate | None
    end_date: IsoDate | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    item_count: int


class RoadmapItemRead(Read):
    id: str
    roadmap_id: str
    title: str
    description: str | None
    goal_id: str | None
    area: str | None
    start_date: IsoDate | None
    end_date: IsoDate | None
    color: str | None
    position: int
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    goal_title: str | None


class RoadmapTaskRead(Read):
    """A task linked to a roadmap item (served by the tasks area)."""
    id: str
    title: str
    roadmap_item_id: str | None
    status_id: str | None
    priority_id: str | None
    assignee_id: str | None
    due_date: IsoDate | None
    start_date: IsoDate | None
    sort_order: float | None
    created_at: IsoTimestamp
    assignee_name: str | None
    status_label: str | None
    status_color: str | None
    status_value: str | None


class RoadmapDetail(Read):
    roadmap: RoadmapRead
    items: list[RoadmapItemRead] = Field(description="in position order; fewer than the roadmap's item_count when "
                                                     "they are too long to answer together (6 MB): the rest from "
                                                     "GET /api/roadmaps/:id/items?offset=<how many are here>")
    tasks: list[RoadmapTaskRead] = Field(description="the first 500 in list order")
    tasks_total: int = Field(description="how many visible tasks the items have (all of them: "
                                         "GET /api/tasks?roadmap_item_id= pages through them)")


