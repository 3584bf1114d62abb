"""Core: users, squads, permissions, history log, config lists (with the system lists seeded).

Revision ID: core_0001
"""
import uuid

import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "core_0001"
down_revision = None
branch_labels = ("core",)
depends_on = None


def _id():
    return sa.Column("id", sa.String(36), primary_key=True)


def _created():
    return sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now())


SYSTEM_LISTS = [
    ("task_status", "Task status", [
        ("To Do", "todo", "#94a3b8", "not_started", True), ("In Progress", "in_progress", "#3b82f6", "in_progress", False),
        ("In Review", "in_review", "#a855f7", "in_progress", False), ("Blocked", "blocked", "#ef4444", "in_progress", False),
        ("Done", "done", "#22c55e", "done", False)]),
    ("task_priority", "Task priority", [
        ("Low", "low", "#94a3b8", None, False), ("Medium", "medium", "#3b82f6", None, True),
        ("High", "high", "#f97316", None, False), ("Urgent", "urgent", "#ef4444", None, False)]),
    ("task_type", "Task type", [
        ("Task", "task", "#64748b", None, True), ("Bug", "bug", "#ef4444", None, False),
        ("Feature", "feature", "#3b82f6", None, False), ("Agent task", "agent_task", "#8b5cf6", None, False)]),
    ("task_phase", "Task phase", [
        ("Discovery", "discovery", "#0ea5e9", None, False), ("Design", "design", "#a855f7", None, False),
        ("Build", "build", "#3b82f6", None, False), ("Test", "test", "#f59e0b", None, False),
        ("Launch", "launch", "#22c55e", None, False)]),
    ("deal_stage", "Deal stage", [
        ("Lead", "lead", "#94a3b8", "not_started", False, 10), ("Qualified", "qualified", "#0ea5e9", "in_progress", False, 25),
        ("Proposal", "proposal", "#a855f7", "in_progress", False, 50),
        ("Negotiation", "negotiation", "#f59e0b", "in_progress", False, 75),
        ("Won", "won", "#22c55e", "done", False, 100), ("Lost", "lost", "#ef4444", "done", False, 0)]),
    ("project_type", "Project type", [
        ("Website", "website", "#3b82f6", None, False), ("Application", "application", "#8b5cf6", None, False),
        ("Retainer", "retainer", "#22c55e", None, False), ("Support", "support", "#f97316", None, False),
        ("Campaign", "campaign", "#ec4899", None, False)]),
    ("project_status", "Project status", [
        ("Active", "active", "#22c55e", "in_progress", True), ("On hold", "on_hold", "#f59e0b", "in_progress", False),
        ("Completed", "completed", "#3b82f6", "done", False), ("Cancelled", "cancelled", "#94a3b8", "done", False)]),
    ("service_type", "Service type", [
        ("Strategy", "strategy", None, None, False), ("Design", "design", None, None, False),
        ("Development", "development", None, None, False), ("Project management", "project_management", None, None, False),
        ("Support", "support", None, None, False)]),
    ("leave_status", "Leave status", [
        ("Pending manager", "pending_manager", "#f59e0b", None, True), ("Pending executive", "pending_exec", "#f97316", None, False),
        ("Approved", "approved", "#22c55e", None, False), ("Rejected", "rejected", "#ef4444", None, False),
        ("Cancelled", "cancelled", "#94a3b8", None, False)]),
]


def upgrade() -> None:
    op.create_table(
        "squads", _id(),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("manager_id", sa.String(36)),
        sa.Column("chat_channel_id", sa.String(200)),
        _created(),
    )
    op.create_table(
        "users", _id(),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("access_level", sa.String(20), nullable=False, server_default="employee"),
        sa.Column("squad_id", sa.String(36), sa.ForeignKey("squads.id", ondelete="SET NULL", name="fk_users_squad_id_squads")),
        sa.Column("manager_id", sa.String(36), sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_users_manager_id_users")),
        sa.Column("job_title", sa.String(200)), sa.Column("picture", sa.Text()), sa.Column("phone", sa.String(50)),
        sa.Column("date_of_birth", sa.Date()), sa.Column("start_date", sa.Date()), sa.Column("end_date", sa.Date()),
        sa.Column("gender", sa.String(50)), sa.Column("salary", sa.Numeric(14, 2)), sa.Column("location", sa.String(200)),
        sa.Column("employment_basis", sa.String(50)),
        sa.Column("is_active", sa.Boolean(), nullable=False, server_default=sa.true()),
        _created(),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("uq_users_email_lower", "users", [sa.text("lower(email)")], unique=True)
    op.create_index("ix_users_squad_id", "users", ["squad_id"])
    op.create_index("ix_users_manager_id", "users", ["manager_id"])
    with op.batch_alter_table("squads") as batch:
        batch.create_foreign_key("fk_squads_manager_id_users", "users", ["manager_id"], ["id"], ondelete="SET NULL")
        batch.create_index("ix_squads_manager_id", ["manager_id"])
    op.create_table(
        "access_level_permissions",
        sa.Column("access_level", sa.String(20), primary_key=True),
        sa.Column("tool", sa.String(50), primary_key=True),
        sa.Column("level", sa.String(10), nullable=False),
    )
    op.create_table(
        "user_permissions",
        sa.Column("user_id", sa.String(36), sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_user_permissions_user_id_users"), primary_key=True),
        sa.Column("tool", sa.String(50), primary_key=True),
        sa.Column("level", sa.String(10), nullable=False),
    )
    op.create_table(
        "history_entries", _id(),
        sa.Column("entity_type", sa.String(50), nullable=False),
        sa.Column("entity_id", sa.String(36), nullable=False),
        sa.Column("action", sa.String(50), nullable=False),
        sa.Column("actor_id", sa.String(36)),
        sa.Column("changes", sa.JSON()),
        _created(),
    )
    op.create_index("ix_history_entries_entity", "history_entries", ["entity_type", "entity_id", "created_at"])
    lists = op.create_table(
        "config_lists", _id(),
        sa.Column("key", sa.String(100), nullable=False, unique=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("is_system", sa.Boolean(), nullable=False, server_default=sa.false()),
        _created(),
    )
    items = op.create_table(
        "config_list_items", _id(),
        sa.Column("list_id", sa.String(36), sa.ForeignKey("config_lists.id", ondelete="CASCADE", name="fk_config_list_items_list_id_config_lists"), nullable=False),
        sa.Column("label", sa.String(200), nullable=False),
        sa.Column("value", sa.String(200), nullable=False),
        sa.Column("color", sa.String(20)), sa.Column("icon", sa.String(100)),
        sa.Column("is_default", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("is_system", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("position", sa.Integer(), nullable=False, server_default="99"),
        sa.Column("stage_type", sa.String(50)), sa.Column("probability", sa.Float()),
        sa.Column("email_template_id", sa.String(36)),
        sa.Column("email_trigger_active", sa.Boolean(), nullable=False, server_default=sa.false()),
        _created(),
    )
    op.create_index("ix_config_list_items_list_id", "config_list_items", ["list_id"])

    list_rows, item_rows = [], []
    for key, name, entries in SYSTEM_LISTS:
        list_id = str(uuid.uuid4())
        list_rows.append({"id": list_id, "key": key, "name": name, "description": None, "is_system": True})
        for position, entry in enumerate(entries):
            label, value, color, stage_type, is_default = entry[:5]
            probability = entry[5] if len(entry) > 5 else None
            item_rows.append({
                "id": str(uuid.uuid4()), "list_id": list_id, "label": label, "value": value, "color": color,
                "icon": None, "is_default": is_default, "is_system": True, "position": position,
                "stage_type": stage_type, "probability": probability, "email_template_id": None,
                "email_trigger_active": False,
            })
    op.bulk_insert(lists, list_rows)
    op.bulk_insert(items, item_rows)


def downgrade() -> None:
    op.drop_table("config_list_items")
    op.drop_table("config_lists")
    op.drop_table("history_entries")
    op.drop_table("user_permissions")
    op.drop_table("access_level_permissions")
    with op.batch_alter_table("squads") as batch:
        batch.drop_constraint("fk_squads_manager_id_users", type_="foreignkey")
    op.drop_table("users")
    op.drop_table("squads")
