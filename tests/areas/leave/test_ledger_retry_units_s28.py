"""A ledger application retried after its answer was lost is the one first sent (session 28, docs/decisions/leave.md,
Integrations). The hours per day of a request's leave application depend on the public holidays of the requester's
region when they are counted; they are counted once, at the request's first ledger attempt, kept on the request and
sent unchanged on every retry, so the retry carries the same body and Idempotency-Key and the ledger answers the
application it made instead of making a second one. Through HTTP against the sandbox leave ledger (which keeps what
it made and replays a key as Xero does)."""
import pytest
from sqlalchemy import select

from chalicelib.core.errors import GatewayTimeout
from chalicelib.providers.payroll.models import PayrollSandboxLeaveApplication
from chalicelib.providers.payroll.sandbox import LEAVE_TYPES, SandboxPayroll
from tests.areas.leave.factories import mapped_team

ANNUAL = LEAVE_TYPES[0]["id"]
WEEK = {"leave_type_id": ANNUAL, "leave_type_name": "Annual Leave", "start_date": "2026-12-07",
        "end_date": "2026-12-11"}  # Monday to Friday: 5 working days, 38 hours without total_hours
SHOW_DAY = "2026-12-09"  # the Wednesday of WEEK


@pytest.fixture
def people(db):
    return mapped_team(db, name="Eve Employee", location="NSW")


def _annual(api, user):
    answer = api.post("/api/leave/balances/refresh", as_=user)
    assert answer.status == 200, answer
    return {b["leave_type_id"]: b["balance_hours"] for b in answer.json["balances"]}[ANNUAL]


def _scheduled(db, employee_id="EMP-0001"):
    db.expire_all()
    return list(db.scalars(select(PayrollSandboxLeaveApplication).where(
        PayrollSandboxLeaveApplication.employee_id == employee_id,
        PayrollSandboxLeaveApplication.status == "SCHEDULED")))


def _holiday(api, people, region):
    made = api.post("/api/calendar/public-holidays", as_=people["exec"],
                    json={"date": SHOW_DAY, "name": "Local show day", "region": region})
    assert made.status == 201, made


def _approved_with_the_ledger_answer_lost(api, people, monkeypatch) -> str:
    """WEEK filed and approved while the ledger makes the application and its answer is lost (a timeout: no id
    kept, the ledger's failure recorded). Answers the request's path."""
    real = SandboxPayroll.create_leave_application

    def made_then_timed_out(self, **kwargs):
        real(self, **kwargs)
        raise GatewayTimeout("The leave ledger did not answer in time")

    monkeypatch.setattr(SandboxPayroll, "create_leave_application", made_then_timed_out)
    made = api.post("/api/leave/requests", as_=people["employee"], json=WEEK)
    assert made.status == 201, made
    path = f"/api/leave/requests/{made.json['request']['id']}"
    assert api.post(f"{path}/approve", as_=people["exec"]).status == 200
    assert api.post(f"{path}/approve", as_=people["exec"]).status == 200
    request = api.get(path, as_=people["exec"]).json["request"]
    assert request["ledger_leave_application_id"] is None and "ledger" in request["integration_errors"], request
    monkeypatch.undo()
    return path


def test_a_retry_after_a_lost_ledger_answer_books_the_leave_once_when_a_holiday_was_added(api, db, people,
                                                                                            monkeypatch):
    """A public holiday entered inside the leave before the retry (4 working days, not 5) does not make a second
    application: the retry sends the 38 hours first sent and links the application the ledger made."""
    before = _annual(api, people["employee"])
    path = _approved_with_the_ledger_answer_lost(api, people, monkeypatch)
    [made] = _scheduled(db)
    _holiday(api, people, "NSW")

    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])

    assert retried.status == 200, retried
    assert retried.json["request"]["ledger_leave_application_id"] == made.id, retried
    assert [row.id for row in _scheduled(db)] == [made.id]
    assert before - _annual(api, people["employee"]) == pytest.approx(38)


def test_a_retry_after_a_lost_ledger_answer_books_the_leave_once_when_the_requester_moved(api, db, people,
                                                                                           monkeypatch):
    """The requester's location changed before the retry to a region with a holiday inside the leave: the retry
    still sends what was first sent, and the ledger holds one application."""
    _holiday(api, people, "VIC")
    path = _approved_with_the_ledger_answer_lost(api, people, monkeypatch)
    [made] = _scheduled(db)
    moved = api.put(f"/api/admin/users/{people['employee'].id}", as_=people["exec"], json={"location": "VIC"})
    assert moved.status == 200, moved

    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])

    assert retried.status == 200, retried
    assert retried.json["request"]["ledger_leave_application_id"] == made.id, retried
    assert [row.id for row in _scheduled(db)] == [made.id]


def test_cancelling_after_such_a_retry_gives_every_hour_back(api, db, people, monkeypatch):
    """The reversal path after the retry: the one application is rejected and the balance is whole again."""
    before = _annual(api, people["employee"])
    path = _approved_with_the_ledger_answer_lost(api, people, monkeypatch)
    _holiday(api, people, "NSW")
    assert api.post(f"{path}/retry-integrations", as_=people["exec"]).status == 200

    cancelled = api.post(f"{path}/cancel", as_=people["employee"])

    assert cancelled.status == 200, cancelled
    assert api.get(path, as_=people["exec"]).json["request"]["ledger_leave_application_id"] is None
    assert _scheduled(db) == []
    assert _annual(api, people["employee"]) == pytest.approx(before)


def test_a_first_booking_counts_the_holidays_entered_before_it(api, db, people):
    """What is kept is what the first attempt counted, so a holiday entered before the approval is counted as
    before (session 24): Monday to Friday less a holiday is 30.4 hours."""
    _holiday(api, people, "NSW")
    before = _annual(api, people["employee"])
    made = api.post("/api/leave/requests", as_=people["employee"], json=WEEK)
    path = f"/api/leave/requests/{made.json['request']['id']}"
    api.post(f"{path}/approve", as_=people["exec"])
    approved = api.post(f"{path}/approve", as_=people["exec"])
    assert approved.status == 200, approved

    assert [float(row.hours) for row in _scheduled(db)] == [pytest.approx(30.4)]
    assert before - _annual(api, people["employee"]) == pytest.approx(30.4)


def test_a_ledger_switched_off_at_the_first_run_counts_the_hours_when_it_is_on(api, db, people, set_env):
    """An attempt skipped because the ledger is off sent nothing, so it keeps nothing: the retry once the ledger is
    on counts the holiday entered meanwhile (30.4 hours, not 38)."""
    set_env(LEDGER_MODE="off")
    made = api.post("/api/leave/requests", as_=people["employee"], json=WEEK)
    path = f"/api/leave/requests/{made.json['request']['id']}"
    api.post(f"{path}/approve", as_=people["exec"])
    skipped = api.post(f"{path}/approve", as_=people["exec"])
    assert skipped.status == 200, skipped
    assert api.get(path, as_=people["exec"]).json["request"]["integration_errors"]["ledger"].startswith(
        "Not configured")
    _holiday(api, people, "NSW")
    set_env(LEDGER_MODE="sandbox")

    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])

    assert retried.status == 200 and retried.json["request"]["ledger_leave_application_id"], retried
    assert [float(row.hours) for row in _scheduled(db)] == [pytest.approx(30.4)]
