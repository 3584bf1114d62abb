"""Request and read models of time entries (unknown fields are ignored)."""
from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Optional

from pydantic import Field, StringConstraints, model_validator

from chalicelib.core.schemas import (CalendarDate, Flag, Flag01, Id, Input, IsoDate, IsoTimestamp, PageQuery, Read,
                                     choice)

Hours = Annotated[Decimal, Field(gt=0, le=24, max_digits=4, decimal_places=2)]
# Free text of at most 5000 characters, stripped.
Note = Annotated[str, StringConstraints(strip_whitespace=True, max_length=5000)]
# Approved and rejected are reached only through the approve and reject actions.
WritableStatus = choice("draft", "submitted")
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
    status: Optional[WritableStatus] = None


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

    @model_validator(mode="after")
    def _range(self):
        if self.date_from and self.date_to and self.date_to < self.date_from:
            raise ValueError("date_to must not be before date_from")
        return self


# --- read models ----------------------------------------------------------------------------------

class TimeEntryRead(Read):
    id: str
    user_id: str
    date: IsoDate
    hours: float
    task_id: str | None
    project_id: str | None
    budget_id: str | None
    line_item_id: str | None
    billable: Flag01
    status: str
    description: str | None
    submitted_at: IsoTimestamp | None
    approved_by: str | None
    approved_at: IsoTimestamp | None
    rejected_by: str | None
    rejected_at: IsoTimestamp | None
    rejection_reason: str | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    user_name: str | None
    approver_name: str | None
