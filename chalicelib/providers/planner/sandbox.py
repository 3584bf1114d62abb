"""Sandbox planner: bookings kept in `planner_sandbox_bookings`; people are the active users (ids derived
from their e-mail; none at the domain `noplanner.test`). A token containing `invalid` is refused as
Productive refuses it (400); a booking for an unknown person, ending before it starts, or naming no absence event
(or one the sandbox does not hold) is a 502 like Productive's validation error (a 422 there): the leave bookings
made here are absence bookings, and the sandbox holds no services for budget bookings. Its absence events
(Productive's "absence categories") are SANDBOX_EVENTS; `Vacation` is the default absence event in sandbox mode.

A booking made or deleted is the planner's own doing: committed at once, in a transaction of its own, and kept
whatever becomes of the caller's (session 32: both were written in the caller's transaction, and undone with it).
`find_booking` finds a booking whose note holds the note asked for, as the live adapter does (it wanted it exact)."""
from __future__ import annotations

import hashlib
from datetime import date
from decimal import Decimal

from sqlalchemy import delete, select

from chalicelib.core.errors import BadGateway, BadRequest
from chalicelib.providers.ledger.sandbox import own_unit

from .base import PlannerProvider, minutes_per_day
from .models import PlannerSandboxBooking

SANDBOX_EVENTS = {"5001": "Vacation", "5002": "Sick leave"}  # id: name, the absence categories of the sandbox
SANDBOX_ABSENCE_EVENT_ID = "5001"  # Vacation


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

    def create_booking(self, *, person_id: str, started_on: str, ended_on: str,
                       hours_per_day: float | Decimal = 8.0, note: str | None = None,
                       event_id: str | None = None) -> dict:
        with own_unit(self) as db:  # Productive keeps the booking whatever the caller does next
            if person_id not in {p["id"] for p in self.list_people()}:
                raise BadGateway("The resource planner refused the request: person not found")
            start, end = date.fromisoformat(started_on), date.fromisoformat(ended_on)
            if end < start:
                raise BadGateway("The resource planner refused the request: ended_on must be after started_on")
            if not event_id:
                raise BadGateway("The resource planner refused the request: event can't be blank (an absence "
                                 "booking names its absence category)")
            if str(event_id) not in SANDBOX_EVENTS:
                raise BadGateway("The resource planner refused the request: event not found")
            booking = PlannerSandboxBooking(person_id=person_id, started_on=start, ended_on=end,
                                            minutes_per_day=minutes_per_day(hours_per_day), note=note,
                                            event_id=str(event_id))
            db.add(booking)
            db.flush()
        return {"id": booking.id}

    def find_booking(self, *, person_id: str, started_on: str, ended_on: str, note: str,
                     event_id: str | None = None) -> dict | None:
        conditions = [PlannerSandboxBooking.person_id == person_id,
                      PlannerSandboxBooking.started_on == date.fromisoformat(started_on),
                      PlannerSandboxBooking.ended_on == date.fromisoformat(ended_on),
                      # holds it, as the live adapter matches Productive's note (a note edited there, or kept
                      # as HTML, still holds the request's reference; session 32: the sandbox wanted it exact)
                      PlannerSandboxBooking.note.contains(note, autoescape=True)]
        if event_id:
            conditions.append(PlannerSandboxBooking.event_id == str(event_id))
        found = self.db.scalar(select(PlannerSandboxBooking.id).where(*conditions)
                               .order_by(PlannerSandboxBooking.created_at, PlannerSandboxBooking.id).limit(1))
        return {"id": found} if found else None

    def delete_booking(self, booking_id: str) -> None:
        with own_unit(self) as db:  # gone from Productive whatever the caller does next
            db.execute(delete(PlannerSandboxBooking).where(PlannerSandboxBooking.id == booking_id))
