"""Session 27 (replay27): a planner booking or team calendar event made by the provider whose answer was lost (a
timeout, recorded as that integration's error with no id). `retry-integrations` made a second one and the
cancellation removed only the recorded one: the planner kept a booking and the team calendar kept "On leave".
Now the calendar event is made with an id derived from the request (a retry meets Google's 409 `duplicate` and
takes it), and a retry looks for the planner booking made for the request (same person, dates, absence event and
note, which names the request) before making one. Through HTTP, against the sandboxes (state in the database)."""
from datetime import date

import pytest
from sqlalchemy import select

from chalicelib.core.errors import GatewayTimeout
from chalicelib.providers.planner.models import PlannerSandboxBooking
from chalicelib.providers.planner.sandbox import SandboxPlanner
from tests.areas.leave.factories import approve_leave, mapped_team

@pytest.fixture
def people(db):
    return mapped_team(db, name="Eve Employee")


def _bookings(db):
    db.expire_all()
    return list(db.scalars(select(PlannerSandboxBooking)))


def _leave_events(db):
    from chalicelib.providers.calendar.models import SandboxCalendarEvent

    db.expire_all()
    return [row for row in db.scalars(select(SandboxCalendarEvent))
            if (row.event.get("summary") or "").startswith("On leave")]


def _approved(api, people) -> str:
    _request, path, approved = approve_leave(api, people)
    assert approved.json["request"]["status"] == "approved", approved
    return path


def test_planner_booking_made_then_timed_out_is_booked_twice_and_survives_cancel(api, db, people, monkeypatch):
    real = SandboxPlanner.create_booking

    def made_then_timed_out(self, **kwargs):
        real(self, **kwargs)
        raise GatewayTimeout("The resource planner did not answer in time")

    monkeypatch.setattr(SandboxPlanner, "create_booking", made_then_timed_out)
    path = _approved(api, people)
    assert "planner" in (api.get(path, as_=people["exec"]).json["request"]["integration_errors"] or {})
    [made] = _bookings(db)
    monkeypatch.undo()
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert retried.status == 200, retried
    assert retried.json["request"]["planner_booking_id"] == made.id  # the booking made, linked: not a second one
    assert "planner" not in (retried.json["request"]["integration_errors"] or {})
    assert [b.id for b in _bookings(db)] == [made.id]
    cancelled = api.post(f"{path}/cancel", as_=people["employee"])
    assert cancelled.status == 200, cancelled
    left = _bookings(db)
    assert left == [], f"{len(left)} planner booking(s) left for a cancelled request"


def test_a_retry_does_not_take_another_requests_booking_of_the_same_dates(api, db, people, monkeypatch):
    """The booking looked for is this request's (its note names the request): another request's booking of the same
    person, dates and type (a cancelled one whose reversal failed) is left to that request."""
    from chalicelib.providers.planner.sandbox import SANDBOX_ABSENCE_EVENT_ID

    other = PlannerSandboxBooking(person_id=_person(people), started_on=date(2026, 12, 1),
                                  ended_on=date(2026, 12, 3), minutes_per_day=456,
                                  event_id=SANDBOX_ABSENCE_EVENT_ID, note="Leave: Annual Leave")
    db.add(other)
    db.flush()

    def timed_out(self, **kwargs):
        raise GatewayTimeout("The resource planner did not answer in time")

    monkeypatch.setattr(SandboxPlanner, "create_booking", timed_out)
    path = _approved(api, people)
    monkeypatch.undo()
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"]).json["request"]
    assert retried["planner_booking_id"] not in (None, other.id)
    assert len(_bookings(db)) == 2


def _person(people):
    from chalicelib.providers.planner.sandbox import person_id

    return person_id(people["employee"].email)


def test_team_calendar_event_made_then_timed_out_is_made_twice_and_survives_cancel(api, db, people, monkeypatch):
    from chalicelib.providers.calendar.sandbox import SandboxCalendar

    real = SandboxCalendar.insert_event

    def made_then_timed_out(self, *args, **kwargs):
        real(self, *args, **kwargs)
        raise GatewayTimeout("The calendar did not answer in time")

    monkeypatch.setattr(SandboxCalendar, "insert_event", made_then_timed_out)
    path = _approved(api, people)
    errors = api.get(path, as_=people["exec"]).json["request"]["integration_errors"] or {}
    assert "calendar" in errors, errors
    [made] = _leave_events(db)
    monkeypatch.undo()
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert retried.status == 200, retried
    assert retried.json["request"]["calendar_event_id"] == made.id
    assert "calendar" not in (retried.json["request"]["integration_errors"] or {})
    assert [row.id for row in _leave_events(db)] == [made.id]
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    left = _leave_events(db)
    assert left == [], f"{len(left)} team calendar event(s) left for a cancelled request"


def test_the_sandbox_calendar_takes_a_client_id_as_google_does(db):
    """Google's events.insert takes an `id` (base32hex: a-v and 0-9, 5 to 1024 characters): an id in use is 409
    `duplicate`, an invalid one 400; without one the calendar chooses."""
    from chalicelib.providers.calendar import CalendarError
    from chalicelib.providers.calendar.sandbox import SandboxCalendar

    calendar = SandboxCalendar(db=db)
    event = {"summary": "On leave — Eve", "start": {"date": "2026-12-01"}, "end": {"date": "2026-12-04"}}
    made = calendar.insert_event("eve@agency.test", "team", {**event, "id": "leave0123456789abcdefv"})
    assert made["id"] == "leave0123456789abcdefv"
    assert calendar.get_event("eve@agency.test", "team", made["id"])["summary"] == "On leave — Eve"
    with pytest.raises(CalendarError) as duplicate:
        calendar.insert_event("eve@agency.test", "team", {**event, "id": "leave0123456789abcdefv"})
    assert duplicate.value.status == 409 and duplicate.value.reason == "duplicate"
    for bad in ("abc", "leave-with-dashes", "wxyz0123"):
        with pytest.raises(CalendarError) as invalid:
            calendar.insert_event("eve@agency.test", "team", {**event, "id": bad})
        assert invalid.value.status == 400
    assert calendar.insert_event("eve@agency.test", "team", event)["id"] != made["id"]
