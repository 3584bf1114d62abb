"""Agents: when a run was last heard of (`agent_runs.last_report_at`, session 27), the clock of the `agents-stale-runs`
job. It measured from the run's creation, so a run working for longer than STALE_RUN_MINUTES was given up while its
runner still reported `running`. Set on creation, when the runner takes the run and on each report of a run not yet
ended (a repeated `running` report included). Existing runs: their latest applied report, else the time the runner
took them, else their creation (one statement). The index of the job's read moves from (status, created_at) to
(status, last_report_at). The column defaults to now() in the database, so the code before this revision still
creates runs.

Revision ID: agents_0003
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "agents_0003"
down_revision = "agents_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("agent_runs", sa.Column("last_report_at", UTCDateTime()))
    runs = sa.table("agent_runs", sa.column("id", sa.String()), sa.column("created_at", UTCDateTime()),
                    sa.column("started_at", UTCDateTime()), sa.column("last_report_at", UTCDateTime()))
    reports = sa.table("agent_run_reports", sa.column("run_id", sa.String()), sa.column("created_at", UTCDateTime()))
    latest = sa.select(sa.func.max(reports.c.created_at)).where(reports.c.run_id == runs.c.id).scalar_subquery()
    op.execute(runs.update().values(last_report_at=sa.func.coalesce(latest, runs.c.started_at, runs.c.created_at)))
    # The default now(): the code before this revision (mid-deployment, migrations commit first, or after a
    # rollback) creates runs without the column. SQLite adds no column with a CURRENT_TIMESTAMP default, so it comes
    # with NOT NULL, which SQLite sets only by copying the table.
    with op.batch_alter_table("agent_runs") as batch:
        batch.alter_column("last_report_at", existing_type=UTCDateTime(), nullable=False, server_default=sa.func.now())
    op.drop_index("ix_agent_runs_status_created", table_name="agent_runs")
    op.create_index("ix_agent_runs_status_last_report", "agent_runs", ["status", "last_report_at"])


def downgrade() -> None:
    op.drop_index("ix_agent_runs_status_last_report", table_name="agent_runs")
    op.create_index("ix_agent_runs_status_created", "agent_runs", ["status", "created_at"])
    with op.batch_alter_table("agent_runs") as batch:
        batch.drop_column("last_report_at")
