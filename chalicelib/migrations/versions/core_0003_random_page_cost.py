"""The database's planner costs random reads as solid-state storage does (random_page_cost 1.1).

Postgres' default (4.0) models spinning disks: with it the planner counted a list page's todos and project
members by reading the whole child table in a hash join (a cost that grows with the table) rather than by the
page's 500 ids through their index. Managed Postgres (RDS, Aurora) stores on SSD, for which the Postgres
documentation suggests 1.1. Set for this database only (`ALTER DATABASE ... SET`), so a parameter group, a role
or a session can still say otherwise; a role that may not alter the database gets a notice, not a failure.
docs/decisions/measurement.md (session 9).

Revision ID: core_0003
"""
from alembic import op

revision = "core_0003"
down_revision = "core_0002"
branch_labels = None
depends_on = None

RANDOM_PAGE_COST = "1.1"


def _set(clause: str) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        "DO $$BEGIN EXECUTE format('ALTER DATABASE %I " + clause + "', current_database()); "
        "EXCEPTION WHEN insufficient_privilege THEN "
        "RAISE NOTICE 'random_page_cost left as it is: this role may not alter the database'; END$$")


def upgrade() -> None:
    _set(f"SET random_page_cost = {RANDOM_PAGE_COST}")


def downgrade() -> None:
    _set("RESET random_page_cost")
