"""The ledger's leave application carries an Idempotency-Key (docs/decisions/leave.md, Integrations): a run retried
after the ledger made the application but its answer was lost (a timeout, recorded as the ledger's failure) gets
that application back and links it, making no second one. Through HTTP, against the sandbox leave ledger (which
keeps what it made and replays a key as Xero does)."""
import pytest
from sqlalchemy import select

from chalicelib.core.errors import GatewayTimeout
from chalicelib.providers.payroll.models import PayrollSandboxLeaveApplication
from chalicelib.providers.payroll.sandbox import SandboxPayroll
from tests.areas.leave.factories import approve_leave, mapped_team

@pytest.fixture
def people(db):
    return mapped_team(db, name="Eve Employee")


def _applications(db):
    db.expire_all()
    return list(db.scalars(select(PayrollSandboxLeaveApplication).order_by(PayrollSandboxLeaveApplication.created_at)))


def test_a_run_retried_after_the_ledger_made_the_application_links_that_one(api, db, people, monkeypatch):
    real = SandboxPayroll.create_leave_application

    def made_then_timed_out(self, **kwargs):
        real(self, **kwargs)
        raise GatewayTimeout("The accounting ledger did not answer in time")

    monkeypatch.setattr(SandboxPayroll, "create_leave_application", made_then_timed_out)
    _request, path, approved = approve_leave(api, people)
    assert approved.status == 200 and approved.json["request"]["status"] == "approved", approved
    after_run = api.get(path, as_=people["exec"]).json["request"]
    assert after_run["ledger_leave_application_id"] is None
    assert set(after_run["integration_errors"]) == {"ledger"}, after_run["integration_errors"]
    [made] = _applications(db)  # the ledger kept what it made, as Xero does
    monkeypatch.undo()
    retried = api.post(f"{path}/retry-integrations", as_=people["exec"])
    assert retried.status == 200, retried
    body = retried.json["request"]
    assert body["ledger_leave_application_id"] == made.id and body["integration_errors"] is None
    assert [row.id for row in _applications(db)] == [made.id]  # one leave application, not two
