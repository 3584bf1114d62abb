"""Leave integrations on final approval (document 2, Events): each after commit and recorded on the request,
one failing alone leaves the others and the approval, retry re-runs only what has no id, cancel reverses."""
import pytest
from sqlalchemy import func, select

from chalicelib.core.notify_models import SandboxOutboxMessage
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from tests.areas.leave.factories import map_user
from tests.factories import make_squad, make_user

from chalicelib.providers.payroll.sandbox import LEAVE_TYPES  # noqa: E402

BODY = {"leave_type_id": LEAVE_TYPES[0]["id"], "leave_type_name": "Annual Leave", "start_date": "2026-12-01",
        "end_date": "2026-12-03"}
NOT_YET = ("ledger", "planner")  # the employee has no ledger or planner mapping: recorded as skipped


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


def test_the_chat_post_escapes_the_name_so_it_pings_nobody_and_names_no_leave_type(api, db, people):
    """A user's name is text of ours: `&`, `<` and `>` are escaped in the chat post (a `<!channel>` in a name
    would ping the channel)."""
    people["employee"].name = "Eve <!channel> & Co"
    db.flush()
    _approved(api, people, db)
    (post,) = _chat_posts(db, "C_TEAM")
    assert post.startswith(":palm_tree: Eve &lt;!channel&gt; &amp; Co on leave, ")
    assert "Annual" not in post and "Sick" not in post  # the squad's channel is told who is away, not why


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


def test_the_cancellation_is_posted_beside_the_original_message_when_the_squad_moved_channel(api, db, people):
    path, request = _approved(api, people, db)
    people["squad"].chat_channel_id = "C_NEW_TEAM"
    db.flush()
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    posts = _chat_posts(db, "C_TEAM")
    assert len(posts) == 2 and "Cancelled" in posts[1]
    assert _chat_posts(db, "C_NEW_TEAM") == []


def test_a_failed_reversal_is_recorded(api, db, people, set_env):
    path, request = _approved(api, people, db)
    set_env(CALENDAR_MODE="off")  # the calendar cannot be reached to delete the event
    api.post(f"{path}/cancel", as_=people["exec"])
    after = api.get(path, as_=people["exec"]).json["request"]
    assert after["status"] == "cancelled" and after["calendar_event_id"] == request["calendar_event_id"]
    assert after["integration_errors"]["calendar"].startswith("Reversal:")


# ---------------------------------------------------------------- ledger and planner (mapped users)



def _ledger_rows(db):
    from chalicelib.providers.payroll.models import PayrollSandboxLeaveApplication

    return list(db.scalars(select(PayrollSandboxLeaveApplication)))


def _bookings(db):
    from chalicelib.providers.planner.models import PlannerSandboxBooking

    return list(db.scalars(select(PlannerSandboxBooking)))


def test_all_four_run_for_a_mapped_user_and_are_reversed(api, db, people):
    map_user(db, people["employee"])
    path, request = _approved(api, people, db)
    assert request["integration_errors"] is None, request["integration_errors"]
    assert request["ledger_leave_application_id"] and request["planner_booking_id"]
    assert request["calendar_event_id"] and request["chat_message_ts"]
    [application] = _ledger_rows(db)
    assert application.id == request["ledger_leave_application_id"] and application.status == "SCHEDULED"
    assert application.employee_id == "EMP-0001" and str(application.start_date) == "2026-12-01"
    [booking] = _bookings(db)
    assert str(booking.id) == request["planner_booking_id"] and str(booking.ended_on) == "2026-12-03"
    api.post(f"{path}/cancel", as_=people["employee"])
    after = api.get(path, as_=people["exec"]).json["request"]
    db.expire_all()
    assert _ledger_rows(db)[0].status == "REJECTED" and _bookings(db) == []
    assert after["ledger_leave_application_id"] is None and after["planner_booking_id"] is None
    assert after["calendar_event_id"] is None and after["integration_errors"] is None


def _annual_hours(api, user):
    answer = api.get("/api/leave/balances", as_=user)
    assert answer.status == 200, answer
    return {b["leave_type_id"]: b["balance_hours"] for b in answer.json["balances"]}[LEAVE_TYPES[0]["id"]]


def test_leave_booked_or_reversed_in_the_ledger_refreshes_the_cached_balance(api, db, people):
    """Stale-cache audit: the approval's ledger application (and its rejection on cancel) changes the employee's
    balance in the ledger; their cached balances (one hour) are dropped in the run's own transaction, so the next
    read asks again instead of answering the pre-approval balance."""
    map_user(db, people["employee"])
    before = _annual_hours(api, people["employee"])  # cached now
    path, request = _approved(api, people, db)
    assert request["ledger_leave_application_id"], request["integration_errors"]
    # three weekdays of 7.6 hours scheduled in the ledger by the app itself
    assert _annual_hours(api, people["employee"]) == pytest.approx(before - 22.8)
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    assert _annual_hours(api, people["employee"]) == pytest.approx(before)  # rejected in the ledger: back


def test_the_ledger_failing_alone_then_retried(api, db, people):
    map_user(db, people["employee"], ledger_id="EMP-invalid")
    path, request = _approved(api, people, db)
    assert request["status"] == "approved" and request["ledger_leave_application_id"] is None
    assert set(request["integration_errors"]) == {"ledger"} and "employee" in request["integration_errors"]["ledger"]
    assert request["planner_booking_id"] and request["calendar_event_id"] and request["chat_message_ts"]
    map_user(db, people["employee"])
    body = api.post(f"{path}/retry-integrations", as_=people["exec"]).json["request"]
    assert body["ledger_leave_application_id"] and body["integration_errors"] is None
    assert len(_bookings(db)) == 1 and len(_chat_posts(db, "C_TEAM")) == 1  # only the ledger ran again


def test_the_planner_failing_alone_then_retried(api, db, people):
    map_user(db, people["employee"], planner_id="404404")
    path, request = _approved(api, people, db)
    assert set(request["integration_errors"]) == {"planner"} and "person not found" in request["integration_errors"]["planner"]
    assert request["ledger_leave_application_id"] and request["planner_booking_id"] is None
    map_user(db, people["employee"])
    body = api.post(f"{path}/retry-integrations", as_=people["exec"]).json["request"]
    assert body["planner_booking_id"] and body["integration_errors"] is None
    assert len(_ledger_rows(db)) == 1


def test_the_ledger_switched_off_is_skipped(api, db, people, set_env):
    map_user(db, people["employee"])
    set_env(LEDGER_MODE="off", PLANNER_MODE="off")
    path, request = _approved(api, people, db)
    assert request["integration_errors"]["ledger"].startswith("Not configured")
    assert request["integration_errors"]["planner"].startswith("Not configured")


def test_a_request_cancelled_while_they_ran_is_reversed_without_holding_its_lock(api, db, people, monkeypatch):
    """The integrations answer after the request was cancelled: what they made is reversed, with no
    transaction open (the request's row lock is not held while the providers answer)."""
    from sqlalchemy import update

    from chalicelib.areas.leave.models import LeaveRequest
    from chalicelib.providers.calendar.sandbox import SandboxCalendar
    from chalicelib.providers.chat.sandbox import SandboxChat

    real_post, real_delete = SandboxChat.post_message, SandboxCalendar.delete_event
    open_during_reversal = []

    def post_message(self, *, channel, text, blocks=None):
        answer = real_post(self, channel=channel, text=text, blocks=blocks)
        if text.startswith(":palm_tree:"):  # cancelled (by someone else) while the integrations ran
            db.execute(update(LeaveRequest).where(LeaveRequest.user_id == people["exec"].id)
                       .values(status="cancelled"))
            db.flush()
        return answer

    def delete_event(self, *args, **kwargs):  # the first reversal (the calendar event; chat is posted after)
        open_during_reversal.append(self.db.in_transaction())
        return real_delete(self, *args, **kwargs)

    monkeypatch.setattr(SandboxChat, "post_message", post_message)
    monkeypatch.setattr(SandboxCalendar, "delete_event", delete_event)
    made = api.post("/api/leave/requests", as_=people["exec"], json=BODY)
    assert made.status == 201, made
    request = api.get(f"/api/leave/requests/{made.json['request']['id']}", as_=people["exec"]).json["request"]
    assert request["status"] == "cancelled" and request["calendar_event_id"] is None
    assert db.scalar(select(func.count()).select_from(SandboxCalendarEvent)) == 0  # the event was deleted again
    assert [body for body in _chat_posts(db) if body.startswith(":x:")]  # and the cancellation posted
    assert open_during_reversal == [False]


def test_a_failed_reversal_after_a_cancellation_during_the_run_is_recorded(api, db, people, monkeypatch):
    """Cancelled while the integrations ran, and the calendar cannot delete the event it just made: the request
    keeps the event's id and records `Reversal: ...`, as a failed reversal of a cancellation does."""
    from sqlalchemy import update

    from chalicelib.areas.leave.models import LeaveRequest
    from chalicelib.providers.calendar.base import CalendarError
    from chalicelib.providers.calendar.sandbox import SandboxCalendar
    from chalicelib.providers.chat.sandbox import SandboxChat

    real_post = SandboxChat.post_message

    def post_message(self, *, channel, text, blocks=None):
        answer = real_post(self, channel=channel, text=text, blocks=blocks)
        if text.startswith(":palm_tree:"):
            db.execute(update(LeaveRequest).where(LeaveRequest.user_id == people["exec"].id)
                       .values(status="cancelled"))
            db.flush()
        return answer

    def unreachable(self, *args, **kwargs):
        raise CalendarError("Calendar provider unreachable", detail="ConnectionError")

    monkeypatch.setattr(SandboxChat, "post_message", post_message)
    monkeypatch.setattr(SandboxCalendar, "delete_event", unreachable)
    made = api.post("/api/leave/requests", as_=people["exec"], json=BODY).json["request"]
    request = api.get(f"/api/leave/requests/{made['id']}", as_=people["exec"]).json["request"]
    assert request["status"] == "cancelled"
    assert request["calendar_event_id"] and db.get(SandboxCalendarEvent, request["calendar_event_id"]) is not None
    assert request["integration_errors"]["calendar"] == "Reversal: Calendar provider unreachable: ConnectionError"


# ---------------------------------------------------------------- one run at a time (the claim)

ALREADY_RUNNING = {"error": "Integrations are already running for this request"}


def _claimed_since(db, request_id):
    from chalicelib.areas.leave.models import LeaveRequest

    return db.scalar(select(LeaveRequest.integrations_running_since).where(LeaveRequest.id == request_id))


def _claim(db, request_id, age):
    from sqlalchemy import update

    from chalicelib.areas.leave.models import LeaveRequest
    from chalicelib.core.ids import utcnow

    db.execute(update(LeaveRequest).where(LeaveRequest.id == request_id)
               .values(integrations_running_since=utcnow() - age))
    db.flush()


def _events(db):
    return db.scalar(select(func.count()).select_from(SandboxCalendarEvent))


def _retries(api, people, path):
    return [h for h in api.get(path, as_=people["exec"]).json["history"] if h["action"] == "integrations_retried"]


def _calendar_failed(api, db, people, set_env):
    """An approved request whose calendar event failed (chat posted), the calendar then repaired."""
    set_env(CALENDAR_TEAM_CALENDAR_ID="invalid-team")
    path, request = _approved(api, people, db)
    assert request["calendar_event_id"] is None and request["chat_message_ts"], request
    set_env(CALENDAR_TEAM_CALENDAR_ID=None)
    return path, request


def test_a_retry_while_another_run_calls_the_providers_is_409_and_makes_nothing(api, db, people, set_env,
                                                                                  monkeypatch):
    """A retry clicked again while the first retry waits for the calendar: the second answers 409 (the error body
    of decisions.md section 4) and creates nothing; the first makes the event once."""
    from chalicelib.providers.calendar.sandbox import SandboxCalendar

    path, request = _calendar_failed(api, db, people, set_env)
    real_insert, during = SandboxCalendar.insert_event, []

    def insert_event(self, *args, **kwargs):
        if not during:  # the first run is at the calendar: the second retry arrives now (once)
            during.append(None)
            during[0] = api.post(f"{path}/retry-integrations", as_=people["exec"])
        return real_insert(self, *args, **kwargs)

    monkeypatch.setattr(SandboxCalendar, "insert_event", insert_event)
    first = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert first.status == 200 and first.json["request"]["calendar_event_id"], first
    assert during[0].status == 409 and during[0].json == ALREADY_RUNNING, during
    assert _events(db) == 1
    assert len(_chat_posts(db, "C_TEAM")) == 1
    assert len(_retries(api, people, path)) == 1  # the refused retry left no history entry
    assert _claimed_since(db, request["id"]) is None  # and the first run let the claim go


def test_a_retry_of_a_claimed_request_is_409(api, db, people, set_env):
    from datetime import timedelta

    path, request = _calendar_failed(api, db, people, set_env)
    _claim(db, request["id"], timedelta(minutes=9))  # a run started nine minutes ago and still going
    answer = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert answer.status == 409 and answer.json == ALREADY_RUNNING, answer
    assert _events(db) == 0 and _retries(api, people, path) == []
    assert _claimed_since(db, request["id"]) is not None  # not ours to let go


def test_a_stale_claim_is_taken_over(api, db, people, set_env):
    """A run that died (its Lambda timed out) leaves its claim; after ten minutes a retry takes it over."""
    from datetime import timedelta

    path, request = _calendar_failed(api, db, people, set_env)
    _claim(db, request["id"], timedelta(minutes=11))
    answer = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert answer.status == 200 and answer.json["request"]["calendar_event_id"], answer
    assert _events(db) == 1 and "calendar" not in (answer.json["request"]["integration_errors"] or {})
    assert _claimed_since(db, request["id"]) is None


def test_every_run_lets_its_claim_go(api, db, people):
    """After the approval's run, a retry and the reversal of a cancellation the claim is clear; the read model does
    not show it."""
    map_user(db, people["employee"], ledger_id="EMP-invalid")  # the ledger fails: something to retry
    path, request = _approved(api, people, db)
    assert request["ledger_leave_application_id"] is None and "integrations_running_since" not in request
    assert _claimed_since(db, request["id"]) is None
    map_user(db, people["employee"])
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert retried.status == 200 and retried.json["request"]["ledger_leave_application_id"], retried
    assert _claimed_since(db, request["id"]) is None
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    after = api.get(path, as_=people["exec"]).json["request"]
    assert after["ledger_leave_application_id"] is None and after["calendar_event_id"] is None  # reversed
    assert _claimed_since(db, request["id"]) is None


def test_the_approval_run_of_a_claimed_request_does_nothing(api, db, people):
    """The approval's own run finds another run holding the request (a retry that came first): it leaves the
    integrations to that run, creating and recording nothing."""
    from datetime import timedelta

    request = api.post("/api/leave/requests", as_=people["employee"], json=BODY).json["request"]
    path = f"/api/leave/requests/{request['id']}"
    api.post(f"{path}/approve", as_=people["exec"])
    _claim(db, request["id"], timedelta(seconds=1))
    assert api.post(f"{path}/approve", as_=people["exec"]).status == 200
    after = api.get(path, as_=people["exec"]).json["request"]
    assert after["status"] == "approved" and after["integration_errors"] is None
    assert after["calendar_event_id"] is None and after["chat_message_ts"] is None
    assert _events(db) == 0 and _chat_posts(db) == []
    assert _claimed_since(db, request["id"]) is not None


def test_a_cancellation_during_a_retry_is_reversed_once_by_the_run(api, db, people, set_env, monkeypatch):
    """Cancelled while a retry waits for the calendar: the cancellation's reversal finds the run holding the request
    and leaves it to the run, which reverses both what it just made (the event) and what was there before (the
    chat post: one cancellation message)."""
    from chalicelib.providers.calendar.sandbox import SandboxCalendar

    path, request = _calendar_failed(api, db, people, set_env)
    real_insert, during = SandboxCalendar.insert_event, []

    def insert_event(self, *args, **kwargs):
        if not during:
            during.append(None)
            during[0] = api.post(f"{path}/cancel", as_=people["employee"])
        return real_insert(self, *args, **kwargs)

    monkeypatch.setattr(SandboxCalendar, "insert_event", insert_event)
    answer = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert during[0].status == 200 and during[0].json["request"]["status"] == "cancelled", during
    assert answer.status == 200 and answer.json["request"]["status"] == "cancelled", answer
    after = api.get(path, as_=people["exec"]).json["request"]
    assert _events(db) == 0 and after["calendar_event_id"] is None
    posts = _chat_posts(db, "C_TEAM")
    assert len(posts) == 2 and posts[1].startswith(":x:"), posts
    assert after["chat_message_ts"] == request["chat_message_ts"]  # the original post's ts is kept
    assert "calendar" not in (after["integration_errors"] or {})
    assert _claimed_since(db, request["id"]) is None


def _abandoned(api, db, people, path):
    """An approved request whose run stopped holding the claim (a minute ago), then cancelled: the cancellation's
    reversal leaves it to that run, so nothing is reversed yet."""
    from datetime import timedelta

    from chalicelib.areas.leave.models import LeaveRequest
    from chalicelib.core.ids import utcnow

    request = db.get(LeaveRequest, path.rsplit("/", 1)[1])
    request.integrations_running_since = utcnow() - timedelta(minutes=1)
    db.flush()
    assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    db.expire_all()
    assert request.calendar_event_id and len(_chat_posts(db, "C_TEAM")) == 1  # left to the run holding it
    request.integrations_running_since = utcnow() - timedelta(minutes=11)  # that run never came back
    db.flush()
    return request


def test_the_abandoned_cancellations_job_reverses_them_once_through_the_scheduled_handler(api, db, people, client):
    path, approved = _approved(api, people, db)
    request = _abandoned(api, db, people, path)
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    assert client.lambda_.invoke("leave_reverse_abandoned", event).payload == {"found": 1, "reversed": 1,
                                                                                "failed": 0}
    assert client.lambda_.invoke("leave_reverse_abandoned", event).payload == {"found": 0, "reversed": 0,
                                                                                "failed": 0}
    db.expire_all()
    assert db.get(SandboxCalendarEvent, approved["calendar_event_id"]) is None
    assert request.calendar_event_id is None and request.integrations_running_since is None
    posts = _chat_posts(db, "C_TEAM")
    assert len(posts) == 2 and "Cancelled" in posts[1]


def test_the_abandoned_cancellations_job_runs_from_the_cli_and_leaves_live_claims(api, db, people, capsys):
    import json
    from datetime import timedelta

    from chalicelib import cli
    from chalicelib.core.ids import utcnow

    path, approved = _approved(api, people, db)
    request = _abandoned(api, db, people, path)
    request.integrations_running_since = utcnow() - timedelta(minutes=9)  # a run may still answer: not touched
    db.flush()
    assert cli.main(["job", "leave-reverse-abandoned"]) == 0
    assert json.loads(capsys.readouterr().out) == {"found": 0, "reversed": 0, "failed": 0}
    request.integrations_running_since = utcnow() - timedelta(minutes=11)
    db.flush()
    assert cli.main(["job", "leave-reverse-abandoned"]) == 0
    assert json.loads(capsys.readouterr().out) == {"found": 1, "reversed": 1, "failed": 0}
    assert cli.main(["job", "leave-reverse-abandoned"]) == 0
    assert json.loads(capsys.readouterr().out)["found"] == 0
    db.expire_all()
    assert db.get(SandboxCalendarEvent, approved["calendar_event_id"]) is None


# ---------------------------------------------------------------- the planner booking is an absence booking

def test_the_planner_booking_names_the_absence_event(api, db, people, set_env):
    """Productive: an absence booking is linked to an event (the absence category). The sandbox's default is its
    Vacation event; PLANNER_ABSENCE_EVENT_ID names another."""
    from chalicelib.providers.planner.sandbox import SANDBOX_ABSENCE_EVENT_ID, SANDBOX_EVENTS

    map_user(db, people["employee"])
    _, request = _approved(api, people, db)
    [booking] = _bookings(db)
    assert SANDBOX_EVENTS[SANDBOX_ABSENCE_EVENT_ID] == "Vacation"
    assert booking.event_id == SANDBOX_ABSENCE_EVENT_ID and str(booking.id) == request["planner_booking_id"]


def test_the_absence_event_setting_is_the_one_booked(api, db, people, set_env):
    map_user(db, people["employee"])
    set_env(PLANNER_ABSENCE_EVENT_ID="5002")
    _approved(api, people, db)
    assert [b.event_id for b in _bookings(db)] == ["5002"]


@pytest.fixture
def live_planner(set_env):
    import responses

    set_env(PLANNER_MODE="live", PLANNER_API_TOKEN="PT", PLANNER_ORGANIZATION_ID="913")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        yield mocked


def test_live_without_an_absence_event_the_booking_is_skipped_not_sent(api, db, people, live_planner):
    map_user(db, people["employee"], planner_id="2835")
    _, request = _approved(api, people, db)
    error = request["integration_errors"]["planner"]
    assert error.startswith("Not configured") and "PLANNER_ABSENCE_EVENT_ID" in error
    assert request["planner_booking_id"] is None and request["ledger_leave_application_id"]
    assert len(live_planner.calls) == 0  # nothing sent to Productive


def test_live_the_booking_sends_the_absence_event_relationship(api, db, people, live_planner, set_env):
    import json

    from chalicelib.providers.planner.live import DEFAULT_BASE_URL

    set_env(PLANNER_ABSENCE_EVENT_ID="9")
    live_planner.post(f"{DEFAULT_BASE_URL}/bookings", status=201, json={"data": {"id": "1234", "type": "bookings"}})
    map_user(db, people["employee"], planner_id="2835")
    _, request = _approved(api, people, db)
    assert request["planner_booking_id"] == "1234" and request["integration_errors"] is None
    [call] = live_planner.calls
    assert json.loads(call.request.body)["data"]["relationships"] == {
        "person": {"data": {"type": "people", "id": "2835"}}, "event": {"data": {"type": "events", "id": "9"}}}
