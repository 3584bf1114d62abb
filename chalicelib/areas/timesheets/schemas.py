"""Request models of time entries (unknown fields are ignored); their read model, TimeEntryRead, is the core's
(core/schemas.py), since a budget's detail answers it too."""
from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Optional

from pydantic import Field, StringConstraints, ValidationInfo, field_validator

from chalicelib.core.schemas import CalendarDate, Flag, Id, Input, JsonNumber, PageQuery, choice

# Hours are a JSON number: a string or a boolean is a wrong type (decisions.md section 4: 400).
Hours = Annotated[Decimal, Field(gt=0, le=24, max_digits=4, decimal_places=2), JsonNumber]
# Free text of at most 5000 characters, stripped.
Note = Annotated[str, StringConstraints(strip_whitespace=True, max_length=5000)]
# Approved and rejected are reached only through the approve and reject actions.
WritableStatus = choice("draft", "submitted")
WRITABLE_STATUSES = ("draft", "submitted")
Status = choice("draft", "submitted", "approved", "rejected")


class TimeEntryCreate(Input):
    NOT_NULL = frozenset({"user_id", "date", "hours", "billable", "status"})

    user_id: Optional[Id] = None
    date: CalendarDate
    hours: Hours
    task_id: Optional[Id] = None
    project_id: Optional[Id] = None
    budget_id: Optional[Id] = None
    line_item_id: Optional[Id] = None
    billable: Flag = True
    status: WritableStatus = "draft"
    description: Optional[Note] = None


class TimeEntryUpdate(TimeEntryCreate):
    date: CalendarDate = None
    hours: Optional[Hours] = None
    billable: Optional[Flag] = None
    # any status, so that a record read and sent back (a rejected entry says `rejected`) is accepted: the stored
    # status sent back is dropped, a change to other than WRITABLE_STATUSES is a 400 (service.update_entry)
    status: Optional[Status] = None


class RejectBody(Input):
    reason: Optional[Note] = None


class TimeEntryListQuery(PageQuery):
    NOT_NULL = frozenset({"user_id", "status"})

    user_id: Optional[Id] = None
    project_id: Optional[Id] = None
    task_id: Optional[Id] = None
    budget_id: Optional[Id] = None
    status: Optional[Status] = None
    date_from: CalendarDate = None
    date_to: CalendarDate = None

    @field_validator("date_to")
    @classmethod
    def _range(cls, value, info: ValidationInfo):
        """A range that ends before it starts is a 400 naming date_to (date_from is validated first)."""
        start = info.data.get("date_from")
        if start and value and value < start:
            raise ValueError("must not be before date_from")
        return value

