"""Agent pipeline: agent runs, the runner's applied reports and project agent configurations (the agent task
meta record's table, agent_tasks, was created by tasks_0001).

Revision ID: agents_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "agents_0001"
down_revision = "core_0001"
branch_labels = ("agents",)
depends_on = ("tasks_0001", "projects_0001")


def _timestamps():
    return (sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
            sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()))


def upgrade() -> None:
    op.create_table(
        "agent_runs",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("task_id", sa.String(36),
                  sa.ForeignKey("tasks.id", ondelete="CASCADE", name="fk_agent_runs_task_id_tasks"), nullable=False),
        sa.Column("project_id", sa.String(36)),
        sa.Column("stage", sa.String(30), nullable=False),
        sa.Column("status", sa.String(30), nullable=False, server_default="queued"),
        sa.Column("tokens", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("cost", sa.Numeric(14, 6), nullable=False, server_default="0"),
        sa.Column("error", sa.Text()),
        sa.Column("feedback", sa.Text()),
        sa.Column("created_by", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_agent_runs_created_by_users")),
        sa.Column("started_at", UTCDateTime()),
        sa.Column("finished_at", UTCDateTime()),
        *_timestamps(),
    )
    op.create_index("ix_agent_runs_task_created", "agent_runs", ["task_id", "created_at"])
    op.create_index("ix_agent_runs_project_id", "agent_runs", ["project_id"])
    op.create_table(
        "agent_run_reports",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("run_id", sa.String(36),
                  sa.ForeignKey("agent_runs.id", ondelete="CASCADE", name="fk_agent_run_reports_run_id_agent_runs"),
                  nullable=False),
        sa.Column("stage", sa.String(30), nullable=False),
        sa.Column("status", sa.String(30), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.UniqueConstraint("run_id", "stage", "status", name="uq_agent_run_reports_run_id"),
    )
    op.create_table(
        "project_agent_configs",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("project_id", sa.String(36),
                  sa.ForeignKey("projects.id", ondelete="CASCADE", name="fk_project_agent_configs_project_id_projects"),
                  nullable=False),
        sa.Column("project_type", sa.String(100)),
        sa.Column("repo_org", sa.String(200)),
        sa.Column("repo_name", sa.String(200)),
        sa.Column("default_branch", sa.String(200)),
        sa.Column("deploy_target", sa.String(200)),
        sa.Column("preview_url_pattern", sa.String(1000)),
        sa.Column("production_url", sa.String(1000)),
        sa.Column("workflow_config", sa.JSON()),
        sa.Column("runner_url", sa.String(1000)),
        sa.Column("enabled", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("runner_secret_encrypted", sa.Text()),
        sa.Column("updated_by", sa.String(36),
                  sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_project_agent_configs_updated_by_users")),
        *_timestamps(),
        sa.UniqueConstraint("project_id", name="uq_project_agent_configs_project_id"),
    )


def downgrade() -> None:
    op.drop_table("project_agent_configs")
    op.drop_table("agent_run_reports")
    op.drop_table("agent_runs")
