"""Code no test ran (session 29 coverage audit): a request with no working day in the ledger, a live chat and a
squad without a channel, a provider's unexpected error."""
from __future__ import annotations

from decimal import Decimal

import pytest
import responses
from sqlalchemy import select

from chalicelib.providers.payroll.models import PayrollSandboxLeaveApplication
from chalicelib.providers.payroll.sandbox import LEAVE_TYPES, SandboxPayroll
from tests.areas.leave.factories import map_user, mapped_team
from tests.factories import make_squad, make_user

WEEKEND = {"leave_type_id": LEAVE_TYPES[0]["id"], "leave_type_name": "Annual Leave", "start_date": "2026-12-05",
           "end_date": "2026-12-06"}  # Saturday and Sunday


@pytest.fixture
def people(db):
    return mapped_team(db, name="Eve Employee")


def _approved(api, people, body):
    from tests.areas.leave.factories import approved_leave

    return approved_leave(api, people, body)


@pytest.mark.parametrize("hours, taken", [(None, Decimal("7.6")), (4, Decimal("4"))])
def test_a_request_without_a_working_day_puts_its_hours_on_its_first_day(api, db, people, hours, taken):
    body = WEEKEND if hours is None else {**WEEKEND, "total_hours": hours}
    _, request = _approved(api, people, body)
    assert request["ledger_leave_application_id"], request["integration_errors"]
    db.expire_all()
    application = db.get(PayrollSandboxLeaveApplication, request["ledger_leave_application_id"])
    assert application.hours == taken


@responses.activate
def test_a_live_chat_and_a_squad_without_a_channel_is_skipped(api, db, set_env):
    set_env(CHAT_MODE="live", CHAT_BOT_TOKEN="xoxb-test")
    squad = make_squad(db)  # no chat channel
    employee = make_user(db, squad_id=squad.id, name="Eve Employee")
    map_user(db, employee)
    _, request = _approved(api, {"employee": employee, "exec": make_user(db, access_level="executive")}, WEEKEND)
    assert request["integration_errors"]["chat"] == "Not configured: the requester's squad has no chat channel"
    assert request["chat_message_ts"] is None and request["ledger_leave_application_id"]
    assert not [call for call in responses.calls if "slack" in call.request.url]  # nothing was posted


def test_a_providers_unexpected_error_fails_that_integration_alone(api, db, people, monkeypatch):
    def broken(self, **kwargs):
        raise RuntimeError("surprise")

    monkeypatch.setattr(SandboxPayroll, "create_leave_application", broken)
    path, request = _approved(api, people, WEEKEND)
    assert request["integration_errors"]["ledger"] == "Unexpected error: RuntimeError"
    assert request["ledger_leave_application_id"] is None
    assert request["calendar_event_id"] and request["chat_message_ts"] and request["planner_booking_id"]
    monkeypatch.undo()
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert retried.status == 200 and retried.json["request"]["ledger_leave_application_id"], retried



@pytest.fixture
def batches_of_two(db, monkeypatch):
    """The cache refresh in batches of two, each ledger call 60 s on the patched clock (answers the call log), four
    mapped users and the types cached."""
    from chalicelib.areas.leave import jobs, service_cache
    from tests.areas.leave.test_job_budgets_s23 import Clock, _slow

    clock = Clock()
    monkeypatch.setattr("chalicelib.core.timeutil.clock", clock)
    monkeypatch.setattr(service_cache.refresh_stale, "__kwdefaults__",
                        {**service_cache.refresh_stale.__kwdefaults__, "batch": 2})
    jobs.cache_refresh()  # the types cached first: the runs below ask for balances only
    users = [make_user(db) for _ in range(4)]
    for n, user in enumerate(users):
        map_user(db, user, ledger_id=f"EMP-{n:04d}")
    return users, _slow(monkeypatch, SandboxPayroll, "leave_balances", clock)


def test_the_cache_refresh_starts_no_batch_once_its_budget_is_spent(db, monkeypatch, batches_of_two):
    """A budget of 100 s: the first batch's two calls (at 0 and 60 s) spend it, so the second batch is not started
    and the answer says `more`; the next run goes on with the two left."""
    from chalicelib.areas.leave import jobs

    monkeypatch.setattr(jobs, "CACHE_REFRESH_SECONDS", 100, raising=False)
    _, started = batches_of_two
    assert jobs.cache_refresh() == {"types": 0, "balances_refreshed": 2, "balances_failed": 0, "more": True}
    assert len(started) == 2
    assert jobs.cache_refresh() == {"types": 0, "balances_refreshed": 2, "balances_failed": 0}  # one batch left
    assert len(started) == 4
    assert jobs.cache_refresh() == {"types": 0, "balances_refreshed": 0, "balances_failed": 0}


def test_a_user_unmapped_while_an_earlier_batch_is_asked_is_a_failure_not_a_call(db, monkeypatch, batches_of_two):
    """The second batch's mappings are read when it starts: users unmapped meanwhile (during the first batch's
    calls) are failures, as refresh_balances answers 409 for them, and the ledger is not asked for them."""
    from sqlalchemy import delete

    from chalicelib.areas.connections.models import UserMapping
    from chalicelib.areas.leave import jobs
    from chalicelib.areas.leave.models import LeaveBalance

    users, started = batches_of_two
    slow = SandboxPayroll.leave_balances
    asked = []

    def unmaps_the_others(self, employee):
        if not asked:  # the first call: every user but the one asked is unmapped
            db.execute(delete(UserMapping).where(UserMapping.ledger_id != employee))
        asked.append(employee)
        return slow(self, employee)

    monkeypatch.setattr(SandboxPayroll, "leave_balances", unmaps_the_others)
    answer = jobs.cache_refresh()
    # the first batch's other user was read before the unmapping: asked; the second batch's two: failures
    assert answer == {"types": 0, "balances_refreshed": 2, "balances_failed": 2}, answer
    assert len(asked) == 2
    db.expire_all()
    assert len(set(db.scalars(select(LeaveBalance.user_id)))) == 2


def test_a_stale_claim_on_a_cancelled_request_with_nothing_left_is_let_go_and_skipped(db):
    """The run that held the claim died after it had reversed everything (every id cleared, the chat cancellation
    posted): the job finds the stale claim, reads under it that nothing is left, calls no provider, lets the claim go
    (the next run finds nothing) and counts it skipped, not reversed."""
    from datetime import timedelta

    from chalicelib.areas.leave import jobs
    from chalicelib.areas.leave.models import LeaveRequest
    from chalicelib.core.ids import utcnow
    from tests.areas.leave.factories import make_leave

    request = make_leave(db, make_user(db), status="cancelled", reversal_attempts=1,
                         integrations_running_since=utcnow() - timedelta(minutes=11))
    assert jobs.reverse_abandoned() == {"found": 1, "reversed": 0, "failed": 0, "skipped": 1}
    db.expire_all()
    stored = db.get(LeaveRequest, request.id)
    assert stored.integrations_running_since is None and stored.reversal_attempts == 1
    assert jobs.reverse_abandoned() == {"found": 0, "reversed": 0, "failed": 0}


def test_a_reversal_retried_while_a_run_holds_the_request_is_a_409(api, db):
    from chalicelib.core.ids import utcnow
    from tests.areas.leave.factories import make_leave

    executive = make_user(db, access_level="executive")
    request = make_leave(db, make_user(db), status="cancelled", calendar_event_id="evt-kept", reversal_attempts=1,
                         integration_errors={"calendar": "Reversal: Calendar not found"},
                         integrations_running_since=utcnow())  # a run under way
    answer = api.post(f"/api/leave/requests/{request.id}/retry-integrations", as_=executive)
    assert answer.status == 409 and answer.json == {"error": "Integrations are already running for this request"}
    db.expire_all()
    assert db.get(type(request), request.id).calendar_event_id == "evt-kept"


def test_a_drop_during_every_attempt_answers_the_last_read_stored_stale(api, db, monkeypatch):
    """A booking's drop lands during both of the user's attempts: the last answer is stored all the same (the user
    gets balances), but stale, an hour older than its read, so the next read asks the ledger again."""
    from chalicelib.areas.leave.models import LeaveBalance
    from chalicelib.areas.leave.service_cache import CACHE_TTL, mark_balances_stale
    from chalicelib.core.ids import utcnow

    user = make_user(db)
    map_user(db, user, ledger_id="EMP-0001")
    original, asked = SandboxPayroll.leave_balances, []

    def leave_balances(self, employee_id):
        answer = original(self, employee_id)
        asked.append(employee_id)
        mark_balances_stale(db, user.id)  # a booking's drop during every read
        db.flush()
        return answer

    monkeypatch.setattr(SandboxPayroll, "leave_balances", leave_balances)
    before = utcnow()
    refreshed = api.post("/api/leave/balances/refresh", as_=user)
    assert refreshed.status == 200 and len(refreshed.json["balances"]) == 3, refreshed
    assert len(asked) == 2
    db.expire_all()
    stamps = set(db.scalars(select(LeaveBalance.fetched_at).where(LeaveBalance.user_id == user.id)))
    stamp = stamps.pop()
    assert not stamps and before - CACHE_TTL <= stamp <= utcnow() - CACHE_TTL  # stale from the start
    assert api.get("/api/leave/balances", as_=user).status == 200
    assert len(asked) == 4  # the next read asked again (twice: the drop came during it too)
