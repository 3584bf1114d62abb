"""Request and read models of research briefs, and the schema a generated brief must meet."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from chalicelib.core.schemas import Flag01, Id, Input, IsoTimestamp, Read, choice

from .models import ENTITY_TYPES, STATUSES


class ResearchRun(Input):
    NOT_NULL = frozenset({"entity_type", "entity_id"})

    entity_type: choice(*ENTITY_TYPES)
    entity_id: Id
    store_url: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000)]] = None


Line = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]


class BriefContent(BaseModel):
    """What the AI provider must answer (extra keys dropped); anything else stores a failed brief."""
    model_config = ConfigDict(extra="ignore")

    company_summary: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
    offering: list[Line] = Field(default_factory=list, max_length=20)
    platform: Optional[Annotated[str, StringConstraints(max_length=50)]] = None
    talking_points: list[Line] = Field(..., min_length=1, max_length=10)
    questions: list[Line] = Field(default_factory=list, max_length=10)
    risks: list[Line] = Field(default_factory=list, max_length=10)


class BriefRead(Read):
    id: str
    entity_type: choice(*ENTITY_TYPES)
    entity_id: str
    deal_id: str | None
    company_id: str | None
    url: str
    status: choice(*STATUSES)
    platform_detected: Flag01
    platform: str | None
    brief_content: dict | None
    error: str | None
    refreshed_from_id: str | None
    created_by: str | None
    created_by_name: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
