"""Request models of sprints (unknown fields are ignored)."""
from __future__ import annotations

from datetime import date
from typing import Annotated, Literal, Optional

from pydantic import BaseModel, ConfigDict, StringConstraints, field_validator

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Id = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=36)]
Status = Literal["planned", "active", "closed"]
REQUIRED = {"project_id", "name", "status"}


class _Input(BaseModel):
    model_config = ConfigDict(extra="ignore")

    @field_validator("*", mode="before")
    @classmethod
    def _required_not_null(cls, value, info):
        if value is None and info.field_name in REQUIRED:
            raise ValueError(f"{info.field_name} may not be null")
        return value

    def changes(self) -> dict:
        return {key: getattr(self, key) for key in self.model_fields_set}


class SprintCreate(_Input):
    project_id: Id
    name: Name
    start_date: Optional[date] = None
    end_date: Optional[date] = None
    status: Status = "planned"


class SprintUpdate(SprintCreate):
    project_id: Optional[Id] = None
    name: Optional[Name] = None
    status: Optional[Status] = None


class SprintQuery(_Input):
    project_id: Optional[Id] = None
    status: Optional[Status] = None
