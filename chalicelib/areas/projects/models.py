"""Projects: the project, its members, goals, decision log, cached AI summary and deal link.

Foreign keys only to this area's own tables and to core tables (users, config_list_items);
company, deal and SLA policy ids are plain strings (other areas' records).
"""

from datetime import date, datetime

from sqlalchemy import JSON, Date, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Created, Timestamps, UTCDateTime, cross_area_key, id_column


class Project(Timestamps, Base):
    __tablename__ = "projects"
    __table_args__ = (  # the list's order, search by pg_trgm (migration projects_0002)
        Index("ix_projects_list_order", "created_at"),
        Index("ix_projects_name_trgm", "name", postgresql_using="gin", postgresql_ops={"name": "gin_trgm_ops"}),
        Index("ix_projects_description_trgm", "description", postgresql_using="gin",
              postgresql_ops={"description": "gin_trgm_ops"}),
    )

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(300), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    company_id: Mapped[str | None] = mapped_column(String(36), index=True)
    type_id: Mapped[str | None] = mapped_column(ForeignKey("config_list_items.id", ondelete="SET NULL"), index=True)
    status: Mapped[str] = mapped_column(String(50), nullable=False, default="active", index=True)
    owner_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    delivery_manager_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    squad: Mapped[str | None] = mapped_column(String(200), index=True)
    start_date: Mapped[date | None] = mapped_column(Date)
    end_date: Mapped[date | None] = mapped_column(Date)
    # `metadata` is reserved on declarative classes: the attribute is `meta`, the column `metadata`.
    meta: Mapped[str | None] = mapped_column("metadata", Text)
    # the SLA area's migration (sla_0002) adds the key: deleting a policy clears it here
    sla_policy_id: Mapped[str | None] = mapped_column(String(36), cross_area_key(
        "sla_policies.id", ondelete="SET NULL", name="fk_projects_sla_policy_id_sla_policies"))
    auto_ticket_from_email: Mapped[str | None] = mapped_column(String(320))
    created_by: Mapped[str | None] = mapped_column(String(36))


class ProjectMember(Created, Base):
    __tablename__ = "project_members"
    __table_args__ = (UniqueConstraint("project_id", "user_id", name="uq_project_members_project_user"),)

    id: Mapped[str] = id_column()
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), nullable=False)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True)
    role: Mapped[str] = mapped_column(String(50), nullable=False, default="member")


class ProjectGoal(Timestamps, Base):
    __tablename__ = "project_goals"
    __table_args__ = (Index("ix_project_goals_project_position", "project_id", "position", "created_at"),)

    id: Mapped[str] = id_column()
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), nullable=False)
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(String(50))
    due_date: Mapped[date | None] = mapped_column(Date)
    position: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    created_by: Mapped[str | None] = mapped_column(String(36))


class ProjectDecision(Timestamps, Base):
    __tablename__ = "project_decisions"
    __table_args__ = (Index("ix_project_decisions_project_decided", "project_id", "decided_at", "created_at"),)

    id: Mapped[str] = id_column()
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), nullable=False)
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    decision: Mapped[str] = mapped_column(Text, nullable=False)
    rationale: Mapped[str | None] = mapped_column(Text)
    decided_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    decided_at: Mapped[date | None] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(50), nullable=False, default="agreed")
    created_by: Mapped[str | None] = mapped_column(String(36))


class ProjectAISummary(Base):
    __tablename__ = "project_ai_summaries"

    id: Mapped[str] = id_column()
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), nullable=False, unique=True)
    summary_text: Mapped[str] = mapped_column(Text, nullable=False)
    recommendations: Mapped[list] = mapped_column(JSON, nullable=False)
    generated_by: Mapped[str | None] = mapped_column(String(36))
    generated_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)


class ProjectDealLink(Created, Base):
    """At most one linked deal per project (`PUT /api/projects/:id/deal`)."""

    __tablename__ = "project_deal_links"

    id: Mapped[str] = id_column()
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), nullable=False, unique=True)
    deal_id: Mapped[str] = mapped_column(String(36), nullable=False, index=True)
    linked_by: Mapped[str | None] = mapped_column(String(36))
