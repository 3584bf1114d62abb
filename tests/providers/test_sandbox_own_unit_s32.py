"""Session 32: what the sandbox leave ledger and planner do is theirs, kept whatever becomes of the caller's
transaction, as Xero Payroll and Productive keep a rejection, a booking and a deletion made before the caller's
request failed (the sandboxes wrote them in the caller's transaction, so its rollback undid them, which hid a request
failing half way). Each case: the provider called in a unit of work that then fails (rolled back)."""
import pytest
from sqlalchemy import select

from chalicelib.core.db import unit_of_work
from chalicelib.core.errors import Conflict
from chalicelib.providers.payroll.models import PayrollSandboxLeaveApplication
from chalicelib.providers.payroll.sandbox import LEAVE_TYPES, SandboxPayroll
from chalicelib.providers.planner.models import PlannerSandboxBooking
from chalicelib.providers.planner.sandbox import (
    SANDBOX_ABSENCE_EVENT_ID,
    SandboxPlanner,
    person_id,
)
from tests.factories import make_user


def _failing(call):
    """`call(session)` in a unit of work that fails after it (as a request failing after the provider answered)."""
    with pytest.raises(Conflict), unit_of_work() as uow:
        call(uow.session)
        raise Conflict("The request failed after the provider answered")


def test_a_rejection_is_kept_when_the_callers_transaction_rolls_back(db):
    application_id = SandboxPayroll(db=db).create_leave_application(
        employee_id="EMP-1", leave_type_id=LEAVE_TYPES[0]["id"], title="Annual Leave", start_date="2026-12-07",
        end_date="2026-12-08")
    _failing(lambda session: SandboxPayroll(db=session).reject_leave_application(application_id))
    db.expire_all()
    assert db.get(PayrollSandboxLeaveApplication, application_id).status == "REJECTED"


def test_a_booking_is_kept_when_the_callers_transaction_rolls_back(db):
    user = make_user(db)
    made = []
    _failing(lambda session: made.append(SandboxPlanner(db=session, api_token="t").create_booking(
        person_id=person_id(user.email), started_on="2026-12-07", ended_on="2026-12-08", hours_per_day=7.6,
        note="Leave: Annual Leave (ref r-1)", event_id=SANDBOX_ABSENCE_EVENT_ID)))
    db.expire_all()
    assert db.get(PlannerSandboxBooking, made[0]["id"]) is not None


def test_a_deleted_booking_stays_deleted_when_the_callers_transaction_rolls_back(db):
    user = make_user(db)
    booking = SandboxPlanner(db=db, api_token="t").create_booking(
        person_id=person_id(user.email), started_on="2026-12-07", ended_on="2026-12-08", hours_per_day=7.6,
        note="Leave: Annual Leave (ref r-2)", event_id=SANDBOX_ABSENCE_EVENT_ID)
    _failing(lambda session: SandboxPlanner(db=session, api_token="t").delete_booking(booking["id"]))
    db.expire_all()
    assert db.scalar(select(PlannerSandboxBooking.id).where(PlannerSandboxBooking.id == booking["id"])) is None


def test_a_booking_whose_note_was_edited_in_the_planner_is_still_found(db):
    """The live adapter finds the booking whose note holds the request's note (Productive keeps notes as its users
    edit them); the sandbox wanted the note exact, so a retry there booked a second time what live would find."""
    from sqlalchemy import update

    user = make_user(db)
    planner = SandboxPlanner(db=db, api_token="t")
    booking = {"person_id": person_id(user.email), "started_on": "2026-12-07", "ended_on": "2026-12-08",
               "note": "Leave: Annual Leave (ref r-3)", "event_id": SANDBOX_ABSENCE_EVENT_ID}
    made = planner.create_booking(**booking, hours_per_day=7.6)
    db.execute(update(PlannerSandboxBooking).where(PlannerSandboxBooking.id == made["id"])
               .values(note="<p>Leave: Annual Leave (ref r-3)</p><p>Covered by Sam</p>"))
    assert planner.find_booking(**booking) == {"id": made["id"]}
    assert planner.find_booking(**{**booking, "note": "Leave: Annual Leave (ref r-4)"}) is None
