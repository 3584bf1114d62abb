"""Resource planner: the interface every planner adapter implements (Productive live, a database sandbox)."""
from __future__ import annotations

from abc import ABC, abstractmethod
from decimal import ROUND_HALF_UP, Decimal


def minutes_per_day(hours_per_day) -> int:
    """The whole minutes a day of a booking of `hours_per_day` (a Decimal, an int or a float, taken as written):
    exact in Decimal, half up (37.5 minutes is 38), never rounded in binary floating point."""
    minutes = Decimal(str(hours_per_day)) * 60
    return int(minutes.quantize(Decimal(1), rounding=ROUND_HALF_UP))


class PlannerProvider(ABC):
    @abstractmethod
    def verify(self) -> dict:
        """Check the token: `{organization_id, org_name}`; BadRequest (400) with the provider's message
        when the provider refuses it."""

    @abstractmethod
    def list_people(self) -> list[dict]:
        """People of the organisation: `[{id, email, name}]`."""

    @abstractmethod
    def create_booking(self, *, person_id: str, started_on: str, ended_on: str,
                       hours_per_day: float | Decimal = 8.0, note: str | None = None,
                       event_id: str | None = None) -> dict:
        """Book a person (leave: an absence event) from `started_on` to `ended_on` (YYYY-MM-DD), the same time each
        day: `hours_per_day`, which the planner takes in whole minutes (`minutes_per_day`): `{id}`."""

    @abstractmethod
    def find_booking(self, *, person_id: str, started_on: str, ended_on: str, note: str,
                     event_id: str | None = None) -> dict | None:
        """The person's booking from exactly `started_on` to `ended_on` whose note holds `note` (and in `event_id`,
        when named): `{id}`, else None. What a retry asks before booking again: a booking made whose answer was lost
        (a timeout) is found and taken, not made twice (session 27; the note names the leave request)."""

    @abstractmethod
    def delete_booking(self, booking_id: str) -> None:
        """Remove a booking (a booking already gone is not an error)."""
