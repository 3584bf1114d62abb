"""The agent pipeline: the agent task meta record (one per `agent_task` task; its table was created by the
tasks area's migration tasks_0001 and the model moved here, issue 13), its runs and the runner's reports,
and each project's agent configuration (migration agents_0001)."""
from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, Numeric, String, Text, UniqueConstraint, func
from sqlalchemy.orm import Mapped, mapped_column

from chalicelib.core.db import Base, Created, Timestamps, UTCDateTime, cross_area_key, id_column, insert_stamp

STAGES = ("draft", "scoping", "pending_approval", "building", "review", "done", "rejected")
# the stages after approval: the scope document is the approved scope there (session 31; decisions/agents.md)
APPROVED_STAGES = ("building", "review", "done")


class AgentTask(Timestamps, Base):
    """Pipeline metadata of a task whose type is `agent_task` (one per task)."""

    __tablename__ = "agent_tasks"

    id: Mapped[str] = id_column()
    task_id: Mapped[str] = mapped_column(cross_area_key("tasks.id", ondelete="CASCADE"), nullable=False, unique=True)
    stage: Mapped[str] = mapped_column(String(30), nullable=False, default="draft")
    effort_estimate: Mapped[str | None] = mapped_column(String(50))
    scope_document: Mapped[str | None] = mapped_column(Text)
    agent_confidence_note: Mapped[str | None] = mapped_column(Text)
    retry_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    branch_name: Mapped[str | None] = mapped_column(String(300))
    pr_url: Mapped[str | None] = mapped_column(Text)
    preview_url: Mapped[str | None] = mapped_column(Text)
    browser_test_status: Mapped[str | None] = mapped_column(String(30))
    browser_test_video_url: Mapped[str | None] = mapped_column(Text)
    ci_status: Mapped[str | None] = mapped_column(String(30))


class AgentRun(Timestamps, Base):
    """One piece of work asked of the runner (a scoping or a build run), with what it cost."""

    __tablename__ = "agent_runs"
    # the second serves the stale-runs job's read of the runs still waiting (migrations agents_0002, agents_0003)
    __table_args__ = (Index("ix_agent_runs_task_created", "task_id", "created_at"),
                      Index("ix_agent_runs_status_last_report", "status", "last_report_at"))

    id: Mapped[str] = id_column()
    task_id: Mapped[str] = mapped_column(cross_area_key("tasks.id", ondelete="CASCADE"), nullable=False)
    project_id: Mapped[str | None] = mapped_column(String(36), index=True)
    stage: Mapped[str] = mapped_column(String(30), nullable=False)
    # queued (asked after commit), running (the runner took it), success, failed, or what the runner reported
    status: Mapped[str] = mapped_column(String(30), nullable=False, default="queued")
    tokens: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    cost: Mapped[Decimal] = mapped_column(Numeric(14, 6), nullable=False, default=Decimal("0"))  # exact money
    error: Mapped[str | None] = mapped_column(Text)
    feedback: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # when the run was last heard of (session 27): its creation, the runner taking it, each report of the run while
    # it has not ended (a repeated `running` report too); the stale-runs job's clock
    last_report_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=insert_stamp, nullable=False,
                                                     server_default=func.now())


class AgentRunReport(Created, Base):
    """A runner callback once applied: (run, stage, status) is unique, so a delivery repeated has one effect."""

    __tablename__ = "agent_run_reports"
    __table_args__ = (UniqueConstraint("run_id", "stage", "status", name="uq_agent_run_reports_run_id"),)

    id: Mapped[str] = id_column()
    run_id: Mapped[str] = mapped_column(ForeignKey("agent_runs.id", ondelete="CASCADE"), nullable=False)
    stage: Mapped[str] = mapped_column(String(30), nullable=False)
    status: Mapped[str] = mapped_column(String(30), nullable=False)


class ProjectAgentConfig(Timestamps, Base):
    """A project's agent configuration (one per project); the runner secret is stored encrypted (core.crypto)."""

    __tablename__ = "project_agent_configs"

    id: Mapped[str] = id_column()
    project_id: Mapped[str] = mapped_column(cross_area_key("projects.id", ondelete="CASCADE"), nullable=False,
                                            unique=True)
    project_type: Mapped[str | None] = mapped_column(String(100))
    repo_org: Mapped[str | None] = mapped_column(String(200))
    repo_name: Mapped[str | None] = mapped_column(String(200))
    default_branch: Mapped[str | None] = mapped_column(String(200))
    deploy_target: Mapped[str | None] = mapped_column(String(200))
    preview_url_pattern: Mapped[str | None] = mapped_column(String(1000))
    production_url: Mapped[str | None] = mapped_column(String(1000))
    workflow_config: Mapped[dict | None] = mapped_column(JSON)
    runner_url: Mapped[str | None] = mapped_column(String(1000))
    enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    runner_secret_encrypted: Mapped[str | None] = mapped_column(Text)
    updated_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
