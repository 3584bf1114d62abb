"""Session 32's second review: a provider that answered (the ledger refused, or was skipped: it made nothing), then
the function stopped inside the next provider's call (the planner's). The answered provider's in-flight mark was
never replaced, so the ledger read as interrupted and every retry was refused 409 ("check Xero"), falsely. Its mark
now gives way to what it answered in the transaction that marks the next provider."""
import pytest

from chalicelib.areas.leave.models import LeaveRequest
from chalicelib.areas.leave.service_integrations import INTERRUPTED
from chalicelib.core.errors import BadGateway
from chalicelib.providers.payroll.sandbox import SandboxPayroll
from chalicelib.providers.planner.sandbox import SandboxPlanner
from tests.areas.leave.factories import mapped_team
from tests.areas.leave.test_run_killed_midway_s32 import _applications, _later, approved_until_stopped, stop


@pytest.fixture
def people(db):
    return mapped_team(db, name="Eve Employee")


def test_ledger_refused_then_planner_stopped(api, db, people, monkeypatch):
    def refuse(self, *args, **kwargs):
        raise BadGateway("The leave ledger refused the request: not enough leave")

    monkeypatch.setattr(SandboxPayroll, "create_leave_application", refuse)
    monkeypatch.setattr(SandboxPlanner, "create_booking", stop)
    request_id, path = approved_until_stopped(api, people, monkeypatch)
    db.expire_all()
    stored = db.get(LeaveRequest, request_id)
    assert stored.integration_errors == {"ledger": "The leave ledger refused the request: not enough leave",
                                         "planner": INTERRUPTED}, stored.integration_errors
    assert _applications(db) == []  # the ledger made nothing: it refused
    _later(db, request_id)
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert retried.status == 200, retried.json


def test_ledger_skipped_then_planner_stopped(api, db, people, monkeypatch):
    """The ledger not configured for the requester (a skip: nothing sent), then the function stopped in the
    planner's call: the retry is refused 409 "the leave ledger was asked ... check Xero"."""
    from chalicelib.areas.leave import service_integrations as si

    def not_configured(ctx, leave):
        raise si.NotConfigured("Not configured: the requester has no ledger mapping")

    monkeypatch.setitem(si.RUN, "ledger", not_configured)
    monkeypatch.setattr(SandboxPlanner, "create_booking", stop)
    request_id, path = approved_until_stopped(api, people, monkeypatch)
    db.expire_all()
    errors = db.get(LeaveRequest, request_id).integration_errors
    assert errors["planner"] == INTERRUPTED and errors["ledger"].startswith("Not configured"), errors
    _later(db, request_id)
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert retried.status == 200, retried.json
