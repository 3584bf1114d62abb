"""Pieces every area's request models share: the base input model and common field types."""
from __future__ import annotations

import re
from datetime import date, datetime, timezone
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, StringConstraints, ValidationInfo, field_validator

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _calendar_date(value: Any) -> Any:
    """Dates are `YYYY-MM-DD` strings (or null); anything else is a 400."""
    if value is None or (isinstance(value, date) and not isinstance(value, datetime)):
        return value
    if not isinstance(value, str) or not _ISO_DATE.fullmatch(value):
        raise ValueError("must be a date in the form YYYY-MM-DD")
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError("must be a valid calendar date (YYYY-MM-DD)") from exc


def _utc_timestamp(value: datetime | None) -> datetime | None:
    """A timestamp normalised to UTC (a naive one is taken as UTC); one that leaves the representable
    range once normalised (9999-12-31T23:59:59-12:00, 0001-01-01T00:00:00+14:00) is a 400, never a
    value the database driver fails on."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    try:
        return value.astimezone(timezone.utc)
    except (OverflowError, ValueError) as exc:
        raise ValueError("must be a timestamp between years 1 and 9999 in UTC") from exc


# An ISO 8601 timestamp (or null), normalised to UTC.
Timestamp = Annotated[datetime | None, AfterValidator(_utc_timestamp)]
Id = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=36)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Search = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
# A `YYYY-MM-DD` date or null, strictly in that form (not a datetime, not a number).
CalendarDate = Annotated[date | None, BeforeValidator(_calendar_date)]


def non_blank(value: str | None) -> str | None:
    """A field validator: text stripped, and not empty once stripped (None passes: see NOT_NULL)."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        raise ValueError("must not be empty")
    return value


class Input(BaseModel):
    """A request body or query: unknown fields ignored (decisions.md section 4).

    `NOT_NULL` names the fields that may be left out but never sent as null (an update may clear an
    optional field with null, never a required one). `changes()` answers the fields the caller sent.
    """

    model_config = ConfigDict(extra="ignore")
    NOT_NULL: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_null(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None and info.field_name in cls.NOT_NULL:
            raise ValueError("may not be null")
        return value

    def changes(self) -> dict:
        """`{field: value}` for the fields present in the request, in declaration order."""
        return {name: getattr(self, name) for name in type(self).model_fields if name in self.model_fields_set}
