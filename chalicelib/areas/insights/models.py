"""Insights: the capacity heatmap's projection of projects (document 1, project side effects). Workforce figures
are computed from users at read time and need no table of their own."""
from __future__ import annotations

from sqlalchemy import Index, String
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Timestamps, cross_area_key

INACTIVE_PROJECT_STATUSES = ("completed", "cancelled", "archived")


class CapacityProject(Timestamps, Base):
    """A project that has both a company and a project type: it fills the heatmap cell (company, type). Kept by
    the projects area's explicit call on create and on a change of status, company or type; removed with the
    project (ON DELETE CASCADE) or when it loses its company or type."""

    __tablename__ = "capacity_projects"
    __table_args__ = (Index("ix_capacity_projects_cell", "company_id", "project_type_id"),)

    project_id: Mapped[str] = mapped_column(cross_area_key("projects.id", ondelete="CASCADE"), primary_key=True)
    company_id: Mapped[str] = mapped_column(String(36), nullable=False)
    project_type_id: Mapped[str] = mapped_column(String(36), nullable=False)
    status: Mapped[str] = mapped_column(String(50), nullable=False)
