"""Projects: projects, members, goals, decisions, AI summaries and the project-deal link.

Revision ID: projects_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "projects_0001"
down_revision = "core_0001"
branch_labels = ("projects",)
depends_on = None


def _created():
    return sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now())


def _updated():
    return sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now())


def _project_fk(table: str):
    return sa.Column("project_id", sa.String(36),
                     sa.ForeignKey("projects.id", ondelete="CASCADE", name=f"fk_{table}_project_id_projects"),
                     nullable=False)


def upgrade() -> None:
    op.create_table(
        "projects",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(300), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("company_id", sa.String(36)),
        sa.Column("type_id", sa.String(36), sa.ForeignKey("config_list_items.id", ondelete="SET NULL",
                                                          name="fk_projects_type_id_config_list_items")),
        sa.Column("status", sa.String(50), nullable=False, server_default="active"),
        sa.Column("owner_id", sa.String(36), sa.ForeignKey("users.id", ondelete="SET NULL",
                                                           name="fk_projects_owner_id_users")),
        sa.Column("delivery_manager_id", sa.String(36), sa.ForeignKey("users.id", ondelete="SET NULL",
                                                                      name="fk_projects_delivery_manager_id_users")),
        sa.Column("squad", sa.String(200)),
        sa.Column("start_date", sa.Date()),
        sa.Column("end_date", sa.Date()),
        sa.Column("metadata", sa.Text()),
        sa.Column("sla_policy_id", sa.String(36)),
        sa.Column("auto_ticket_from_email", sa.String(320)),
        sa.Column("created_by", sa.String(36)),
        _created(),
        _updated(),
    )
    for column in ("company_id", "type_id", "status", "owner_id", "delivery_manager_id", "squad"):
        op.create_index(f"ix_projects_{column}", "projects", [column])

    op.create_table(
        "project_members",
        sa.Column("id", sa.String(36), primary_key=True),
        _project_fk("project_members"),
        sa.Column("user_id", sa.String(36), sa.ForeignKey("users.id", ondelete="CASCADE",
                                                          name="fk_project_members_user_id_users"), nullable=False),
        sa.Column("role", sa.String(50), nullable=False, server_default="member"),
        _created(),
        sa.UniqueConstraint("project_id", "user_id", name="uq_project_members_project_user"),
    )
    op.create_index("ix_project_members_user_id", "project_members", ["user_id"])

    op.create_table(
        "project_goals",
        sa.Column("id", sa.String(36), primary_key=True),
        _project_fk("project_goals"),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("status", sa.String(50)),
        sa.Column("due_date", sa.Date()),
        sa.Column("position", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("created_by", sa.String(36)),
        _created(),
        _updated(),
    )
    op.create_index("ix_project_goals_project_position", "project_goals", ["project_id", "position", "created_at"])

    op.create_table(
        "project_decisions",
        sa.Column("id", sa.String(36), primary_key=True),
        _project_fk("project_decisions"),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("decision", sa.Text(), nullable=False),
        sa.Column("rationale", sa.Text()),
        sa.Column("decided_by", sa.String(36), sa.ForeignKey("users.id", ondelete="SET NULL",
                                                             name="fk_project_decisions_decided_by_users")),
        sa.Column("decided_at", sa.Date()),
        sa.Column("status", sa.String(50), nullable=False, server_default="agreed"),
        sa.Column("created_by", sa.String(36)),
        _created(),
        _updated(),
    )
    op.create_index("ix_project_decisions_project_decided", "project_decisions",
                    ["project_id", "decided_at", "created_at"])

    op.create_table(
        "project_ai_summaries",
        sa.Column("id", sa.String(36), primary_key=True),
        _project_fk("project_ai_summaries"),
        sa.Column("summary_text", sa.Text(), nullable=False),
        sa.Column("recommendations", sa.JSON(), nullable=False),
        sa.Column("generated_by", sa.String(36)),
        sa.Column("generated_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("project_id", name="uq_project_ai_summaries_project_id"),
    )

    op.create_table(
        "project_deal_links",
        sa.Column("id", sa.String(36), primary_key=True),
        _project_fk("project_deal_links"),
        sa.Column("deal_id", sa.String(36), nullable=False),
        sa.Column("linked_by", sa.String(36)),
        _created(),
        sa.UniqueConstraint("project_id", name="uq_project_deal_links_project_id"),
    )
    op.create_index("ix_project_deal_links_deal_id", "project_deal_links", ["deal_id"])


def downgrade() -> None:
    for table in ("project_deal_links", "project_ai_summaries", "project_decisions", "project_goals",
                  "project_members", "projects"):
        op.drop_table(table)
