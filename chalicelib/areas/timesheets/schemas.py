"""Request models of time entries (unknown fields are ignored)."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Literal, Optional

from pydantic import Field, StrictBool, StringConstraints, model_validator

from chalicelib.core.schemas import Id, Input

Hours = Annotated[Decimal, Field(gt=0, le=24, max_digits=4, decimal_places=2)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, max_length=5000)]
# Approved and rejected are reached only through the approve and reject actions.
WritableStatus = Literal["draft", "submitted"]
Status = Literal["draft", "submitted", "approved", "rejected"]


class TimeEntryCreate(Input):
    NOT_NULL = frozenset({"user_id", "date", "hours", "billable", "status"})

    user_id: Optional[Id] = None
    date: dt.date
    hours: Hours
    task_id: Optional[Id] = None
    project_id: Optional[Id] = None
    budget_id: Optional[Id] = None
    line_item_id: Optional[Id] = None
    billable: StrictBool = True
    status: WritableStatus = "draft"
    description: Optional[Text] = None


class TimeEntryUpdate(TimeEntryCreate):
    date: Optional[dt.date] = None
    hours: Optional[Hours] = None
    billable: Optional[StrictBool] = None
    status: Optional[WritableStatus] = None


class RejectBody(Input):
    reason: Optional[Text] = None


class TimeEntryQuery(Input):
    NOT_NULL = frozenset({"user_id", "status"})

    user_id: Optional[Id] = None
    project_id: Optional[Id] = None
    task_id: Optional[Id] = None
    budget_id: Optional[Id] = None
    status: Optional[Status] = None
    date_from: Optional[dt.date] = None
    date_to: Optional[dt.date] = None

    @model_validator(mode="after")
    def _range(self):
        if self.date_from and self.date_to and self.date_to < self.date_from:
            raise ValueError("date_to must not be before date_from")
        return self
