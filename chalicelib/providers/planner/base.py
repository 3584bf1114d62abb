"""Resource planner: the interface every planner adapter implements (Productive live, a database sandbox)."""
from __future__ import annotations

from abc import ABC, abstractmethod


class PlannerProvider(ABC):
    @abstractmethod
    def verify(self) -> dict:
        """Check the token: `{organization_id, org_name}`; BadRequest (400) with the provider's message
        when the provider refuses it."""

    @abstractmethod
    def list_people(self) -> list[dict]:
        """People of the organisation: `[{id, email, name}]`."""

    @abstractmethod
    def create_booking(self, *, person_id: str, started_on: str, ended_on: str, hours_per_day: float = 8.0,
                       note: str | None = None, event_id: str | None = None) -> dict:
        """Book a person (leave: an absence event) from `started_on` to `ended_on` (YYYY-MM-DD): `{id}`."""

    @abstractmethod
    def delete_booking(self, booking_id: str) -> None:
        """Remove a booking (a booking already gone is not an error)."""
