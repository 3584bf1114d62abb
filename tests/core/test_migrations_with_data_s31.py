"""Session 31's two cross-area references over rows the code before them wrote (docs/deploy.md "Migrations with
data present"): timesheets_0004 (time_entries.task_id -> tasks ON DELETE SET NULL) and action_items_0003
(action_items.project_id -> projects ON DELETE SET NULL) clear the ids that name no row, keep the ones that do, and
on SQLite (where the table is copied) keep the rows that reference the copied table: an invoice's billed entries."""
import pytest

from chalicelib.migrations.runner import downgrade, upgrade
from tests.core.test_migrations_with_data_s27 import TASK, USER, databases, fresh, rows, run  # noqa: F401

pytestmark = pytest.mark.filterwarnings("ignore:Skipped unsupported reflection")

ENTRY = ("INSERT INTO time_entries (id, user_id, date, hours, billable, status, task_id, created_at, updated_at) "
         "VALUES ('{id}', 'u1', '2026-11-02', 1.5, true, 'approved', '{task}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
BILLED = ["INSERT INTO invoices (id, invoice_number, status, currency, issued_date, subtotal, tax, total, amount_paid, "
          "created_at, updated_at) VALUES ('i1', 'INV-1', 'draft', 'AUD', '2026-11-03', 0, 0, 0, 0, CURRENT_TIMESTAMP, "
          "CURRENT_TIMESTAMP)",
          "INSERT INTO invoice_line_items (id, invoice_id, description, quantity, unit_price, amount, position, "
          "created_at, updated_at) VALUES ('l1', 'i1', 'Time', 1, 0, 0, 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
          "INSERT INTO invoice_time_entries (time_entry_id, invoice_id, line_item_id, created_at) VALUES "
          "('kept', 'i1', 'l1', CURRENT_TIMESTAMP)"]
PROJECT = ("INSERT INTO projects (id, name, status, created_at, updated_at) VALUES ('p1', 'P', 'active', "
           "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
ITEM = ("INSERT INTO action_items (id, title, urgency, source_module, is_completed, project_id, created_at, updated_at) "
        "VALUES ('{id}', 'Follow up', 'normal', 'manual', false, '{project}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")


def delete_with_keys(url: str, sql: str) -> None:
    """Through the app's engine (core.db.make_engine), which turns SQLite's foreign keys on, as the service runs."""
    from sqlalchemy import text

    from chalicelib.core.db import make_engine

    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text(sql))
    finally:
        engine.dispose()


@pytest.mark.parametrize("engine_kind", ["database", "sqlite"])
def test_timesheets_0004_clears_entries_naming_no_task_and_keeps_the_rest(databases, tmp_path, engine_kind):
    url = fresh(databases, tmp_path, engine_kind)
    upgrade(url)
    downgrade(url, "timesheets_0003")
    run(url, [USER, TASK, ENTRY.format(id="kept", task="t1"), ENTRY.format(id="orphan", task="gone"), *BILLED])
    upgrade(url)
    assert sorted(rows(url, "SELECT id, task_id FROM time_entries")) == [("kept", "t1"), ("orphan", None)]
    assert rows(url, "SELECT time_entry_id FROM invoice_time_entries") == [("kept",)]
    delete_with_keys(url, "DELETE FROM tasks WHERE id = 't1'")  # the key now clears it
    assert rows(url, "SELECT task_id FROM time_entries WHERE id = 'kept'") == [(None,)]


@pytest.mark.parametrize("engine_kind", ["database", "sqlite"])
def test_action_items_0003_clears_items_naming_no_project_and_keeps_the_rest(databases, tmp_path, engine_kind):
    url = fresh(databases, tmp_path, engine_kind)
    upgrade(url)
    downgrade(url, "action_items_0002")
    run(url, [PROJECT, ITEM.format(id="kept", project="p1"), ITEM.format(id="orphan", project="gone")])
    upgrade(url)
    assert sorted(rows(url, "SELECT id, project_id FROM action_items")) == [("kept", "p1"), ("orphan", None)]
    delete_with_keys(url, "DELETE FROM projects WHERE id = 'p1'")
    assert rows(url, "SELECT project_id FROM action_items WHERE id = 'kept'") == [(None,)]
