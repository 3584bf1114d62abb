"""Records every area reads: users, squads, permissions, the history log and config lists.

They live in core so that an area's function can join them without importing another area.
"""

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Boolean, Date, Float, ForeignKey, Index, Integer, Numeric, String, Text, func, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .db import Base, Created, JSON, Timestamps, created_at_column, id_column

ACCESS_LEVELS = ("employee", "lead", "manager", "head", "executive")


class User(Timestamps, Base):
    __tablename__ = "users"
    # e-mails are unique case-insensitively (the caller is found by lower(email)), as migrated
    __table_args__ = (Index("uq_users_email_lower", func.lower(text("email")), unique=True),)

    id: Mapped[str] = id_column()
    email: Mapped[str] = mapped_column(String(320), nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    access_level: Mapped[str] = mapped_column(String(20), nullable=False, default="employee")
    squad_id: Mapped[str | None] = mapped_column(ForeignKey("squads.id", ondelete="SET NULL"), index=True)
    manager_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    job_title: Mapped[str | None] = mapped_column(String(200))
    picture: Mapped[str | None] = mapped_column(Text)
    phone: Mapped[str | None] = mapped_column(String(50))
    date_of_birth: Mapped[date | None] = mapped_column(Date)
    start_date: Mapped[date | None] = mapped_column(Date)
    end_date: Mapped[date | None] = mapped_column(Date)
    gender: Mapped[str | None] = mapped_column(String(50))
    salary: Mapped[Decimal | None] = mapped_column(Numeric(14, 2))
    location: Mapped[str | None] = mapped_column(String(200))
    employment_basis: Mapped[str | None] = mapped_column(String(50))
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)


class Squad(Created, Base):
    __tablename__ = "squads"
    # unique case-insensitively: projects refer to squads by name (migration core_0002)
    __table_args__ = (Index("uq_squads_name_lower", func.lower(text("name")), unique=True),)

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    manager_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL", use_alter=True), index=True)
    chat_channel_id: Mapped[str | None] = mapped_column(String(200))


class AccessLevelPermission(Base):
    """The access-level matrix as executives edited it; missing cells fall back to the defaults."""

    __tablename__ = "access_level_permissions"

    access_level: Mapped[str] = mapped_column(String(20), primary_key=True)
    tool: Mapped[str] = mapped_column(String(50), primary_key=True)
    level: Mapped[str] = mapped_column(String(10), nullable=False)


class UserPermission(Base):
    """A per-user override that replaces the matrix's level for one tool."""

    __tablename__ = "user_permissions"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    tool: Mapped[str] = mapped_column(String(50), primary_key=True)
    level: Mapped[str] = mapped_column(String(10), nullable=False)


class HistoryEntry(Created, Base):
    __tablename__ = "history_entries"
    # nobody reads a history INSERT's answer: on pg8000 it leaves with the request's next statement (core.db)
    __table_args__ = (Index("ix_history_entries_entity", "entity_type", "entity_id", "created_at"),
                      {"info": {"write_later": True}})

    id: Mapped[str] = id_column()
    entity_type: Mapped[str] = mapped_column(String(50), nullable=False)
    entity_id: Mapped[str] = mapped_column(String(36), nullable=False)
    action: Mapped[str] = mapped_column(String(50), nullable=False)
    actor_id: Mapped[str | None] = mapped_column(String(36))
    changes: Mapped[dict | None] = mapped_column(JSON)


class ProviderUse(Base):
    """One call of a paid provider (AI, enrichment, SMS) made for a user, kept for their hourly allowance
    (core.allowance): `kind` names the allowance, `key` whose it is (a user id)."""
    __tablename__ = "provider_uses"
    __table_args__ = (Index("ix_provider_uses_kind_key_created_at", "kind", "key", "created_at"),)

    id: Mapped[str] = id_column()
    kind: Mapped[str] = mapped_column(String(40), nullable=False)
    key: Mapped[str] = mapped_column(String(120), nullable=False)
    created_at: Mapped[datetime] = created_at_column()


class ConfigList(Base):
    __tablename__ = "config_lists"

    id: Mapped[str] = id_column()
    key: Mapped[str] = mapped_column(String(100), unique=True, nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    is_system: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    created_at: Mapped[datetime] = created_at_column()

    items: Mapped[list["ConfigListItem"]] = relationship(
        back_populates="list", order_by="(ConfigListItem.position, ConfigListItem.label, ConfigListItem.id)", cascade="all, delete-orphan"
    )


class ConfigListItem(Base):
    __tablename__ = "config_list_items"

    id: Mapped[str] = id_column()
    list_id: Mapped[str] = mapped_column(ForeignKey("config_lists.id", ondelete="CASCADE"), nullable=False, index=True)
    label: Mapped[str] = mapped_column(String(200), nullable=False)
    value: Mapped[str] = mapped_column(String(200), nullable=False)
    color: Mapped[str | None] = mapped_column(String(20))
    icon: Mapped[str | None] = mapped_column(String(100))
    is_default: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    is_system: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    position: Mapped[int] = mapped_column(Integer, nullable=False, default=99)
    stage_type: Mapped[str | None] = mapped_column(String(50))
    probability: Mapped[float | None] = mapped_column(Float)
    email_template_id: Mapped[str | None] = mapped_column(String(36))
    email_trigger_active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    created_at: Mapped[datetime] = created_at_column()

    list: Mapped[ConfigList] = relationship(back_populates="items")
