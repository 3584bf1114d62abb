"""Proposals: templates, proposals, approvals, pricing sections and items, view analytics and the
password attempts of the public viewer.

Revision ID: proposals_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "proposals_0001"
down_revision = "core_0001"
branch_labels = ("proposals",)
depends_on = ("deals_0001", "pages_0001")


def _fk(name: str, table: str, target: str, ondelete: str | None = "SET NULL", **kw) -> sa.Column:
    return sa.Column(name, sa.String(36), sa.ForeignKey(f"{target}.id", ondelete=ondelete,
                                                        name=f"fk_{table}_{name}_{target}"), **kw)


def _times() -> list[sa.Column]:
    return [sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
            sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now())]


def upgrade() -> None:
    op.create_table(
        "proposal_templates",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("category", sa.String(100)),
        sa.Column("content_rich", sa.Text()),
        sa.Column("brand_config", sa.Text()),
        sa.Column("variables_schema", sa.Text()),
        sa.Column("speaker_notes", sa.Text()),
        sa.Column("contract_template_id", sa.String(36)),
        sa.Column("is_active", sa.Boolean(), nullable=False, server_default=sa.true()),
        _fk("created_by", "proposal_templates", "users"),
        *_times(),
    )
    op.create_index("ix_proposal_templates_active_category", "proposal_templates", ["is_active", "category"])
    op.create_table(
        "proposals",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("title", sa.String(300), nullable=False),
        _fk("deal_id", "proposals", "deals"),
        _fk("company_id", "proposals", "companies"),
        _fk("contact_id", "proposals", "contacts"),
        _fk("template_id", "proposals", "proposal_templates"),
        _fk("page_id", "proposals", "pages", ondelete=None, nullable=False),
        sa.Column("status", sa.String(30), nullable=False, server_default="draft"),
        sa.Column("version", sa.Integer(), nullable=False, server_default="1"),
        sa.Column("currency", sa.String(3), nullable=False, server_default="AUD"),
        sa.Column("total_amount", sa.Numeric(16, 2)),
        sa.Column("valid_until", sa.Date()),
        sa.Column("speaker_notes", sa.Text()),
        sa.Column("brand_config", sa.Text()),
        sa.Column("share_token", sa.String(64)),
        sa.Column("share_password", sa.String(300)),
        sa.Column("share_enabled", sa.Boolean(), nullable=False, server_default=sa.false()),
        _fk("owner_id", "proposals", "users"),
        _fk("created_by", "proposals", "users"),
        sa.Column("sent_at", UTCDateTime()),
        sa.Column("viewed_at", UTCDateTime()),
        sa.Column("accepted_at", UTCDateTime()),
        sa.Column("declined_at", UTCDateTime()),
        sa.Column("decline_reason", sa.Text()),
        sa.Column("responder_name", sa.String(200)),
        sa.Column("responder_email", sa.String(320)),
        sa.Column("contract_id", sa.String(36)),
        sa.Column("project_id", sa.String(36)),
        sa.Column("budget_id", sa.String(36)),
        sa.Column("invoice_id", sa.String(36)),
        *_times(),
        sa.UniqueConstraint("share_token", name="uq_proposals_share_token"),
    )
    for column in ("deal_id", "company_id", "status", "owner_id"):
        op.create_index(f"ix_proposals_{column}", "proposals", [column])
    op.create_index("ix_proposals_list_order", "proposals", ["created_at"])
    op.create_table(
        "proposal_approvals",
        sa.Column("id", sa.String(36), primary_key=True),
        _fk("proposal_id", "proposal_approvals", "proposals", ondelete="CASCADE", nullable=False),
        _fk("user_id", "proposal_approvals", "users", ondelete="CASCADE", nullable=False),
        sa.Column("listed", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("approved_at", UTCDateTime()),
        sa.Column("comments", sa.Text()),
        *_times(),
        sa.UniqueConstraint("proposal_id", "user_id", name="uq_proposal_approvals_proposal_user"),
    )
    op.create_index("ix_proposal_approvals_user_id", "proposal_approvals", ["user_id"])
    op.create_table(
        "proposal_pricing_sections",
        sa.Column("id", sa.String(36), primary_key=True),
        _fk("proposal_id", "proposal_pricing_sections", "proposals", ondelete="CASCADE", nullable=False),
        sa.Column("title", sa.String(300), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_index("ix_proposal_pricing_sections_proposal_id", "proposal_pricing_sections", ["proposal_id"])
    op.create_table(
        "proposal_pricing_items",
        sa.Column("id", sa.String(36), primary_key=True),
        _fk("section_id", "proposal_pricing_items", "proposal_pricing_sections", ondelete="CASCADE", nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("service_type_id", sa.String(36)),
        sa.Column("quantity", sa.Numeric(12, 2), nullable=False),
        sa.Column("unit_price", sa.Numeric(14, 2), nullable=False),
        sa.Column("amount", sa.Numeric(16, 2), nullable=False),
        sa.Column("notes", sa.Text()),
        sa.Column("position", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_index("ix_proposal_pricing_items_section_id", "proposal_pricing_items", ["section_id"])
    op.create_table(
        "proposal_views",
        sa.Column("id", sa.String(36), primary_key=True),
        _fk("proposal_id", "proposal_views", "proposals", ondelete="CASCADE", nullable=False),
        sa.Column("session_id", sa.String(100), nullable=False),
        sa.Column("slide_index", sa.Integer(), nullable=False),
        sa.Column("duration_seconds", sa.Float(), nullable=False, server_default="0"),
        sa.Column("events", sa.Integer(), nullable=False, server_default="0"),
        *_times(),
        sa.UniqueConstraint("proposal_id", "session_id", "slide_index", name="uq_proposal_views_proposal_session_slide"),
    )
    op.create_table(
        "proposal_password_attempts",
        sa.Column("id", sa.String(36), primary_key=True),
        _fk("proposal_id", "proposal_password_attempts", "proposals", ondelete="CASCADE", nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_proposal_password_attempts_proposal_created", "proposal_password_attempts",
                    ["proposal_id", "created_at"])


def downgrade() -> None:
    for table in ("proposal_password_attempts", "proposal_views", "proposal_pricing_items",
                  "proposal_pricing_sections", "proposal_approvals", "proposals", "proposal_templates"):
        op.drop_table(table)
