"""Request and read models of the leave area (unknown fields are ignored)."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import Field, field_validator

from chalicelib.core.schemas import (CalendarDate, Flag01, Input, IsoDate, IsoTimestamp, JsonNumber, Money, Name, Read,
                                     Text, choice, non_blank)

from .models import STATUSES

LeaveTypeId = Annotated[str, Field(min_length=1, max_length=100)]
# a JSON number (docs/decisions/leave.md: "a positive number"): core Money alone would take a numeric string ("7.5"),
# a wrong type every other number of a request refuses (decisions.md section 4; session 29)
Hours = Annotated[Money, JsonNumber, Field(gt=0, le=10000)]


class LeaveRequestCreate(Input):
    NOT_NULL = frozenset({"leave_type_id", "leave_type_name", "start_date", "end_date"})

    leave_type_id: LeaveTypeId
    leave_type_name: Name
    start_date: CalendarDate
    end_date: CalendarDate
    total_hours: Optional[Hours] = None
    notes: Optional[Text(5000)] = None

    _type_id = field_validator("leave_type_id")(non_blank)


class LeaveReject(Input):
    NOT_NULL = frozenset({"reason"})

    reason: Text(2000)

    _reason = field_validator("reason")(non_blank)


class LeaveListQuery(Input):
    tab: choice("mine", "pending", "all") = "mine"


class LeaveTypeRead(Read):
    id: str
    name: str
    is_paid: Flag01


class LeaveBalanceRead(Read):
    id: str
    leave_type_id: str
    leave_type_name: str
    balance_hours: float
    fetched_at: IsoTimestamp


class LeaveRequestRead(Read):
    id: str
    user_id: str
    user_name: str | None
    user_picture: str | None
    leave_type_id: str
    leave_type_name: str
    start_date: IsoDate
    end_date: IsoDate
    total_hours: float | None
    notes: str | None
    status: choice(*STATUSES)
    manager_approved_by: str | None
    manager_approved_at: IsoTimestamp | None
    exec_approved_by: str | None
    exec_approved_at: IsoTimestamp | None
    rejected_by: str | None
    rejected_at: IsoTimestamp | None
    rejection_reason: str | None
    cancelled_by: str | None
    cancelled_at: IsoTimestamp | None
    ledger_leave_application_id: str | None
    planner_booking_id: str | None
    calendar_event_id: str | None
    chat_message_ts: str | None
    integration_errors: dict[str, str] | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class LeaveHistoryRead(Read):
    id: str
    action: str
    actor_id: str | None
    actor_name: str | None
    comment: str | None
    created_at: IsoTimestamp


class LeaveRequestDetail(Read):
    request: LeaveRequestRead
    history: list[LeaveHistoryRead]


class PendingCountRead(Read):
    count: int
