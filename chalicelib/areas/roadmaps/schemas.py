"""Request models of roadmaps (unknown fields are ignored)."""
from __future__ import annotations

import re
from typing import Annotated, Optional

from pydantic import Field, StringConstraints, field_validator, model_validator

from chalicelib.core.schemas import CalendarDate, Id, Input, Name

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
Text = Annotated[str, StringConstraints(max_length=20000)]
Position = Annotated[int, Field(ge=0, le=1_000_000, strict=True)]
_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")


def _hex_color(value):
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not _HEX.match(value):
        raise ValueError("must be a hex colour such as #3b82f6")
    return value.lower()


class _Dates(Input):
    @model_validator(mode="after")
    def _range(self):
        start, end = getattr(self, "start_date", None), getattr(self, "end_date", None)
        if start is not None and end is not None and end < start:
            raise ValueError("end_date must not be before start_date")
        return self


class RoadmapCreate(_Dates):
    NOT_NULL = frozenset({"name"})

    name: Name
    description: Optional[Text] = None
    project_id: Optional[Id] = None
    start_date: CalendarDate = None
    end_date: CalendarDate = None


class RoadmapUpdate(RoadmapCreate):
    name: Optional[Name] = None


class RoadmapQuery(Input):
    project_id: Optional[Id] = None


class ItemCreate(_Dates):
    NOT_NULL = frozenset({"title", "position"})

    title: Title
    description: Optional[Text] = None
    goal_id: Optional[Id] = None
    area: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)]] = None
    start_date: CalendarDate = None
    end_date: CalendarDate = None
    color: Optional[str] = None
    position: Position = 0

    _color = field_validator("color", mode="before")(_hex_color)


class ItemUpdate(ItemCreate):
    title: Optional[Title] = None
    position: Optional[Position] = None
