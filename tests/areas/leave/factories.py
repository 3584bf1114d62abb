"""Factories for the leave area: plain functions that add, flush and return."""
from __future__ import annotations

from datetime import date

from chalicelib.areas.leave.models import LeaveRequest


def make_leave(db, user, **overrides) -> LeaveRequest:
    values = {"user_id": user.id, "leave_type_id": "annual", "leave_type_name": "Annual Leave",
              "start_date": date(2026, 12, 1), "end_date": date(2026, 12, 3), "status": "pending_manager"}
    values.update(overrides)
    request = LeaveRequest(**values)
    db.add(request)
    db.flush()
    return request
