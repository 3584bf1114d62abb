"""Session 26 (dead-end states audit): a cancelled request whose reversal failed kept its ledger application, planner
booking and team calendar event for good: `retry-integrations` answered 409 unless approved, and the
`leave-reverse-abandoned` job only took stale claims (a failed reversal lets its claim go). Now the retry reverses a
cancelled request that still holds a ledger, planner or calendar id (the chat post's ts is never reversed), and the
job takes such requests too once their last attempt (`updated_at`) is more than an hour old."""
from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import select, update

from chalicelib.areas.leave.models import LeaveRequest
from chalicelib.core.ids import utcnow
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from tests.areas.leave.factories import map_user
from tests.areas.leave.test_integrations import (  # noqa: F401
    _approved,
    _bookings,
    _chat_posts,
    _ledger_rows,
    people,
)

NOTHING_LEFT = {"error": "A cancelled request whose integrations are reversed has nothing left to reverse"}


def _cancelled_with_failed_reversal(api, db, people, set_env):  # noqa: F811
    """An approved request of a mapped employee (all four integrations made), cancelled while the ledger and the
    calendar cannot be reached: the planner booking is removed, the application and the event stay."""
    map_user(db, people["employee"])
    path, request = _approved(api, people, db)
    set_env(LEDGER_MODE="off", CALENDAR_MODE="off")
    assert api.post(f"{path}/cancel", as_=people["exec"]).status == 200
    after = api.get(path, as_=people["exec"]).json["request"]
    assert after["status"] == "cancelled" and after["planner_booking_id"] is None
    assert after["ledger_leave_application_id"] == request["ledger_leave_application_id"]
    assert after["calendar_event_id"] == request["calendar_event_id"]
    assert after["integration_errors"]["ledger"].startswith("Reversal:")
    assert after["integration_errors"]["calendar"].startswith("Reversal:")
    assert len(_chat_posts(db, "C_TEAM")) == 2  # the approval's post and the cancellation's
    set_env(LEDGER_MODE="sandbox", CALENDAR_MODE="sandbox")  # back
    return path, request


def _reversed(db, request):
    db.expire_all()
    row = db.get(LeaveRequest, request["id"])
    assert db.get(SandboxCalendarEvent, request["calendar_event_id"]) is None
    assert row.calendar_event_id is None and row.ledger_leave_application_id is None
    assert [a.status for a in _ledger_rows(db)] == ["REJECTED"] and _bookings(db) == []
    assert row.integration_errors is None and row.integrations_running_since is None
    assert row.chat_message_ts == request["chat_message_ts"]  # kept, never reversed
    assert len(_chat_posts(db, "C_TEAM")) == 2  # the cancellation is not posted again
    return row


def _age(db, request_id, minutes):
    db.execute(update(LeaveRequest).where(LeaveRequest.id == request_id)
               .values(updated_at=utcnow() - timedelta(minutes=minutes)))
    db.flush()


def test_a_retry_reverses_a_cancelled_request_whose_reversal_failed(api, db, people, set_env):  # noqa: F811
    path, request = _cancelled_with_failed_reversal(api, db, people, set_env)
    assert api.post(f"{path}/retry-integrations", as_=people["head"]).status == 403  # who may call it: as before
    answer = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert answer.status == 200, answer
    body = answer.json["request"]
    assert body["status"] == "cancelled" and body["calendar_event_id"] is None
    assert body["ledger_leave_application_id"] is None and body["integration_errors"] is None
    _reversed(db, request)
    history = api.get(path, as_=people["exec"]).json["history"]
    assert [h["action"] for h in history][-1] == "integrations_retried"
    assert history[-1]["comment"] == "Reversal: ledger, calendar"
    again = api.post(f"{path}/retry-integrations", as_=people["exec"])  # nothing left: one effect
    assert again.status == 409 and again.json == NOTHING_LEFT
    _reversed(db, request)


def test_a_retry_while_the_provider_still_fails_keeps_the_id_and_the_error(api, db, people, set_env):  # noqa: F811
    path, request = _cancelled_with_failed_reversal(api, db, people, set_env)
    set_env(CALENDAR_MODE="off")
    body = api.post(f"{path}/retry-integrations", as_=people["exec"]).json["request"]
    assert body["ledger_leave_application_id"] is None and "ledger" not in body["integration_errors"]
    assert body["calendar_event_id"] == request["calendar_event_id"]
    assert body["integration_errors"]["calendar"].startswith("Reversal: Not configured")
    set_env(CALENDAR_MODE="sandbox")
    assert api.post(f"{path}/retry-integrations", as_=people["exec"]).status == 200
    _reversed(db, request)


def test_a_cancelled_request_with_nothing_to_reverse_stays_409(api, db, people):  # noqa: F811
    path, _ = _approved(api, people, db)  # not mapped: ledger and planner skipped, never made
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    after = api.get(path, as_=people["exec"]).json["request"]
    assert after["calendar_event_id"] is None and after["chat_message_ts"]  # only the chat post's ts is left
    answer = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert answer.status == 409 and answer.json == NOTHING_LEFT
    assert len(_chat_posts(db, "C_TEAM")) == 2


def test_the_job_retries_a_failed_reversal_hourly_until_it_succeeds(api, db, people, set_env, client):  # noqa: F811
    _, request = _cancelled_with_failed_reversal(api, db, people, set_env)
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    invoke = lambda: client.lambda_.invoke("leave_reverse_abandoned", event).payload
    assert invoke() == {"found": 0, "reversed": 0, "failed": 0}  # the failure was just now: backed off
    _age(db, request["id"], 59)
    assert invoke() == {"found": 0, "reversed": 0, "failed": 0}
    _age(db, request["id"], 61)
    set_env(CALENDAR_MODE="off")  # the calendar still down: the ledger is reversed, the calendar fails again
    assert invoke() == {"found": 1, "reversed": 0, "failed": 1}
    db.expire_all()
    row = db.get(LeaveRequest, request["id"])
    assert row.ledger_leave_application_id is None and row.calendar_event_id == request["calendar_event_id"]
    assert set(row.integration_errors) == {"calendar"} and row.integrations_running_since is None
    assert invoke() == {"found": 0, "reversed": 0, "failed": 0}  # its attempt was just now: not hammered
    set_env(CALENDAR_MODE="sandbox")
    _age(db, request["id"], 61)
    assert invoke() == {"found": 1, "reversed": 1, "failed": 0}
    _reversed(db, request)
    _age(db, request["id"], 61)
    assert invoke() == {"found": 0, "reversed": 0, "failed": 0}  # run again: nothing left, one effect
    _reversed(db, request)


def test_the_job_from_the_cli_takes_failed_reversals_but_not_a_running_one(api, db, people, set_env, capsys):  # noqa: F811
    from chalicelib import cli

    _, request = _cancelled_with_failed_reversal(api, db, people, set_env)
    _age(db, request["id"], 61)
    db.execute(update(LeaveRequest).where(LeaveRequest.id == request["id"])
               .values(integrations_running_since=utcnow() - timedelta(minutes=2)))  # a retry holds it now
    db.flush()
    assert cli.main(["job", "leave-reverse-abandoned"]) == 0
    assert json.loads(capsys.readouterr().out) == {"found": 0, "reversed": 0, "failed": 0}
    db.execute(update(LeaveRequest).where(LeaveRequest.id == request["id"]).values(integrations_running_since=None))
    _age(db, request["id"], 61)
    assert cli.main(["job", "leave-reverse-abandoned"]) == 0
    assert json.loads(capsys.readouterr().out) == {"found": 1, "reversed": 1, "failed": 0}
    _reversed(db, request)
    assert db.scalar(select(LeaveRequest.status).where(LeaveRequest.id == request["id"])) == "cancelled"
