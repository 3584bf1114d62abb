"""Leave integrations on final approval (document 2, Events): each after commit and recorded on the request,
one failing alone leaves the others and the approval, retry re-runs only what has no id, cancel reverses."""
import pytest
from sqlalchemy import func, select

from chalicelib.core.notify_models import SandboxOutboxMessage
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from tests.factories import make_squad, make_user

BODY = {"leave_type_id": "annual", "leave_type_name": "Annual Leave", "start_date": "2026-12-01",
        "end_date": "2026-12-03"}
NOT_YET = ("ledger", "planner")  # providers this area cannot reach yet: recorded as skipped


@pytest.fixture
def people(db):
    squad = make_squad(db, chat_channel_id="C_TEAM")
    return {"squad": squad, "employee": make_user(db, squad_id=squad.id, name="Eve Employee"),
            "exec": make_user(db, access_level="executive"), "head": make_user(db, access_level="head")}


def _chat_posts(db, channel=None):
    stmt = select(SandboxOutboxMessage.body).where(SandboxOutboxMessage.provider == "chat")
    if channel:
        stmt = stmt.where(SandboxOutboxMessage.target == channel)
    return list(db.scalars(stmt.order_by(SandboxOutboxMessage.created_at, SandboxOutboxMessage.id)))


def _approved(api, people, db):
    """A request of the employee taken to pending_exec, then approved by the executive."""
    request = api.post("/api/leave/requests", as_=people["employee"], json=BODY).json["request"]
    path = f"/api/leave/requests/{request['id']}"
    api.post(f"{path}/approve", as_=people["exec"])
    answer = api.post(f"{path}/approve", as_=people["exec"])
    assert answer.status == 200 and answer.json["request"]["status"] == "approved", answer
    return path, api.get(path, as_=people["exec"]).json["request"]


@pytest.mark.smoke
def test_integrations_run_after_approval(api, db, people):
    path, request = _approved(api, people, db)
    assert request["calendar_event_id"] and request["chat_message_ts"]
    event = db.get(SandboxCalendarEvent, request["calendar_event_id"])
    assert event.calendar_id == "team" and event.event["start"] == {"date": "2026-12-01"}
    assert event.event["end"] == {"date": "2026-12-04"} and "Eve Employee" in event.event["summary"]
    posts = _chat_posts(db, "C_TEAM")
    assert len(posts) == 1 and "Eve Employee" in posts[0] and "2026-12-01 to 2026-12-03" in posts[0]
    errors = request["integration_errors"]
    assert set(errors) == set(NOT_YET) and all(errors[name].startswith("Not configured") for name in NOT_YET)
    assert request["ledger_leave_application_id"] is None and request["planner_booking_id"] is None


def test_an_executive_submission_runs_them_at_once(api, db, people):
    made = api.post("/api/leave/requests", as_=people["exec"], json=BODY)
    assert made.json["request"]["status"] == "approved"
    request = api.get(f"/api/leave/requests/{made.json['request']['id']}", as_=people["exec"]).json["request"]
    assert request["calendar_event_id"] and request["chat_message_ts"]


def test_the_calendar_failing_alone_then_retried(api, db, people, set_env):
    set_env(CALENDAR_TEAM_CALENDAR_ID="invalid-team")
    path, request = _approved(api, people, db)
    assert request["status"] == "approved" and request["calendar_event_id"] is None
    assert "Calendar not found" in request["integration_errors"]["calendar"]
    assert request["chat_message_ts"] and "chat" not in request["integration_errors"]
    assert api.post(f"{path}/retry-integrations", as_=people["head"]).status == 403  # executive only
    still = api.post(f"{path}/retry-integrations", as_=people["exec"]).json["request"]
    assert still["calendar_event_id"] is None and "calendar" in still["integration_errors"]
    set_env(CALENDAR_TEAM_CALENDAR_ID=None)
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert retried.status == 200, retried
    body = retried.json["request"]
    assert body["calendar_event_id"] and "calendar" not in body["integration_errors"]
    assert body["chat_message_ts"] == request["chat_message_ts"]
    assert len(_chat_posts(db, "C_TEAM")) == 1  # chat had succeeded: not posted again
    history = api.get(path, as_=people["exec"]).json["history"]
    assert history[-1]["action"] == "integrations_retried"


def test_chat_failing_alone_then_retried(api, db, people):
    people["squad"].chat_channel_id = "C_INVALID_CHANNEL"
    db.flush()
    path, request = _approved(api, people, db)
    assert request["status"] == "approved" and request["chat_message_ts"] is None
    assert "channel_not_found" in request["integration_errors"]["chat"]
    assert request["calendar_event_id"]
    events = db.scalar(select(func.count()).select_from(SandboxCalendarEvent))
    people["squad"].chat_channel_id = "C_FIXED"
    db.flush()
    body = api.post(f"{path}/retry-integrations", as_=people["exec"]).json["request"]
    assert body["chat_message_ts"] and "chat" not in body["integration_errors"]
    assert len(_chat_posts(db, "C_FIXED")) == 1
    assert db.scalar(select(func.count()).select_from(SandboxCalendarEvent)) == events  # not booked twice


def test_a_provider_switched_off_is_skipped(api, db, people, set_env):
    set_env(CHAT_MODE="off", CALENDAR_MODE="off")
    path, request = _approved(api, people, db)
    assert request["integration_errors"]["chat"].startswith("Not configured")
    assert request["integration_errors"]["calendar"].startswith("Not configured")
    assert request["status"] == "approved"


def test_retry_needs_an_approved_request(api, db, people):
    request = api.post("/api/leave/requests", as_=people["employee"], json=BODY).json["request"]
    assert api.post(f"/api/leave/requests/{request['id']}/retry-integrations", as_=people["exec"]).status == 409


def test_cancelling_an_approved_request_reverses_what_succeeded(api, db, people):
    path, request = _approved(api, people, db)
    event_id = request["calendar_event_id"]
    cancelled = api.post(f"{path}/cancel", as_=people["employee"])
    assert cancelled.status == 200 and cancelled.json["request"]["status"] == "cancelled"
    after = api.get(path, as_=people["exec"]).json["request"]
    assert db.get(SandboxCalendarEvent, event_id) is None
    assert after["calendar_event_id"] is None
    posts = _chat_posts(db, "C_TEAM")
    assert len(posts) == 2 and "Cancelled" in posts[1]
    # the integrations that never ran are not reversed: their skip notes stay
    assert set(after["integration_errors"]) == set(NOT_YET)


def test_a_failed_reversal_is_recorded(api, db, people, set_env):
    path, request = _approved(api, people, db)
    set_env(CALENDAR_MODE="off")  # the calendar cannot be reached to delete the event
    api.post(f"{path}/cancel", as_=people["exec"])
    after = api.get(path, as_=people["exec"]).json["request"]
    assert after["status"] == "cancelled" and after["calendar_event_id"] == request["calendar_event_id"]
    assert after["integration_errors"]["calendar"].startswith("Reversal:")
