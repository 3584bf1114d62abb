"""A provider asked when the function stopped (session 32, task h10; docs/decisions/leave.md, "A provider asked when
the run stopped"). Each provider's success is recorded as it answers (test_run_killed_midway_s32.py), but a function
stopped by Lambda WHILE a provider was asked (the usual place for a timeout: no handler runs) recorded nothing of that
call: the provider may have made it. Now each provider is marked in flight (`Asked, no answer recorded (in progress, or the run stopped)`) in the
transaction committed before it is asked, and the run's outcome replaces the mark:
- the calendar's event and the planner's booking so marked are looked for and removed by a cancellation after the
  claim went stale (before: the cancellation answered 200, the event stayed on the team calendar, and the request had
  neither an id nor an error, so `leave-reverse-abandoned` never took it);
- the ledger's application so marked is not booked again by a retry (before: the claim's 10 minutes outlive Xero's
  6-minute idempotency key, so the retry made a second application, the balance deducted twice): 409 telling the
  executive to check Xero, nothing written.
Through HTTP against the sandboxes; the stop is a BaseException raised inside the provider's call."""
import pytest
from sqlalchemy import select

from chalicelib.areas.leave.models import LeaveRequest
from chalicelib.areas.leave.service_integrations import calendar_event_id
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from chalicelib.providers.calendar.sandbox import SandboxCalendar
from chalicelib.providers.payroll.sandbox import SandboxPayroll
from chalicelib.providers.planner.models import PlannerSandboxBooking
from chalicelib.providers.planner.sandbox import SandboxPlanner
from tests.areas.leave.factories import ANNUAL_LEAVE, mapped_team
from tests.areas.leave.test_run_killed_midway_s32 import (FunctionStopped, _applications, _later,
                                                         approved_until_stopped)

INTERRUPTED = "Asked, no answer recorded (in progress, or the run stopped)"  # service_integrations.INTERRUPTED: what the request shows


@pytest.fixture
def people(db):
    return mapped_team(db, name="Eve Employee")


def _made_then_stopped(api, db, people, monkeypatch, provider, method) -> tuple[str, str]:
    """The employee's leave approved; the provider makes what it is asked, and the function stops before its answer
    is read. Answers (request id, path)."""
    real = getattr(provider, method)

    def made_then_stopped(self, *args, **kwargs):
        real(self, *args, **kwargs)  # the provider made it ...
        raise FunctionStopped()      # ... and the function ended before the answer was read

    monkeypatch.setattr(provider, method, made_then_stopped)
    stopped = approved_until_stopped(api, people, monkeypatch)
    db.expire_all()
    return stopped


def _event(db, request_id: str):
    db.expire_all()
    row = db.get(SandboxCalendarEvent, calendar_event_id(request_id))
    return None if row is None or (row.event or {}).get("status") == "cancelled" else row


def test_the_event_made_as_the_run_stopped_leaves_with_the_cancellation(api, db, people, monkeypatch):
    request_id, path = _made_then_stopped(api, db, people, monkeypatch, SandboxCalendar, "insert_event")
    assert _event(db, request_id) is not None  # on the team calendar
    _later(db, request_id)  # the cancellation's reversal takes the stale claim
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    assert _event(db, request_id) is None, "the event stayed on the team calendar"
    after = api.get(path, as_=people["exec"]).json["request"]
    assert after["ledger_leave_application_id"] is None and after["planner_booking_id"] is None, after
    assert after["integration_errors"] is None, after


def test_the_booking_made_as_the_run_stopped_leaves_with_the_cancellation(api, db, people, monkeypatch):
    request_id, path = _made_then_stopped(api, db, people, monkeypatch, SandboxPlanner, "create_booking")
    assert len(list(db.scalars(select(PlannerSandboxBooking)))) == 1
    _later(db, request_id)
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    db.expire_all()
    assert list(db.scalars(select(PlannerSandboxBooking))) == [], "the booking stayed in the planner"


def test_a_retry_takes_the_event_made_as_the_run_stopped(api, db, people, monkeypatch):
    request_id, path = _made_then_stopped(api, db, people, monkeypatch, SandboxCalendar, "insert_event")
    _later(db, request_id)
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert retried.status == 200, retried
    body = retried.json["request"]
    assert body["calendar_event_id"] == calendar_event_id(request_id) and body["chat_message_ts"], body
    assert body["integration_errors"] is None, body


def test_a_leave_application_made_as_the_run_stopped_is_not_made_twice(api, db, people, monkeypatch):
    request_id, path = _made_then_stopped(api, db, people, monkeypatch, SandboxPayroll, "create_leave_application")
    [made] = _applications(db)
    _later(db, request_id)  # the claim is stale, and the ledger has forgotten the key
    for _ in range(2):  # refused, and nothing written: the claim went with the refusal (not "already running")
        retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
        assert retried.status == 409, retried
        assert "Check the requester's leave in Xero" in retried.json["error"], retried.json
    assert [row.id for row in _applications(db)] == [made.id]  # one leave application, not two
    stored = db.get(LeaveRequest, request_id)
    assert stored.ledger_leave_application_id is None and stored.integration_errors == {"ledger": INTERRUPTED}
    history = api.get(path, as_=people["exec"]).json["history"]
    assert "integrations_retried" not in [entry["action"] for entry in history]
    # the way out: cancel (nothing the app knows of to reject), the mark left to tell the executives
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    after = api.get(path, as_=people["exec"]).json["request"]
    assert after["integration_errors"] == {"ledger": INTERRUPTED}, after


# ---------------------------------------------------------------- the normal path unchanged

def test_a_run_that_ends_leaves_no_mark(api, db, people):
    request = api.post("/api/leave/requests", as_=people["employee"], json=ANNUAL_LEAVE).json["request"]
    path = f"/api/leave/requests/{request['id']}"
    api.post(f"{path}/approve", as_=people["exec"])
    assert api.post(f"{path}/approve", as_=people["exec"]).status == 200
    body = api.get(path, as_=people["exec"]).json["request"]  # the run after the approval's commit
    assert body["integration_errors"] is None, body
    assert all(body[field] for field in ("ledger_leave_application_id", "planner_booking_id", "calendar_event_id",
                                         "chat_message_ts")), body


def test_a_failure_is_recorded_as_itself_and_the_next_provider_runs(api, db, people, monkeypatch):
    from chalicelib.providers.calendar import CalendarError

    def refuse(self, *args, **kwargs):
        raise CalendarError("Calendar provider refused", detail="backendError", status=500)

    monkeypatch.setattr(SandboxCalendar, "insert_event", refuse)
    request = api.post("/api/leave/requests", as_=people["employee"], json=ANNUAL_LEAVE).json["request"]
    path = f"/api/leave/requests/{request['id']}"
    api.post(f"{path}/approve", as_=people["exec"])
    assert api.post(f"{path}/approve", as_=people["exec"]).status == 200
    body = api.get(path, as_=people["exec"]).json["request"]  # the run after the approval's commit
    errors = body["integration_errors"]
    assert list(errors) == ["calendar"] and errors["calendar"] != INTERRUPTED, errors
    assert "Calendar provider refused" in errors["calendar"], errors
    assert body["chat_message_ts"] and body["calendar_event_id"] is None, body
    monkeypatch.undo()
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert retried.status == 200 and retried.json["request"]["integration_errors"] is None, retried


def test_a_run_cancelled_meanwhile_keeps_no_mark(api, db, people, monkeypatch):
    """Cancelled while the chat was asked (the run's last provider): the run's end reverses what it made and the
    marks it wrote give way (the skipped or failed ones record what they did, as before)."""
    from chalicelib.providers.chat.sandbox import SandboxChat

    request = api.post("/api/leave/requests", as_=people["employee"], json=ANNUAL_LEAVE).json["request"]
    path = f"/api/leave/requests/{request['id']}"

    def cancelled_meanwhile(self, *args, **kwargs):
        assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200  # left to the run holding it
        raise RuntimeError("chat down")

    api.post(f"{path}/approve", as_=people["exec"])
    with monkeypatch.context() as patch:
        patch.setattr(SandboxChat, "post_message", cancelled_meanwhile)
        assert api.post(f"{path}/approve", as_=people["exec"]).status == 200
    db.expire_all()
    stored = db.get(LeaveRequest, request["id"])
    assert stored.status == "cancelled" and stored.integrations_running_since is None
    assert INTERRUPTED not in (stored.integration_errors or {}).values(), stored.integration_errors
    assert stored.ledger_leave_application_id is None and stored.calendar_event_id is None
    assert [row.status for row in _applications(db)] == ["REJECTED"]
