"""Tasks: tasks, todos, watchers, attached links and agent task meta records.

Revision ID: tasks_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "tasks_0001"
down_revision = "core_0001"
branch_labels = ("tasks",)
depends_on = None


def _created():
    return sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now())


def _updated():
    return sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now())


def _fk(name, column, table, ondelete="SET NULL"):
    return sa.ForeignKey(f"{table}.id", ondelete=ondelete, name=f"fk_{name}_{column}_{table}")


def upgrade() -> None:
    op.create_table(
        "tasks",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("resource_type", sa.String(50)),
        sa.Column("resource_id", sa.String(36)),
        sa.Column("status_id", sa.String(36), _fk("tasks", "status_id", "config_list_items")),
        sa.Column("priority_id", sa.String(36), _fk("tasks", "priority_id", "config_list_items")),
        sa.Column("type_id", sa.String(36), _fk("tasks", "type_id", "config_list_items")),
        sa.Column("phase_id", sa.String(36), _fk("tasks", "phase_id", "config_list_items")),
        sa.Column("assignee_id", sa.String(36), _fk("tasks", "assignee_id", "users")),
        sa.Column("reporter_id", sa.String(36), _fk("tasks", "reporter_id", "users")),
        sa.Column("created_by", sa.String(36), _fk("tasks", "created_by", "users")),
        sa.Column("parent_task_id", sa.String(36), _fk("tasks", "parent_task_id", "tasks", "CASCADE")),
        sa.Column("roadmap_item_id", sa.String(36)),
        sa.Column("sprint_id", sa.String(36)),
        sa.Column("due_date", sa.Date()),
        sa.Column("start_date", sa.Date()),
        sa.Column("estimated_hours", sa.Float()),
        sa.Column("internal_hours", sa.Float()),
        sa.Column("is_private", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("sort_order", sa.Float()),
        sa.Column("reported_by_contact_id", sa.String(36)),
        sa.Column("requirements", sa.Text()),
        sa.Column("scope", sa.Text()),
        sa.Column("delivery_notes", sa.Text()),
        sa.Column("testing_notes", sa.Text()),
        sa.Column("estimate_compute_hours", sa.Float()),
        sa.Column("estimate_total_cost", sa.Float()),
        sa.Column("approved_by_user_id", sa.String(36), _fk("tasks", "approved_by_user_id", "users")),
        sa.Column("approved_at", UTCDateTime()),
        _created(),
        _updated(),
    )
    op.create_index("ix_tasks_resource", "tasks", ["resource_type", "resource_id"])
    for column in ("status_id", "assignee_id", "reporter_id", "created_by", "parent_task_id", "roadmap_item_id",
                   "sprint_id"):
        op.create_index(f"ix_tasks_{column}", "tasks", [column])

    op.create_table(
        "task_todos",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("task_id", sa.String(36), _fk("task_todos", "task_id", "tasks", "CASCADE"), nullable=False),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("is_done", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("position", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("assignee_id", sa.String(36), _fk("task_todos", "assignee_id", "users")),
        sa.Column("due_date", sa.Date()),
        _created(),
        _updated(),
    )
    op.create_index("ix_task_todos_task_id", "task_todos", ["task_id"])

    op.create_table(
        "task_watchers",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("task_id", sa.String(36), _fk("task_watchers", "task_id", "tasks", "CASCADE"), nullable=False),
        sa.Column("user_id", sa.String(36), _fk("task_watchers", "user_id", "users", "CASCADE"), nullable=False),
        _created(),
        sa.UniqueConstraint("task_id", "user_id", name="uq_task_watchers_task_user"),
    )
    op.create_index("ix_task_watchers_task_id", "task_watchers", ["task_id"])
    op.create_index("ix_task_watchers_user_id", "task_watchers", ["user_id"])

    op.create_table(
        "task_resources",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("task_id", sa.String(36), _fk("task_resources", "task_id", "tasks", "CASCADE"), nullable=False),
        sa.Column("type", sa.String(20), nullable=False, server_default="link"),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("icon", sa.String(50), nullable=False, server_default="link"),
        sa.Column("sort_order", sa.Integer()),
        sa.Column("created_by", sa.String(36), _fk("task_resources", "created_by", "users")),
        _created(),
    )
    op.create_index("ix_task_resources_task_id", "task_resources", ["task_id"])

    op.create_table(
        "agent_tasks",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("task_id", sa.String(36), _fk("agent_tasks", "task_id", "tasks", "CASCADE"), nullable=False),
        sa.Column("stage", sa.String(30), nullable=False, server_default="draft"),
        sa.Column("effort_estimate", sa.String(50)),
        sa.Column("scope_document", sa.Text()),
        sa.Column("agent_confidence_note", sa.Text()),
        sa.Column("retry_count", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("branch_name", sa.String(300)),
        sa.Column("pr_url", sa.Text()),
        sa.Column("preview_url", sa.Text()),
        sa.Column("browser_test_status", sa.String(30)),
        sa.Column("browser_test_video_url", sa.Text()),
        sa.Column("ci_status", sa.String(30)),
        _created(),
        _updated(),
        sa.UniqueConstraint("task_id", name="uq_agent_tasks_task_id"),
    )


def downgrade() -> None:
    op.drop_table("agent_tasks")
    op.drop_table("task_resources")
    op.drop_table("task_watchers")
    op.drop_table("task_todos")
    op.drop_table("tasks")
