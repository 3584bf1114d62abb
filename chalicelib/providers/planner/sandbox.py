"""Sandbox planner: bookings kept in `planner_sandbox_bookings`; people are the active users (ids derived
from their e-mail; none at the domain `noplanner.test`). A token containing `invalid` is refused as
Productive refuses it (400); a booking for an unknown person, or ending before it starts, is a 502 like
Productive's validation error."""
from __future__ import annotations

import hashlib
from datetime import date

from sqlalchemy import delete, select

from chalicelib.core.errors import BadGateway, BadRequest

from .base import PlannerProvider
from .models import PlannerSandboxBooking


def person_id(email: str) -> str:
    return str(int(hashlib.sha1(email.lower().encode()).hexdigest()[:8], 16))


class SandboxPlanner(PlannerProvider):
    def __init__(self, *, db, api_token: str) -> None:
        self.db, self.api_token = db, api_token

    def verify(self) -> dict:
        if "invalid" in self.api_token.lower():
            raise BadRequest("The resource planner refused the token: Invalid authentication token")
        return {"organization_id": "1000", "org_name": "Sandbox Agency"}

    def list_people(self) -> list[dict]:
        from chalicelib.core.models import User

        rows = self.db.execute(select(User.email, User.name).where(User.is_active.is_(True))).all()
        return [{"id": person_id(email), "email": email.lower(), "name": name} for email, name in rows
                if not email.lower().endswith("@noplanner.test")]

    def create_booking(self, *, person_id: str, started_on: str, ended_on: str, hours_per_day: float = 8.0,
                       note: str | None = None, event_id: str | None = None) -> dict:
        if person_id not in {p["id"] for p in self.list_people()}:
            raise BadGateway("The resource planner refused the request: person not found")
        start, end = date.fromisoformat(started_on), date.fromisoformat(ended_on)
        if end < start:
            raise BadGateway("The resource planner refused the request: ended_on must be after started_on")
        booking = PlannerSandboxBooking(person_id=person_id, started_on=start, ended_on=end,
                                        minutes_per_day=int(round(hours_per_day * 60)), note=note, event_id=event_id)
        self.db.add(booking)
        self.db.flush()
        return {"id": booking.id}

    def delete_booking(self, booking_id: str) -> None:
        self.db.execute(delete(PlannerSandboxBooking).where(PlannerSandboxBooking.id == booking_id))
