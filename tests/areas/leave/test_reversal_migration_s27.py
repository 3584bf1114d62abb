"""leave_0006 (session 27) counts one reversal attempt for the cancelled requests already there, so that the job does
not post the cancellation of every old cancelled request to chat again; only a cancelled request that still holds a
ledger, planner or calendar id with no `Reversal: ...` error (its reversal never ran) is left at 0 for the job."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import create_engine, text

from chalicelib.migrations.runner import downgrade, upgrade
from tests.core.conftest import FreshDatabases

pytestmark = pytest.mark.filterwarnings("ignore:Skipped unsupported reflection")

ROWS = {  # id: status, ledger id, calendar id, chat ts, integration_errors -> reversal_attempts after leave_0006
    "never-reversed": ("cancelled", "APP-1", "evt-1", "1.1", None, 0),
    "never-reversed-skip-noted": ("cancelled", None, "evt-2", "1.2", {"ledger": "Not configured: x"}, 0),
    "failed": ("cancelled", "APP-3", None, "1.3", {"ledger": "Reversal: ledger down"}, 1),
    "chat-post-failed": ("cancelled", None, None, "1.4", {"chat": "Reversal: Not configured: team chat"}, 1),
    "reversed": ("cancelled", None, None, "1.5", None, 1),
    "cancelled-pending": ("cancelled", None, None, None, None, 1),
    "approved": ("approved", "APP-7", "evt-7", "1.7", None, 0),
}


@pytest.mark.parametrize("engine_kind", ["database", "sqlite"])
def test_cancelled_requests_already_there_count_one_attempt_unless_never_reversed(database_url, tmp_path,
                                                                                  engine_kind):
    databases = FreshDatabases(database_url, tmp_path)
    try:
        url = databases.create() if engine_kind == "database" else f"sqlite:///{tmp_path / 'leave6.sqlite3'}"
        upgrade(url)
        downgrade(url, "leave_0005")
        engine = create_engine(url)
        try:
            with engine.begin() as conn:
                conn.execute(text("INSERT INTO users (id, email, name, access_level, is_active, created_at, "
                                  "updated_at) VALUES ('u1', 'u1@example.com', 'U', 'employee', true, "
                                  "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"))
                for request_id, (status, ledger, event, ts, errors, _) in ROWS.items():
                    conn.execute(text(
                        "INSERT INTO leave_requests (id, user_id, leave_type_id, leave_type_name, start_date, end_date, "
                        "status, ledger_leave_application_id, calendar_event_id, chat_message_ts, integration_errors, "
                        "created_at, updated_at) VALUES (:id, 'u1', 'annual', 'Annual', '2026-12-01', '2026-12-03', "
                        ":status, :ledger, :event, :ts, :errors, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"),
                        {"id": request_id, "status": status, "ledger": ledger, "event": event, "ts": ts,
                         "errors": json.dumps(errors) if errors is not None else None})
        finally:
            engine.dispose()
        upgrade(url)
        engine = create_engine(url)
        try:
            with engine.connect() as conn:
                attempts = dict(conn.execute(text("SELECT id, reversal_attempts FROM leave_requests")).all())
        finally:
            engine.dispose()
        assert attempts == {request_id: row[-1] for request_id, row in ROWS.items()}
    finally:
        databases.drop_all()
