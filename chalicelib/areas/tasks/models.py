"""Tasks: the task, its checklist (todos), watchers and attached links. The agent task meta record (table
`agent_tasks`, created by migration tasks_0001) is modelled by the agents area (chalicelib/areas/agents/models.py)."""

from datetime import date, datetime

from sqlalchemy import Boolean, Date, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Created, Timestamps, UTCDateTime, cross_area_key, id_column


class Task(Timestamps, Base):
    __tablename__ = "tasks"
    __table_args__ = (
        Index("ix_tasks_resource", "resource_type", "resource_id"),
        # the list's order and filters, search by pg_trgm (migration tasks_0002)
        Index("ix_tasks_list_order", "sort_order", "due_date"),
        Index("ix_tasks_due_date", "due_date"),
        Index("ix_tasks_priority_id", "priority_id"),
        Index("ix_tasks_type_id", "type_id"),
        Index("ix_tasks_title_trgm", "title", postgresql_using="gin", postgresql_ops={"title": "gin_trgm_ops"}),
        Index("ix_tasks_description_trgm", "description", postgresql_using="gin",
              postgresql_ops={"description": "gin_trgm_ops"}),
    )

    id: Mapped[str] = id_column()
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    resource_type: Mapped[str | None] = mapped_column(String(50))
    resource_id: Mapped[str | None] = mapped_column(String(36))
    status_id: Mapped[str | None] = mapped_column(ForeignKey("config_list_items.id", ondelete="SET NULL"), index=True)
    priority_id: Mapped[str | None] = mapped_column(ForeignKey("config_list_items.id", ondelete="SET NULL"))
    type_id: Mapped[str | None] = mapped_column(ForeignKey("config_list_items.id", ondelete="SET NULL"))
    phase_id: Mapped[str | None] = mapped_column(ForeignKey("config_list_items.id", ondelete="SET NULL"))
    assignee_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    reporter_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    parent_task_id: Mapped[str | None] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"), index=True)
    roadmap_item_id: Mapped[str | None] = mapped_column(String(36), index=True)
    # ON DELETE SET NULL: deleting a sprint clears it here (migration sprints_0002)
    sprint_id: Mapped[str | None] = mapped_column(
        String(36), cross_area_key("sprints.id", ondelete="SET NULL", name="fk_tasks_sprint_id_sprints"), index=True)
    due_date: Mapped[date | None] = mapped_column(Date)
    start_date: Mapped[date | None] = mapped_column(Date)
    estimated_hours: Mapped[float | None] = mapped_column(Float)
    internal_hours: Mapped[float | None] = mapped_column(Float)
    is_private: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    sort_order: Mapped[float | None] = mapped_column(Float)
    # ON DELETE SET NULL: deleting a contact clears it here (migration deals_0002, session 26)
    reported_by_contact_id: Mapped[str | None] = mapped_column(
        String(36), cross_area_key("contacts.id", ondelete="SET NULL", name="fk_tasks_reported_by_contact_id_contacts"),
        index=True)
    requirements: Mapped[str | None] = mapped_column(Text)
    scope: Mapped[str | None] = mapped_column(Text)
    delivery_notes: Mapped[str | None] = mapped_column(Text)
    testing_notes: Mapped[str | None] = mapped_column(Text)
    estimate_compute_hours: Mapped[float | None] = mapped_column(Float)
    estimate_total_cost: Mapped[float | None] = mapped_column(Float)
    approved_by_user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    approved_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # the `task_due_soon` notice: the due date it was sent for and the assignee it went to (migration tasks_0003;
    # the job's marker, not part of the read model: queries.NOTICE_FIELDS)
    due_soon_noticed_for: Mapped[date | None] = mapped_column(Date)
    due_soon_noticed_to: Mapped[str | None] = mapped_column(String(36))


class TaskTodo(Timestamps, Base):
    __tablename__ = "task_todos"

    id: Mapped[str] = id_column()
    task_id: Mapped[str] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"), nullable=False, index=True)
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    is_done: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    position: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    assignee_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    due_date: Mapped[date | None] = mapped_column(Date)


class TaskWatcher(Created, Base):
    __tablename__ = "task_watchers"
    __table_args__ = (UniqueConstraint("task_id", "user_id", name="uq_task_watchers_task_user"),)

    id: Mapped[str] = id_column()
    task_id: Mapped[str] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"), nullable=False, index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True)


class TaskResource(Created, Base):
    __tablename__ = "task_resources"

    id: Mapped[str] = id_column()
    task_id: Mapped[str] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"), nullable=False, index=True)
    type: Mapped[str] = mapped_column(String(20), nullable=False, default="link")
    url: Mapped[str] = mapped_column(Text, nullable=False)
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    icon: Mapped[str] = mapped_column(String(50), nullable=False, default="link")
    sort_order: Mapped[int | None] = mapped_column(Integer)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))

