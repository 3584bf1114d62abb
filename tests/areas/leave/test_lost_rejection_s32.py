"""Session 32 (h8): a cancelled request's leave application rejected by the ledger whose answer was lost (a timeout)
kept its reversal failed for good: the reversal is recorded failed with the application's id kept, and every retry
(the retry route, the hourly `leave-reverse-abandoned` job) rejected again, which Xero refuses (its reject takes a
REQUESTED or SCHEDULED application only, Xero-OpenAPI 2.38.0 release notes), until the reversal gave up and told the
executives. Now a refused rejection reads the application's state (`leave_application_status`, Xero's
GET /LeaveApplications/{id}) and one the ledger holds as REJECTED is the reversal done; any other state, or a read
that fails, stays the reversal's failure. The sandbox refuses a second rejection as Xero does (502 naming the state).
Through HTTP and the scheduled handler against the sandboxes; the live adapter's read with `responses`."""
from __future__ import annotations

from datetime import timedelta

import pytest
import responses
from sqlalchemy import update

from chalicelib.areas.leave.models import LeaveRequest
from chalicelib.core.errors import BadGateway, GatewayTimeout
from chalicelib.core.ids import utcnow
from chalicelib.providers.payroll.live import PAYROLL
from chalicelib.providers.payroll.models import PayrollSandboxLeaveApplication
from chalicelib.providers.payroll.sandbox import LEAVE_TYPES, SandboxPayroll
from tests.areas.leave.factories import mapped_team
from tests.areas.leave.test_integration_timeouts_s27 import _approved
from tests.areas.leave.test_payroll_live import payroll
from tests.areas.leave.test_reversal_retry_s27 import _run_job

SECOND_REJECT = "The leave application is REJECTED; only a REQUESTED or SCHEDULED leave application can be rejected"
LOST = "The leave ledger did not answer in time"


@pytest.fixture
def people(db):
    return mapped_team(db, name="Eve Employee")


def _applications(db):
    db.expire_all()
    return list(db.query(PayrollSandboxLeaveApplication))


def _row(db, path):
    db.expire_all()
    return db.get(LeaveRequest, path.rsplit("/", 1)[1])


def _cancelled_rejection_lost(api, db, people, monkeypatch):
    """An approved request cancelled while the ledger made its rejection and the answer was lost: the application
    is REJECTED in the ledger, the request keeps its id with the reversal's failure recorded."""
    path = _approved(api, people)
    real = SandboxPayroll.reject_leave_application

    def rejected_then_timed_out(self, leave_application_id):
        real(self, leave_application_id)
        raise GatewayTimeout(LOST)

    with monkeypatch.context() as patch:
        patch.setattr(SandboxPayroll, "reject_leave_application", rejected_then_timed_out)
        assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    row = _row(db, path)
    assert row.status == "cancelled" and row.ledger_leave_application_id
    assert row.integration_errors == {"ledger": f"Reversal: {LOST}"}
    assert [a.status for a in _applications(db)] == ["REJECTED"]
    return path, row.ledger_leave_application_id


def _ledger_reversed(db, path):
    row = _row(db, path)
    assert row.ledger_leave_application_id is None, row.integration_errors
    assert "ledger" not in (row.integration_errors or {})
    assert [a.status for a in _applications(db)] == ["REJECTED"]
    return row


# ---------------------------------------------------------------- the sandbox, as Xero

def test_the_sandbox_refuses_a_second_rejection_naming_the_state(db):
    sandbox = SandboxPayroll(db=db)
    made = sandbox.create_leave_application(employee_id="EMP-h8", leave_type_id=LEAVE_TYPES[0]["id"],
                                            title="Annual Leave", start_date="2026-12-07", end_date="2026-12-08")
    assert sandbox.leave_application_status(made) == "SCHEDULED"
    sandbox.reject_leave_application(made)
    with pytest.raises(BadGateway) as refused:
        sandbox.reject_leave_application(made)
    assert refused.value.message == f"The leave ledger refused the request: {SECOND_REJECT}"
    assert sandbox.leave_application_status(made) == "REJECTED"
    with pytest.raises(BadGateway, match="leave application could not be found"):
        sandbox.leave_application_status("00000000-0000-4000-8000-000000000000")


# ---------------------------------------------------------------- through HTTP and the job

def test_a_retry_reverses_a_cancellation_whose_rejection_answer_was_lost(api, db, people, monkeypatch):
    path, _ = _cancelled_rejection_lost(api, db, people, monkeypatch)
    answer = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert answer.status == 200, answer
    assert answer.json["request"]["ledger_leave_application_id"] is None, answer.json["request"]["integration_errors"]
    assert "ledger" not in (answer.json["request"]["integration_errors"] or {})
    row = _ledger_reversed(db, path)
    assert row.reversal_attempts == 2 and row.integrations_running_since is None
    again = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert again.status == 409, again  # nothing left to reverse: one effect


def test_a_retry_meets_xeros_refusal_of_a_second_rejection(api, db, people, monkeypatch):
    """The same, with Xero's refusal of a second rejection made by the test itself (whatever the sandbox does), so
    that the area's part is shown on its own: the retry is refused by the ledger and still reverses."""
    path, application_id = _cancelled_rejection_lost(api, db, people, monkeypatch)
    real, asked = SandboxPayroll.reject_leave_application, []

    def as_xero(self, leave_application_id):
        asked.append(leave_application_id)
        if self.db.get(PayrollSandboxLeaveApplication, leave_application_id).status == "REJECTED":
            raise BadGateway("The leave ledger refused the request: The leave application cannot be rejected")
        real(self, leave_application_id)

    monkeypatch.setattr(SandboxPayroll, "reject_leave_application", as_xero)
    answer = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert answer.status == 200, answer
    assert asked == [application_id]  # rejected once more, refused: then read, not rejected again
    _ledger_reversed(db, path)


def test_the_job_reverses_a_cancellation_whose_rejection_answer_was_lost(api, db, people, client, monkeypatch):
    path, _ = _cancelled_rejection_lost(api, db, people, monkeypatch)
    db.execute(update(LeaveRequest).where(LeaveRequest.id == path.rsplit("/", 1)[1])
               .values(updated_at=utcnow() - timedelta(minutes=61)))
    assert _run_job(client) == {"found": 1, "reversed": 1, "failed": 0}
    _ledger_reversed(db, path)
    assert _run_job(client) == {"found": 0, "reversed": 0, "failed": 0}


def test_a_read_that_fails_leaves_the_reversal_failed(api, db, people, monkeypatch):
    path, application_id = _cancelled_rejection_lost(api, db, people, monkeypatch)

    def unreachable(self, leave_application_id):
        raise GatewayTimeout(LOST)

    with monkeypatch.context() as patch:
        patch.setattr(SandboxPayroll, "leave_application_status", unreachable)
        answer = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert answer.status == 200, answer
    row = _row(db, path)
    assert row.ledger_leave_application_id == application_id  # kept: tried again later
    assert row.integration_errors["ledger"] == f"Reversal: The leave ledger refused the request: {SECOND_REJECT}"
    answer = api.post(f"{path}/retry-integrations", as_=people["exec"])  # the ledger answers again
    assert answer.status == 200, answer
    _ledger_reversed(db, path)


def test_a_real_refusal_of_a_scheduled_application_stays_a_failure(api, db, people, monkeypatch):
    """The ledger refuses the rejection and still holds the application SCHEDULED: not reversed."""
    path = _approved(api, people)

    def refused(self, leave_application_id):
        raise BadGateway("The leave ledger refused the request: The pay run is being processed")

    with monkeypatch.context() as patch:
        patch.setattr(SandboxPayroll, "reject_leave_application", refused)
        assert api.post(f"{path}/cancel", as_=people["employee"]).status == 200
    row = _row(db, path)
    assert row.ledger_leave_application_id and [a.status for a in _applications(db)] == ["SCHEDULED"]
    assert row.integration_errors["ledger"] == ("Reversal: The leave ledger refused the request: The pay run is "
                                                "being processed")


# ---------------------------------------------------------------- the live adapter (never the network)

APPLICATION = "1d4cd583-0107-4386-936b-672eb3d1f624"


def _period(status):
    return {"PayPeriodStartDate": "/Date(1573171200000+0000)/", "PayPeriodEndDate": "/Date(1573689600000+0000)/",
            "LeavePeriodStatus": status, "NumberOfUnits": 7.6}


def _answer(*statuses, application_id=APPLICATION):
    """GET /LeaveApplications/{LeaveApplicationID}'s documented answer (xero-payroll-au.yaml, getLeaveApplication)."""
    return {"Id": "00000000-0000-0000-0000-000000000000", "Status": "OK", "ProviderName": "provider-name",
            "DateTimeUTC": "/Date(1573679791457)/", "LeaveApplications": [{
                "LeaveApplicationID": application_id, "EmployeeID": "cdfb8371-0b21-4b8a-8903-1024df6c391e",
                "LeaveTypeID": "184ea8f7-d143-46dd-bef3-0c60e1aa6fca",
                "LeavePeriods": [_period(status) for status in statuses], "Title": "vacation",
                "StartDate": "/Date(1573516800000+0000)/", "EndDate": "/Date(1573516800000+0000)/",
                "UpdatedDateUTC": "/Date(1573623008000+0000)/", "PayOutType": "DEFAULT"}]}


@responses.activate
@pytest.mark.parametrize("statuses, state", [
    (("REJECTED",), "REJECTED"),
    (("REJECTED", "REJECTED"), "REJECTED"),
    (("SCHEDULED",), "SCHEDULED"),
    (("PROCESSED", "SCHEDULED"), "PROCESSED"),  # the v2 listing's example: part of it in a posted pay run
    (("REQUESTED",), "REQUESTED"),
    (("REJECTED", "SCHEDULED"), "SCHEDULED"),
    (("CANCELLED",), "CANCELLED"),  # a state the document does not list: as answered
])
def test_the_live_read_of_an_applications_state(statuses, state):
    responses.get(f"{PAYROLL}/LeaveApplications/{APPLICATION}", json=_answer(*statuses))
    assert payroll().leave_application_status(APPLICATION) == state
    assert responses.calls[0].request.method == "GET"


@responses.activate
def test_the_live_read_takes_the_answer_under_another_id():
    """Xero answers a rejected leave request under its original id (XeroAPI/Xero-OpenAPI issue 590)."""
    responses.get(f"{PAYROLL}/LeaveApplications/{APPLICATION}",
                  json=_answer("REJECTED", application_id="3f93110a-df13-49c7-b82f-a069813df188"))
    assert payroll().leave_application_status(APPLICATION) == "REJECTED"


@responses.activate
@pytest.mark.parametrize("body, problem", [
    ({"LeaveApplications": []}, "does not know this leave application"),
    ({"Status": "OK"}, "answered without LeaveApplications"),
    ({"LeaveApplications": [{"LeaveApplicationID": APPLICATION}]}, "whose state cannot be read"),
    ({"LeaveApplications": [{"LeaveApplicationID": APPLICATION, "LeavePeriods": [{"NumberOfUnits": 7.6}]}]},
     "whose state cannot be read"),
    ({"LeaveApplications": [{"LeaveApplicationID": APPLICATION, "LeavePeriods": "REJECTED"}]},
     "leave periods that are not a list of objects"),
    ({"LeaveApplications": "x"}, "leave applications that are not a list of objects"),
])
def test_a_live_read_that_cannot_be_read_is_the_ledgers_502_never_rejected(body, problem):
    responses.get(f"{PAYROLL}/LeaveApplications/{APPLICATION}", json=body)
    with pytest.raises(BadGateway, match=problem):
        payroll().leave_application_status(APPLICATION)


@responses.activate
def test_a_live_read_refused_or_of_an_odd_id():
    responses.get(f"{PAYROLL}/LeaveApplications/{APPLICATION}", status=404, json={
        "Title": "Not Found", "Detail": "The resource you're looking for cannot be found", "Status": 404})
    with pytest.raises(BadGateway, match="refused the request"):
        payroll().leave_application_status(APPLICATION)
    odd = "../Employees?x="
    responses.get(f"{PAYROLL}/LeaveApplications/..%2FEmployees%3Fx%3D", json=_answer("REJECTED"))
    assert payroll().leave_application_status(odd) == "REJECTED"
    assert responses.calls[-1].request.path_url == "/payroll.xro/1.0/LeaveApplications/..%2FEmployees%3Fx%3D"
