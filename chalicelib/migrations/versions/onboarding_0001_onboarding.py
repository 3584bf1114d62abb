"""Client onboarding: templates, stages, milestones, and each client company's progress.

Revision ID: onboarding_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "onboarding_0001"
down_revision = "core_0001"
branch_labels = ("onboarding",)
depends_on = "deals_0001"


def _times() -> list[sa.Column]:
    return [sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
            sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now())]


def _fk(name: str, table: str, target: str, ondelete: str | None, **kw) -> sa.Column:
    return sa.Column(name, sa.String(36), sa.ForeignKey(f"{target}.id", ondelete=ondelete,
                                                        name=f"fk_{table}_{name}_{target}"), **kw)


def upgrade() -> None:
    op.create_table(
        "onboarding_templates",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("is_default", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("is_active", sa.Boolean(), nullable=False, server_default=sa.true()),
        _fk("created_by", "onboarding_templates", "users", "SET NULL"),
        *_times(),
    )
    op.create_table(
        "onboarding_stages",
        sa.Column("id", sa.String(36), primary_key=True),
        _fk("template_id", "onboarding_stages", "onboarding_templates", "CASCADE", nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("stage_type", sa.String(100), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("color", sa.String(50)),
        sa.Column("sort_order", sa.Integer(), nullable=False, server_default="0"),
        *_times(),
    )
    op.create_index("ix_onboarding_stages_template_id", "onboarding_stages", ["template_id"])
    op.create_table(
        "onboarding_milestones",
        sa.Column("id", sa.String(36), primary_key=True),
        _fk("stage_id", "onboarding_milestones", "onboarding_stages", "CASCADE", nullable=False),
        sa.Column("title", sa.String(300), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("is_required", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("auto_source", sa.String(100)),
        sa.Column("sort_order", sa.Integer(), nullable=False, server_default="0"),
        *_times(),
    )
    op.create_index("ix_onboarding_milestones_stage_id", "onboarding_milestones", ["stage_id"])
    op.create_table(
        "onboarding_progress",
        sa.Column("id", sa.String(36), primary_key=True),
        _fk("company_id", "onboarding_progress", "companies", "CASCADE", nullable=False),
        _fk("template_id", "onboarding_progress", "onboarding_templates", None, nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("completed_at", UTCDateTime()),
        *_times(),
        sa.UniqueConstraint("company_id", name="uq_onboarding_progress_company_id"),
    )
    op.create_index("ix_onboarding_progress_template_id", "onboarding_progress", ["template_id"])
    op.create_table(
        "onboarding_completions",
        sa.Column("id", sa.String(36), primary_key=True),
        _fk("progress_id", "onboarding_completions", "onboarding_progress", "CASCADE", nullable=False),
        _fk("milestone_id", "onboarding_completions", "onboarding_milestones", "CASCADE",
            nullable=False),
        _fk("completed_by", "onboarding_completions", "users", "SET NULL"),
        sa.Column("source", sa.String(100), nullable=False, server_default="manual"),
        *_times(),
        sa.UniqueConstraint("progress_id", "milestone_id", name="uq_onboarding_completions_progress_milestone"),
    )
    op.create_index("ix_onboarding_completions_milestone_id", "onboarding_completions", ["milestone_id"])


def downgrade() -> None:
    for table in ("onboarding_completions", "onboarding_progress", "onboarding_milestones",
                  "onboarding_stages", "onboarding_templates"):
        op.drop_table(table)
