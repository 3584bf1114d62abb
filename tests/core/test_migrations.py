"""Every migration branch round-trips: upgrade heads -> downgrade base -> upgrade heads, on a fresh
database beside the test database (PostgreSQL, or SQLite under WMS_TEST_DB=sqlite) and always on a
fresh SQLite file."""
import pytest
from sqlalchemy import create_engine, inspect, text

from chalicelib.core.db import Base
from chalicelib.migrations.runner import downgrade, upgrade

CORE_TABLES = {"users", "squads", "access_level_permissions", "user_permissions", "history_entries",
               "config_lists", "config_list_items"}

pytestmark = pytest.mark.filterwarnings("ignore:Skipped unsupported reflection")


def tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def scalar(url: str, sql: str):
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(text(sql)).scalar()
    finally:
        engine.dispose()


def round_trip(url: str) -> None:
    upgrade(url)
    created = tables(url)
    assert CORE_TABLES <= created
    # every mapped table of the areas loaded so far exists after upgrade heads
    import app  # noqa: F401 - loads every area's models

    assert {table.name for table in Base.metadata.sorted_tables} <= created
    assert scalar(url, "SELECT count(*) FROM config_lists WHERE is_system = true") >= 8
    seeded_items = scalar(url, "SELECT count(*) FROM config_list_items")

    downgrade(url, "base")
    assert tables(url) <= {"alembic_version"}
    assert scalar(url, "SELECT count(*) FROM alembic_version") == 0

    upgrade(url)
    assert tables(url) == created
    assert scalar(url, "SELECT count(*) FROM config_list_items") == seeded_items  # seeded once, not twice
    heads = scalar(url, "SELECT count(*) FROM alembic_version")
    assert heads >= 1


def test_round_trip_beside_the_test_database(fresh_database):
    round_trip(fresh_database())


def test_round_trip_on_a_fresh_sqlite_file(tmp_path):
    round_trip(f"sqlite:///{tmp_path / 'round-trip.sqlite3'}")


def test_upgrade_is_idempotent(tmp_path):
    url = f"sqlite:///{tmp_path / 'twice.sqlite3'}"
    upgrade(url)
    before = scalar(url, "SELECT count(*) FROM config_list_items")
    upgrade(url)
    assert scalar(url, "SELECT count(*) FROM config_list_items") == before


def test_the_database_plans_for_solid_state_storage(fresh_database):
    """core_0003 sets random_page_cost 1.1 for the database (new sessions take it) and its downgrade resets it;
    a list page's child counts then read the page's ids through their index instead of the whole child table
    (docs/decisions/measurement.md, session 9)."""
    url = fresh_database()
    if not url.startswith("postgresql"):
        pytest.skip("a Postgres planner setting")
    server_default = scalar(url, "SHOW random_page_cost")
    upgrade(url)
    assert scalar(url, "SHOW random_page_cost") == "1.1"
    downgrade(url, "core_0002")
    assert scalar(url, "SHOW random_page_cost") == server_default


@pytest.mark.parametrize("engine_kind", ["database", "sqlite"])
def test_invoices_already_overdue_when_the_overdue_notice_ships_count_as_told(fresh_database, tmp_path, engine_kind):
    """invoices_0003 marks the invoices overdue before yesterday (issued, unpaid) as told, so that the first
    `invoice-overdue-scan` does not e-mail every old unpaid invoice at once; one due yesterday or later, a draft, a
    paid one and a voided one are left to the scan (docs/decisions/invoices.md, Notifications)."""
    from datetime import UTC, datetime, timedelta

    url = fresh_database() if engine_kind == "database" else f"sqlite:///{tmp_path / 'overdue.sqlite3'}"
    upgrade(url)
    downgrade(url, "invoices_0002")  # the schema just before invoices_0003 (an upgrade to it trips Alembic, runner.py)
    today = datetime.now(UTC).date()  # the migration's day (UTC), not the machine's local one
    old, yesterday = today - timedelta(days=40), today - timedelta(days=1)
    rows = {  # id: status, payment status, due date
        "old-sent": ("sent", None, old), "old-approved": ("approved", "unpaid", old),
        "old-paid-in-ledger": ("sent", "paid", old), "old-paid": ("paid", None, old), "old-draft": ("draft", None, old),
        "old-voided": ("voided", None, old), "due-yesterday": ("sent", None, yesterday),
        "not-due": ("sent", None, today + timedelta(days=5)), "no-due-date": ("sent", None, None)}
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            for number, (invoice_id, (status, payment_status, due)) in enumerate(rows.items()):
                conn.execute(text("INSERT INTO invoices (id, invoice_number, status, payment_status, issued_date, "
                                  "due_date) VALUES (:id, :number, :status, :payment, :issued, :due)"),
                             {"id": invoice_id, "number": f"INV-{number}", "status": status, "payment": payment_status,
                              "issued": old - timedelta(days=30), "due": due})
    finally:
        engine.dispose()
    upgrade(url)
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            marked = {row.id: row.overdue_noticed_for for row in conn.execute(
                text("SELECT id, overdue_noticed_for FROM invoices")) if row.overdue_noticed_for is not None}
    finally:
        engine.dispose()
    assert {invoice_id: str(value)[:10] for invoice_id, value in marked.items()} == {
        "old-sent": old.isoformat(), "old-approved": old.isoformat()}
