"""Leave: retries of one request's integrations at once, against the real HTTP server of test_concurrency.py
(each request commits for real, the runs meet in Postgres): the claim lets one run at a time call the providers,
so each external object is made once. The sandbox providers keep their state in the database: their rows are
counted."""
from __future__ import annotations

import secrets

from sqlalchemy import func, select

from tests.concurrency.test_concurrency import _all_at_once, _call, _token
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there

RETRIES = 10


def _count(sessions, model, *where) -> int:
    with sessions() as db:
        return db.scalar(select(func.count()).select_from(model).where(*where))


def test_retries_at_once_make_each_external_object_once(live):
    from chalicelib.areas.connections.models import UserMapping
    from chalicelib.areas.leave.models import LeaveRequest
    from chalicelib.core.ids import utcnow
    from chalicelib.core.models import HistoryEntry
    from chalicelib.core.notify_models import SandboxOutboxMessage
    from chalicelib.providers.calendar.models import SandboxCalendarEvent
    from chalicelib.providers.payroll.models import PayrollSandboxLeaveApplication
    from chalicelib.providers.payroll.sandbox import LEAVE_TYPES
    from chalicelib.providers.planner.models import PlannerSandboxBooking
    from chalicelib.providers.planner.sandbox import person_id
    from tests.areas.leave.factories import make_leave
    from tests.factories import make_squad, make_user

    base, sessions = live
    tag = secrets.token_hex(4)
    channel, ledger_id = f"C_{tag}", f"EMP-{tag}"
    with sessions() as db:
        executive = make_user(db, access_level="executive", email=f"exec-{tag}@agency.test")
        squad = make_squad(db, name=f"Leave {tag}", chat_channel_id=channel)
        employee = make_user(db, squad_id=squad.id, email=f"emp-{tag}@agency.test", name=f"Eve {tag}")
        db.add(UserMapping(user_id=employee.id, ledger_id=ledger_id, planner_id=person_id(employee.email),
                           updated_at=utcnow()))
        # approved, its integrations not run yet (as after a failed or skipped run)
        request = make_leave(db, employee, status="approved", leave_type_id=LEAVE_TYPES[0]["id"],
                             exec_approved_by=executive.id, exec_approved_at=utcnow())
        db.commit()
    token = _token(executive)
    path = f"/api/leave/requests/{request.id}/retry-integrations"
    results = _all_at_once([lambda: _call(base, "POST", path, token) for _ in range(RETRIES)])
    statuses = [status for status, _ in results]
    assert set(statuses) <= {200, 409} and 200 in statuses, results
    assert all(body == {"error": "Integrations are already running for this request"}
               for status, body in results if status == 409), results
    assert _count(sessions, PayrollSandboxLeaveApplication, PayrollSandboxLeaveApplication.employee_id == ledger_id) == 1
    assert _count(sessions, PlannerSandboxBooking, PlannerSandboxBooking.person_id == person_id(employee.email)) == 1
    assert _count(sessions, SandboxCalendarEvent, SandboxCalendarEvent.organizer_email == employee.email) == 1
    assert _count(sessions, SandboxOutboxMessage, SandboxOutboxMessage.provider == "chat",
                  SandboxOutboxMessage.target == channel) == 1
    with sessions() as db:
        stored = db.get(LeaveRequest, request.id)
        assert stored.ledger_leave_application_id and stored.planner_booking_id
        assert stored.calendar_event_id and stored.chat_message_ts and stored.integration_errors is None
        assert stored.integrations_running_since is None
        retried = db.scalar(select(func.count()).select_from(HistoryEntry).where(
            HistoryEntry.entity_id == request.id, HistoryEntry.action == "integrations_retried"))
    assert retried == statuses.count(200)  # a refused retry leaves no history entry
