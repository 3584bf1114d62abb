"""Service levels: SLA policies, their per-priority rules and task SLA assignments.

Revision ID: sla_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "sla_0001"
down_revision = "core_0001"
branch_labels = ("sla",)
depends_on = "tasks_0001"


def upgrade() -> None:
    op.create_table(
        "sla_policies",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("company_id", sa.String(36)),
        sa.Column("created_by", sa.String(36)),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_sla_policies_company_id", "sla_policies", ["company_id"])
    op.create_table(
        "sla_policy_rules",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("policy_id", sa.String(36),
                  sa.ForeignKey("sla_policies.id", ondelete="CASCADE", name="fk_sla_policy_rules_policy_id_sla_policies"),
                  nullable=False),
        sa.Column("priority_id", sa.String(36),
                  sa.ForeignKey("config_list_items.id", ondelete="CASCADE",
                                name="fk_sla_policy_rules_priority_id_config_list_items"),
                  nullable=False),
        sa.Column("response_hours", sa.Float(), nullable=False),
        sa.Column("resolution_hours", sa.Float(), nullable=False),
        sa.UniqueConstraint("policy_id", "priority_id", name="uq_sla_policy_rules_policy_priority"),
    )
    op.create_index("ix_sla_policy_rules_policy_id", "sla_policy_rules", ["policy_id"])
    op.create_table(
        "task_slas",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("task_id", sa.String(36),
                  sa.ForeignKey("tasks.id", ondelete="CASCADE", name="fk_task_slas_task_id_tasks"), nullable=False),
        sa.Column("policy_id", sa.String(36),
                  sa.ForeignKey("sla_policies.id", ondelete="CASCADE", name="fk_task_slas_policy_id_sla_policies"),
                  nullable=False),
        sa.Column("priority_id", sa.String(36)),
        sa.Column("response_deadline", UTCDateTime(), nullable=False),
        sa.Column("resolution_deadline", UTCDateTime(), nullable=False),
        sa.Column("responded_at", UTCDateTime()),
        sa.Column("resolved_at", UTCDateTime()),
        sa.Column("response_breached", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("resolution_breached", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("breach_notified_at", UTCDateTime()),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.UniqueConstraint("task_id", name="uq_task_slas_task_id"),
    )
    op.create_index("ix_task_slas_policy_id", "task_slas", ["policy_id"])


def downgrade() -> None:
    op.drop_table("task_slas")
    op.drop_table("sla_policy_rules")
    op.drop_table("sla_policies")
