"""Roadmaps, optionally of a project, with items in swim lanes linked to project goals."""
from __future__ import annotations

from datetime import date

from sqlalchemy import Date, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, id_column


class Roadmap(Timestamps, Base):
    __tablename__ = "roadmaps"
    __table_args__ = (Index("ix_roadmaps_list_order", "created_at"),)  # migration roadmaps_0002

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    project_id: Mapped[str | None] = mapped_column(String(36), index=True)  # projects area, no FK
    start_date: Mapped[date | None] = mapped_column(Date)
    end_date: Mapped[date | None] = mapped_column(Date)
    created_by: Mapped[str | None] = mapped_column(String(36))


class RoadmapItem(Timestamps, Base):
    __tablename__ = "roadmap_items"

    id: Mapped[str] = id_column()
    roadmap_id: Mapped[str] = mapped_column(ForeignKey("roadmaps.id", ondelete="CASCADE"), nullable=False, index=True)
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    description: Mapped[str | None] = mapped_column(Text)
    goal_id: Mapped[str | None] = mapped_column(String(36))  # a goal of the roadmap's project, no FK
    area: Mapped[str | None] = mapped_column(String(100))
    start_date: Mapped[date | None] = mapped_column(Date)
    end_date: Mapped[date | None] = mapped_column(Date)
    color: Mapped[str | None] = mapped_column(String(20))
    position: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
