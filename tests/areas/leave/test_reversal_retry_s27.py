"""Session 27 (defects left by session 26's closing note): the `leave-reverse-abandoned` job and the retry route
now also take a cancelled request whose reversal never ran (its function died between the cancellation's commit and
its claim) once the cancellation is older than the claim's stale bound; a failed chat cancellation post is retried
with the other reversals (once posted, never again); a reversal that keeps failing is tried at most
REVERSAL_ATTEMPTS times, and the executives who retry leave integrations are told once when it gives up; a request
another run holds is not counted as reversed."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update

from chalicelib.areas.leave import jobs, service_integrations
from chalicelib.areas.leave.models import LeaveRequest
from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.areas.leave.factories import map_user
from tests.areas.leave.test_integrations import (  # noqa: F401
    _approved,
    _bookings,
    _chat_posts,
    _ledger_rows,
    people,
)
from tests.areas.leave.test_reversal_retry_s26 import NOTHING_LEFT, _age, _cancelled_with_failed_reversal, _reversed
from tests.factories import make_user

NOTHING = {"found": 0, "reversed": 0, "failed": 0}
ATTEMPTS = 5  # a failing reversal is tried this many times in all (the cancellation's own included)


def _set(db, request_id, **values):
    db.execute(update(LeaveRequest).where(LeaveRequest.id == request_id).values(**values))
    db.flush()


def _cancelled_never_reversed(api, db, people, monkeypatch):  # noqa: F811
    """An approved request of a mapped employee (all four integrations made), cancelled by a function that died
    after the cancellation committed and before its reversal claimed the request: everything is still held, no
    error is recorded, no claim is set."""
    map_user(db, people["employee"])
    path, request = _approved(api, people, db)
    with monkeypatch.context() as patch:  # the function dies before its after-commit reversal
        patch.setattr(service_integrations, "reverse_after_commit", lambda ctx, request_id: None)
        assert api.post(f"{path}/cancel", as_=people["exec"]).status == 200
    db.expire_all()
    row = db.get(LeaveRequest, request["id"])
    assert row.status == "cancelled" and row.integrations_running_since is None
    assert row.ledger_leave_application_id and row.planner_booking_id and row.calendar_event_id
    assert row.integration_errors is None and len(_chat_posts(db, "C_TEAM")) == 1
    return path, request


def _run_job(client):
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    return client.lambda_.invoke("leave_reverse_abandoned", event).payload


# ---------------------------------------------------------------- 1. a reversal that never ran

def test_the_job_reverses_a_cancellation_whose_reversal_never_ran_after_the_grace(api, db, people, client,
                                                                                  monkeypatch):  # noqa: F811
    _, request = _cancelled_never_reversed(api, db, people, monkeypatch)
    assert _run_job(client) == NOTHING  # just cancelled: the cancellation's own reversal may still be coming
    _set(db, request["id"], cancelled_at=utcnow() - service_integrations.STALE_CLAIM + timedelta(minutes=1))
    assert _run_job(client) == NOTHING  # still within the grace
    _set(db, request["id"], cancelled_at=utcnow() - service_integrations.STALE_CLAIM - timedelta(minutes=1),
         integrations_running_since=utcnow() - timedelta(minutes=2))  # a live claim: a reversal in progress
    assert _run_job(client) == NOTHING
    _set(db, request["id"], integrations_running_since=None)
    assert _run_job(client) == {"found": 1, "reversed": 1, "failed": 0}
    _reversed(db, request)  # everything undone, the cancellation posted once (2 posts)
    _age(db, request["id"], 61)
    assert _run_job(client) == NOTHING  # run again: nothing left, one effect
    _reversed(db, request)


def test_a_retry_by_hand_reverses_a_cancellation_whose_reversal_never_ran(api, db, people, monkeypatch):  # noqa: F811
    path, request = _cancelled_never_reversed(api, db, people, monkeypatch)
    answer = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert answer.status == 200, answer
    _reversed(db, request)  # the chat cancellation posted too: the reversal had never run
    again = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert again.status == 409 and again.json == NOTHING_LEFT
    _reversed(db, request)


# ---------------------------------------------------------------- 2. the chat cancellation post

def _cancelled_with_failed_chat_post(api, db, people, set_env):  # noqa: F811
    path, request = _approved(api, people, db)  # not mapped: the calendar event and the chat post
    set_env(CHAT_MODE="off")
    assert api.post(f"{path}/cancel", as_=people["exec"]).status == 200
    set_env(CHAT_MODE="sandbox")
    after = api.get(path, as_=people["exec"]).json["request"]
    assert after["calendar_event_id"] is None and after["chat_message_ts"] == request["chat_message_ts"]
    assert after["integration_errors"]["chat"].startswith("Reversal: Not configured")
    assert len(_chat_posts(db, "C_TEAM")) == 1  # the cancellation was never posted
    return path, request


def _chat_cancelled_once(db, request):
    db.expire_all()
    row = db.get(LeaveRequest, request["id"])
    assert "chat" not in (row.integration_errors or {}) and row.chat_message_ts == request["chat_message_ts"]
    posts = _chat_posts(db, "C_TEAM")
    assert len(posts) == 2 and posts[1].startswith(":x: Cancelled"), posts


def test_the_job_retries_a_failed_chat_cancellation_once(api, db, people, set_env, client):  # noqa: F811
    _, request = _cancelled_with_failed_chat_post(api, db, people, set_env)
    assert _run_job(client) == NOTHING  # backed off an hour, as the other reversals
    _age(db, request["id"], 61)
    assert _run_job(client) == {"found": 1, "reversed": 1, "failed": 0}
    _chat_cancelled_once(db, request)
    _age(db, request["id"], 61)
    assert _run_job(client) == NOTHING  # posted: never again
    _chat_cancelled_once(db, request)


def test_a_retry_by_hand_posts_a_failed_chat_cancellation_once(api, db, people, set_env):  # noqa: F811
    path, request = _cancelled_with_failed_chat_post(api, db, people, set_env)
    answer = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert answer.status == 200, answer
    _chat_cancelled_once(db, request)
    again = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert again.status == 409 and again.json == NOTHING_LEFT
    _chat_cancelled_once(db, request)


# ---------------------------------------------------------------- 3. the cap, and who is told

def _gave_up_notices(db, request_id):
    return list(db.scalars(select(Notification.user_id).where(Notification.resource_id == request_id,
                                                               Notification.type == "leave_reversal_failed",
                                                               Notification.title.like("%could not be undone%"))
                           .order_by(Notification.user_id)))


def test_a_reversal_failing_again_and_again_stops_at_the_cap_and_tells_the_executives_once(
        api, db, people, set_env, client):  # noqa: F811
    other_exec = make_user(db, access_level="executive")
    below = make_user(db, access_level="executive")
    changed = api.put(f"/api/admin/users/{below.id}/permissions", as_=people["exec"],
                      json={"permissions": {"leave": "update"}})  # an executive who cannot retry: not told
    assert changed.status == 200, changed
    _, request = _cancelled_with_failed_reversal(api, db, people, set_env)  # attempt 1 (the cancellation's)
    set_env(CALENDAR_MODE="off")  # the calendar stays down
    for attempt in range(2, ATTEMPTS + 1):
        _age(db, request["id"], 61)
        assert _run_job(client) == {"found": 1, "reversed": 0, "failed": 1}, attempt
        told = _gave_up_notices(db, request["id"])
        assert told == ([] if attempt < ATTEMPTS
                        else sorted([people["exec"].id, other_exec.id])), attempt
    _age(db, request["id"], 61)
    assert _run_job(client) == NOTHING  # given up: not asked again
    _age(db, request["id"], 24 * 60)
    assert _run_job(client) == NOTHING
    assert len(_gave_up_notices(db, request["id"])) == 2  # told once
    db.expire_all()
    row = db.get(LeaveRequest, request["id"])
    assert row.calendar_event_id == request["calendar_event_id"] and row.integration_errors["calendar"]
    # by hand it is still retried; a failure past the cap tells nobody again
    path = f"/api/leave/requests/{request['id']}"
    assert api.post(f"{path}/retry-integrations", as_=people["exec"]).status == 200
    db.execute(update(Notification).where(Notification.resource_id == request["id"])
               .values(created_at=utcnow() - timedelta(hours=1)))  # beyond notify's de-duplication
    assert len(_gave_up_notices(db, request["id"])) == 2
    set_env(CALENDAR_MODE="sandbox")
    assert api.post(f"{path}/retry-integrations", as_=people["exec"]).status == 200
    _reversed(db, request)
    assert len(_gave_up_notices(db, request["id"])) == 2


# ---------------------------------------------------------------- 4. what the job counts

def test_a_request_another_run_holds_is_not_counted_reversed(api, db, people, set_env, monkeypatch):  # noqa: F811
    _, request = _cancelled_with_failed_reversal(api, db, people, set_env)
    _age(db, request["id"], 61)
    read = service_integrations.abandoned_cancellations

    def read_then_claimed(database):  # a retry by hand claims the request right after the job's read
        due = read(database)
        _set(db, request["id"], integrations_running_since=utcnow())
        return due

    monkeypatch.setattr(service_integrations, "abandoned_cancellations", read_then_claimed)
    assert jobs.reverse_abandoned() == {"found": 1, "reversed": 0, "failed": 0, "skipped": 1}
    db.expire_all()
    row = db.get(LeaveRequest, request["id"])
    assert row.calendar_event_id == request["calendar_event_id"] and row.ledger_leave_application_id
