"""Session 27 (ann27): a planner booking or team calendar event the provider made but whose answer was lost (a
timeout: the integration's error recorded, no id kept) survived the request's cancellation: every reversal (the
cancellation's, the `leave-reverse-abandoned` job's, the retry route's) reversed by id only, and there was none.
Now an integration without an id whose last attempt failed (an error recorded that is not `Not configured`) is
looked for by the reversal, with what the run made it with: the calendar event by the id derived from the request
(a delete answering 404/410 is gone), the planner booking by `find_booking`; found, it is removed. A lookup that
fails is recorded `Reversal: ...` and tried again as any failed reversal (the job, hourly; the retry route).
Through HTTP and the scheduled handler, against the sandboxes (state in the database)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from chalicelib.areas.leave import service_integrations
from chalicelib.areas.leave.models import LeaveRequest
from chalicelib.core.errors import GatewayTimeout
from chalicelib.core.ids import utcnow
from chalicelib.providers.calendar.sandbox import SandboxCalendar
from chalicelib.providers.planner.models import PlannerSandboxBooking
from chalicelib.providers.planner.sandbox import SandboxPlanner
from tests.areas.leave.factories import ANNUAL_LEAVE, mapped_team
from tests.areas.leave.test_integration_timeouts_s27 import _approved, _bookings, _leave_events
from tests.areas.leave.test_reversal_retry_s27 import _run_job

NOTHING = {"found": 0, "reversed": 0, "failed": 0}


@pytest.fixture
def people(db):
    return mapped_team(db, name="Eve Employee")


def _made_then_timed_out(real, during=None):
    def call(self, *args, **kwargs):
        real(self, *args, **kwargs)
        if during:
            during()
        raise GatewayTimeout("The provider did not answer in time")
    return call


def _row(db, path):
    db.expire_all()
    return db.get(LeaveRequest, path.rsplit("/", 1)[1])


def _lost_booking(api, db, people, monkeypatch):
    """An approved request whose planner booking was made but its answer lost: no id, the timeout recorded."""
    with monkeypatch.context() as patch:
        patch.setattr(SandboxPlanner, "create_booking", _made_then_timed_out(SandboxPlanner.create_booking))
        path = _approved(api, people)
    row = _row(db, path)
    assert row.planner_booking_id is None and "did not answer" in row.integration_errors["planner"]
    assert len(_bookings(db)) == 1
    return path


def test_a_lost_planner_booking_is_found_and_removed_by_the_cancellation(api, db, people, monkeypatch):
    path = _lost_booking(api, db, people, monkeypatch)
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    assert _bookings(db) == [], "the booking the planner made for the cancelled request is still there"
    row = _row(db, path)
    assert row.planner_booking_id is None and "planner" not in (row.integration_errors or {})
    assert row.reversal_attempts == 1 and row.integrations_running_since is None


def test_a_lost_team_calendar_event_is_removed_by_the_cancellation(api, db, people, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(SandboxCalendar, "insert_event", _made_then_timed_out(SandboxCalendar.insert_event))
        path = _approved(api, people)
    row = _row(db, path)
    assert row.calendar_event_id is None and "calendar" in row.integration_errors
    [made] = _leave_events(db)
    assert made.id == service_integrations.calendar_event_id(row.id)
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    assert _leave_events(db) == [], "the team calendar still shows the cancelled leave"
    row = _row(db, path)
    assert row.calendar_event_id is None and "calendar" not in (row.integration_errors or {})


def test_a_lost_answer_of_nothing_made_is_reversed_as_nothing(api, db, people, monkeypatch):
    """The provider timed out before making anything: the lookup finds nothing, which is the reversal done."""
    def timed_out(self, *args, **kwargs):
        raise GatewayTimeout("The provider did not answer in time")

    with monkeypatch.context() as patch:
        patch.setattr(SandboxPlanner, "create_booking", timed_out)
        patch.setattr(SandboxCalendar, "insert_event", timed_out)
        path = _approved(api, people)
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    row = _row(db, path)
    assert not set(row.integration_errors or {}) & {"planner", "calendar"}, row.integration_errors
    assert row.reversal_attempts == 1


def test_a_run_that_finds_the_request_cancelled_removes_what_it_made_whose_answer_was_lost(api, db, people,
                                                                                           monkeypatch):
    """Cancelled while the planner made the booking and its answer was lost: the cancellation's reversal leaves the
    request to the run holding it, which looks for the booking when it finds the request cancelled."""
    def cancelled_meanwhile():
        assert api.post(path_of[0] + "/cancel", as_=people["employee"]).status == 200

    path_of: list = []
    request = api.post("/api/leave/requests", as_=people["employee"], json=ANNUAL_LEAVE).json["request"]
    path_of.append(f"/api/leave/requests/{request['id']}")
    api.post(f"{path_of[0]}/approve", as_=people["exec"])
    with monkeypatch.context() as patch:
        patch.setattr(SandboxPlanner, "create_booking",
                      _made_then_timed_out(SandboxPlanner.create_booking, during=cancelled_meanwhile))
        assert api.post(f"{path_of[0]}/approve", as_=people["exec"]).status == 200
    row = _row(db, path_of[0])
    assert row.status == "cancelled" and row.integrations_running_since is None
    assert _bookings(db) == [], "the booking made by the run of the cancelled request is still there"
    assert _leave_events(db) == [] and row.calendar_event_id is None  # what it made with an id: reversed too


def test_a_failed_lookup_is_recorded_and_retried_by_hand(api, db, people, monkeypatch):
    path = _lost_booking(api, db, people, monkeypatch)

    def unreachable(self, **kwargs):
        raise GatewayTimeout("The resource planner did not answer in time")

    with monkeypatch.context() as patch:
        patch.setattr(SandboxPlanner, "find_booking", unreachable)
        assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    row = _row(db, path)
    assert row.integration_errors["planner"] == "Reversal: The resource planner did not answer in time"
    assert row.planner_booking_id is None and len(_bookings(db)) == 1
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert retried.status == 200, retried
    assert _bookings(db) == []
    assert "planner" not in (retried.json["request"]["integration_errors"] or {})
    again = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert again.status == 409, again  # nothing left: one effect


def test_the_job_retries_a_failed_lookup_after_the_hour(api, db, people, client, monkeypatch):
    path = _lost_booking(api, db, people, monkeypatch)
    with monkeypatch.context() as patch:
        patch.setattr(SandboxPlanner, "find_booking", lambda self, **kwargs: (_ for _ in ()).throw(
            GatewayTimeout("The resource planner did not answer in time")))
        assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    assert len(_bookings(db)) == 1
    assert _run_job(client) == NOTHING  # its last attempt is recent
    db.execute(update(LeaveRequest).where(LeaveRequest.id == path.rsplit("/", 1)[1])
               .values(updated_at=utcnow() - timedelta(minutes=61)))
    assert _run_job(client) == {"found": 1, "reversed": 1, "failed": 0}
    assert _bookings(db) == []
    row = _row(db, path)
    assert "planner" not in (row.integration_errors or {}) and row.reversal_attempts == 2
    db.execute(update(LeaveRequest).where(LeaveRequest.id == row.id)
               .values(updated_at=utcnow() - timedelta(minutes=61)))
    assert _run_job(client) == NOTHING  # run again: nothing left


def test_the_job_reverses_a_lost_booking_of_a_cancellation_whose_reversal_never_ran(api, db, people, client,
                                                                                     monkeypatch):
    path = _lost_booking(api, db, people, monkeypatch)
    with monkeypatch.context() as patch:  # the function dies before its after-commit reversal
        patch.setattr(service_integrations, "reverse_after_commit", lambda ctx, request_id: None)
        assert api.post(f"{path}/cancel", as_=people["exec"]).status == 200
    # its calendar event and chat post (made with ids) are there too: the job reverses all of it
    assert _run_job(client) == NOTHING  # just cancelled: the cancellation's own reversal may still be coming
    db.execute(update(LeaveRequest).where(LeaveRequest.id == path.rsplit("/", 1)[1])
               .values(cancelled_at=utcnow() - service_integrations.STALE_CLAIM - timedelta(minutes=1)))
    assert _run_job(client) == {"found": 1, "reversed": 1, "failed": 0}
    assert _bookings(db) == [] and _leave_events(db) == []


def test_the_job_reverses_a_lost_booking_alone_of_a_cancellation_whose_reversal_never_ran(api, db, people, client,
                                                                                           set_env, monkeypatch):
    """Nothing else was made (the ledger, calendar and chat skipped): the lost booking alone makes it the job's."""
    set_env(LEDGER_MODE="off", CALENDAR_MODE="off", CHAT_MODE="off")
    with monkeypatch.context() as patch:
        patch.setattr(SandboxPlanner, "create_booking", _made_then_timed_out(SandboxPlanner.create_booking))
        path = _approved(api, people)
        patch.setattr(service_integrations, "reverse_after_commit", lambda ctx, request_id: None)
        assert api.post(f"{path}/cancel", as_=people["exec"]).status == 200
    row = _row(db, path)
    assert not (row.ledger_leave_application_id or row.calendar_event_id or row.chat_message_ts)
    assert len(_bookings(db)) == 1 and row.reversal_attempts == 0
    db.execute(update(LeaveRequest).where(LeaveRequest.id == row.id)
               .values(cancelled_at=utcnow() - service_integrations.STALE_CLAIM - timedelta(minutes=1)))
    assert _run_job(client) == {"found": 1, "reversed": 1, "failed": 0}
    assert _bookings(db) == []


def test_a_skipped_integration_is_not_looked_for(api, db, people, set_env):
    """`Not configured` made nothing: the cancellation leaves its note and calls nothing for it."""
    set_env(CALENDAR_MODE="off")
    path = _approved(api, people)
    assert _row(db, path).integration_errors["calendar"].startswith("Not configured")
    set_env(CALENDAR_MODE="sandbox")
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    assert _row(db, path).integration_errors["calendar"].startswith("Not configured")


def test_another_requests_booking_of_the_same_dates_is_not_taken_for_the_lost_one(api, db, people, monkeypatch):
    from datetime import date

    from chalicelib.providers.planner.sandbox import SANDBOX_ABSENCE_EVENT_ID, person_id

    other = PlannerSandboxBooking(person_id=person_id(people["employee"].email), started_on=date(2026, 12, 1),
                                  ended_on=date(2026, 12, 3), minutes_per_day=456,
                                  event_id=SANDBOX_ABSENCE_EVENT_ID, note="Leave: Annual Leave (ref another)")
    db.add(other)
    db.flush()
    with monkeypatch.context() as patch:
        patch.setattr(SandboxPlanner, "create_booking", _made_then_timed_out(SandboxPlanner.create_booking))
        path = _approved(api, people)
    assert len(_bookings(db)) == 2
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    assert [b.id for b in _bookings(db)] == [other.id]
