"""Relationships: relationship profiles, life events, relationship actions, messages, partners and client wins.

Revision ID: relationships_0001
"""
import sqlalchemy as sa
from alembic import op

from chalicelib.core.db import UTCDateTime

revision = "relationships_0001"
down_revision = "core_0001"
branch_labels = ("relationships",)
depends_on = ("deals_0001", "projects_0001")


def _timestamps():
    return [
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    ]


def _fk(table: str, column: str, target: str, ondelete: str):
    return sa.ForeignKey(f"{target}.id", ondelete=ondelete, name=f"fk_{table}_{column}_{target}")


def upgrade() -> None:
    t = "relationship_profiles"
    op.create_table(
        t,
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("contact_id", sa.String(36), _fk(t, "contact_id", "contacts", "CASCADE"), nullable=False),
        sa.Column("communication_preference", sa.String(50)),
        sa.Column("communication_notes", sa.Text()),
        sa.Column("personal_notes", sa.Text()),
        sa.Column("birthday", sa.String(10)),
        sa.Column("birthday_year", sa.Integer()),
        sa.Column("home_address", sa.Text()),
        sa.Column("interests", sa.JSON(), nullable=False),
        sa.Column("dietary_requirements", sa.String(500)),
        sa.Column("preferred_name", sa.String(200)),
        sa.Column("assistant_name", sa.String(200)),
        sa.Column("assistant_email", sa.String(320)),
        sa.Column("phone_number", sa.String(50)),
        sa.Column("msgapp_number", sa.String(50)),
        sa.Column("sms_opt_in", sa.Boolean(), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint("contact_id", name="uq_relationship_profiles_contact_id"),
    )
    t = "life_events"
    op.create_table(
        t,
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("contact_id", sa.String(36), _fk(t, "contact_id", "contacts", "CASCADE"), nullable=False),
        sa.Column("event_type", sa.String(50), nullable=False),
        sa.Column("title", sa.String(300), nullable=False),
        sa.Column("event_date", sa.Date()),
        sa.Column("recurs_annually", sa.Boolean(), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("auto_action_enabled", sa.Boolean(), nullable=False),
        sa.Column("auto_action_days_before", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.String(36), _fk(t, "company_id", "companies", "SET NULL")),
        sa.Column("created_by", sa.String(36), _fk(t, "created_by", "users", "SET NULL")),
        *_timestamps(),
    )
    op.create_index("ix_life_events_contact_date", t, ["contact_id", "event_date"])
    op.create_index("ix_life_events_company_id", t, ["company_id"])
    t = "relationship_actions"
    op.create_table(
        t,
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("contact_id", sa.String(36), _fk(t, "contact_id", "contacts", "CASCADE"), nullable=False),
        sa.Column("life_event_id", sa.String(36), _fk(t, "life_event_id", "life_events", "SET NULL")),
        sa.Column("occurrence_date", sa.Date()),
        sa.Column("title", sa.String(500), nullable=False),
        sa.Column("action_type", sa.String(50), nullable=False),
        sa.Column("description", sa.Text()),
        sa.Column("assigned_to_user_id", sa.String(36), _fk(t, "assigned_to_user_id", "users", "SET NULL")),
        sa.Column("due_date", sa.Date()),
        sa.Column("message_body", sa.Text()),
        sa.Column("company_id", sa.String(36), _fk(t, "company_id", "companies", "SET NULL")),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("is_auto", sa.Boolean(), nullable=False),
        sa.Column("completed_at", UTCDateTime()),
        sa.Column("created_by", sa.String(36), _fk(t, "created_by", "users", "SET NULL")),
        *_timestamps(),
        sa.UniqueConstraint("life_event_id", "occurrence_date", name="uq_relationship_actions_event_occurrence"),
        sa.CheckConstraint("status IN ('pending', 'done', 'dismissed')", name="ck_relationship_actions_status"),
    )
    op.create_index("ix_relationship_actions_contact", t, ["contact_id", "created_at"])
    op.create_index("ix_relationship_actions_assigned_status", t, ["assigned_to_user_id", "status"])
    op.create_index("ix_relationship_actions_company_id", t, ["company_id"])
    t = "relationship_messages"
    op.create_table(
        t,
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("contact_id", sa.String(36), _fk(t, "contact_id", "contacts", "CASCADE"), nullable=False),
        sa.Column("channel", sa.String(10), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("media_url", sa.String(2000)),
        sa.Column("to_number", sa.String(50), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("provider_message_id", sa.String(100)),
        sa.Column("error", sa.Text()),
        sa.Column("auto_action_id", sa.String(36), _fk(t, "auto_action_id", "relationship_actions", "SET NULL")),
        sa.Column("sent_by", sa.String(36), _fk(t, "sent_by", "users", "SET NULL")),
        sa.Column("created_at", UTCDateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_relationship_messages_contact_created", t, ["contact_id", "created_at"])
    t = "client_partners"
    op.create_table(
        t,
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("company_id", sa.String(36), _fk(t, "company_id", "companies", "CASCADE"), nullable=False),
        sa.Column("partner_company_name", sa.String(200), nullable=False),
        sa.Column("partner_contact_name", sa.String(200)),
        sa.Column("partner_contact_email", sa.String(320)),
        sa.Column("relationship_type", sa.String(100)),
        sa.Column("estimated_deal_size", sa.Numeric(14, 2)),
        sa.Column("notes", sa.Text()),
        sa.Column("contact_id", sa.String(36), _fk(t, "contact_id", "contacts", "SET NULL")),
        sa.Column("created_by", sa.String(36), _fk(t, "created_by", "users", "SET NULL")),
        *_timestamps(),
    )
    op.create_index("ix_client_partners_company_id", t, ["company_id"])
    t = "client_wins"
    op.create_table(
        t,
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("company_id", sa.String(36), _fk(t, "company_id", "companies", "CASCADE"), nullable=False),
        sa.Column("project_id", sa.String(36), _fk(t, "project_id", "projects", "CASCADE"), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("summary", sa.Text()),
        sa.Column("created_by", sa.String(36), _fk(t, "created_by", "users", "SET NULL")),
        *_timestamps(),
        sa.UniqueConstraint("project_id", name="uq_client_wins_project_id"),
    )
    op.create_index("ix_client_wins_company_id", t, ["company_id"])


def downgrade() -> None:
    for table in ("client_wins", "client_partners", "relationship_messages", "relationship_actions", "life_events",
                  "relationship_profiles"):
        op.drop_table(table)
