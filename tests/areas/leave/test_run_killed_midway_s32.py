"""A run of a request's integrations stopped half way (session 32, audit "a provider sequence that fails halfway";
docs/decisions/leave.md, Integrations): the ledger made the leave application and the planner the booking, then
the function stopped (Lambda's timeout kills it: no exception handler runs) while the calendar was asked. Each
provider's id is recorded as it answers, so the ids made before the stop are kept: a retry after the claim went
stale (10 minutes, longer than Xero keeps the leave application's Idempotency-Key: 6) books nothing twice, and a
cancellation reverses them. Before, the run recorded every outcome at its end only: the ids were lost, and the
retry made a second leave application (a second deduction from the balance). Through HTTP, against the sandboxes
(the sandbox leave ledger keeps what it made and forgets a key after 6 minutes, as Xero)."""
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from chalicelib.areas.leave.models import LeaveRequest
from chalicelib.core.ids import utcnow
from chalicelib.providers.calendar.sandbox import SandboxCalendar
from chalicelib.providers.payroll.models import PayrollSandboxLeaveApplication
from chalicelib.providers.planner.models import PlannerSandboxBooking
from tests.areas.leave.factories import ANNUAL_LEAVE, mapped_team


class FunctionStopped(BaseException):
    """The function's end at its timeout: no `except Exception` of the run sees it (Lambda stops the process)."""


@pytest.fixture
def people(db):
    return mapped_team(db, name="Eve Employee")


def _applications(db):
    db.expire_all()
    return list(db.scalars(select(PayrollSandboxLeaveApplication)
                           .order_by(PayrollSandboxLeaveApplication.created_at)))


def stop(self, *args, **kwargs):
    """A provider method the function's end stops inside (monkeypatched onto a sandbox)."""
    raise FunctionStopped()


def approved_until_stopped(api, people, monkeypatch) -> tuple[str, str]:
    """The employee's leave approved with the providers as `monkeypatch` has set them, one of which stops the
    function (FunctionStopped, raised through the request); the patches are then undone. Answers (request id,
    path). The session's tests of a run stopped half way share it."""
    request = api.post("/api/leave/requests", as_=people["employee"], json=ANNUAL_LEAVE).json["request"]
    path = f"/api/leave/requests/{request['id']}"
    api.post(f"{path}/approve", as_=people["exec"])
    with pytest.raises(FunctionStopped):
        api.post(f"{path}/approve", as_=people["exec"])
    monkeypatch.undo()
    return request["id"], path


def _stopped_at_the_calendar(api, db, people, monkeypatch) -> tuple[str, str]:
    """The employee's leave approved; its run stops while the calendar is asked. Answers (request id, path)."""
    monkeypatch.setattr(SandboxCalendar, "insert_event", stop)
    return approved_until_stopped(api, people, monkeypatch)


def _later(db, request_id: str) -> None:
    """Eleven minutes later: the stopped run's claim is stale, and the ledger has forgotten its key (6 minutes)."""
    db.execute(update(LeaveRequest).where(LeaveRequest.id == request_id)
               .values(integrations_running_since=utcnow() - timedelta(minutes=11)))
    db.execute(update(PayrollSandboxLeaveApplication)
               .values(created_at=utcnow() - timedelta(minutes=11)))
    db.flush()


def test_the_ids_made_before_the_run_stopped_are_kept(api, db, people, monkeypatch):
    request_id, _path = _stopped_at_the_calendar(api, db, people, monkeypatch)
    [made] = _applications(db)  # the ledger made it before the run stopped
    stored = db.get(LeaveRequest, request_id)
    assert stored.status == "approved"
    assert stored.ledger_leave_application_id == made.id
    assert stored.planner_booking_id is not None
    assert stored.calendar_event_id is None and stored.chat_message_ts is None  # never asked or never answered


def test_a_retry_after_the_claim_went_stale_makes_no_second_leave_application(api, db, people, monkeypatch):
    request_id, path = _stopped_at_the_calendar(api, db, people, monkeypatch)
    [made] = _applications(db)
    _later(db, request_id)
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert retried.status == 200, retried
    body = retried.json["request"]
    assert body["ledger_leave_application_id"] == made.id and body["calendar_event_id"], body
    assert [row.id for row in _applications(db)] == [made.id]  # one leave application, not two
    assert [row.id for row in db.scalars(select(PlannerSandboxBooking))] == [body["planner_booking_id"]]


def test_a_cancellation_after_the_run_stopped_rejects_the_application(api, db, people, monkeypatch):
    request_id, path = _stopped_at_the_calendar(api, db, people, monkeypatch)
    _later(db, request_id)  # the cancellation's reversal takes the stale claim
    cancelled = api.post(f"{path}/cancel", as_=people["employee"])
    assert cancelled.status == 200, cancelled
    [made] = _applications(db)
    assert made.status == "REJECTED"  # the balance is given back
    after = api.get(path, as_=people["exec"]).json["request"]
    assert after["ledger_leave_application_id"] is None and after["planner_booking_id"] is None, after


# ---------------------------------------------------------------- a reversal stopped half way

def _run_job(client):
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    return client.lambda_.invoke("leave_reverse_abandoned", event).payload


def test_a_reversal_stopped_half_way_keeps_what_it_undid_and_the_job_does_not_undo_it_again(
        api, db, people, client, monkeypatch):
    """The cancellation's reversal rejected the ledger's application and removed the planner's booking, then the
    function stopped while the calendar was asked: the request no longer names what was undone, so the job that takes
    the stale claim asks the ledger to reject nothing twice (Xero documents its reject for a REQUESTED or SCHEDULED
    application only: a second reject could be refused, and the reversal recorded failed until it gave up and told
    the executives that leave already given back could not be)."""
    from chalicelib.providers.payroll.sandbox import SandboxPayroll

    request = api.post("/api/leave/requests", as_=people["employee"], json=ANNUAL_LEAVE).json["request"]
    path = f"/api/leave/requests/{request['id']}"
    api.post(f"{path}/approve", as_=people["exec"])
    assert api.post(f"{path}/approve", as_=people["exec"]).status == 200
    [made] = _applications(db)
    real_reject, rejected = SandboxPayroll.reject_leave_application, []

    def reject(self, application_id):
        rejected.append(application_id)
        return real_reject(self, application_id)

    def stop(self, *args, **kwargs):
        raise FunctionStopped()

    monkeypatch.setattr(SandboxPayroll, "reject_leave_application", reject)
    with monkeypatch.context() as patch:
        patch.setattr(SandboxCalendar, "delete_event", stop)
        with pytest.raises(FunctionStopped):
            api.post(f"{path}/cancel", as_=people["employee"])
    db.expire_all()
    stored = db.get(LeaveRequest, request["id"])
    assert stored.status == "cancelled"
    assert stored.ledger_leave_application_id is None and stored.planner_booking_id is None  # undone, and known so
    assert stored.calendar_event_id is not None  # never answered: left to the job
    assert [row.status for row in _applications(db)] == ["REJECTED"]
    _later(db, request["id"])
    assert _run_job(client)["reversed"] == 1
    assert rejected == [made.id]  # rejected once, not again by the job
    after = api.get(path, as_=people["exec"]).json["request"]
    assert after["calendar_event_id"] is None and after["integration_errors"] is None, after
