"""Agents: an index on agent_runs (status, created_at) for the `agents-stale-runs` job (session 26), which reads the
runs still queued or running past STALE_RUN_MINUTES every 15 minutes: without it each run scanned every run ever
made.

Revision ID: agents_0002
"""
from alembic import op

revision = "agents_0002"
down_revision = "agents_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_agent_runs_status_created", "agent_runs", ["status", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_agent_runs_status_created", table_name="agent_runs")
