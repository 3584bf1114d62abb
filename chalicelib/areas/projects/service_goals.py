"""Project goals: ordered by position then created_at; create, update, delete."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import not_found
from chalicelib.core.serialize import row_dict

from .models import ProjectGoal
from .service import LIST_LIMIT, visible_project

GOAL_FIELDS = ("id", "project_id", "title", "description", "status", "due_date", "position", "created_by",
               "created_at", "updated_at")
DEFAULT_GOAL_STATUS = "not_started"


def goal_records(db, *, project_id: str) -> list[dict]:
    goals = db.scalars(select(ProjectGoal).where(ProjectGoal.project_id == project_id)
                       .order_by(ProjectGoal.position, ProjectGoal.created_at, ProjectGoal.id).limit(LIST_LIMIT))
    return [row_dict(goal, GOAL_FIELDS) for goal in goals]


def list_goals(ctx, *, project_id: str) -> list[dict]:
    visible_project(ctx, project_id)
    return goal_records(ctx.db, project_id=project_id)


def _goal(ctx, project_id: str, goal_id: str) -> ProjectGoal:
    visible_project(ctx, project_id)
    goal = ctx.db.scalar(select(ProjectGoal).where(ProjectGoal.id == goal_id, ProjectGoal.project_id == project_id))
    if goal is None:
        raise not_found("Goal")
    return goal


def create_goal(ctx, *, project_id: str, data) -> dict:
    project = visible_project(ctx, project_id)
    goal = ProjectGoal(project_id=project.id, title=data.title, description=data.description,
                       status=data.status or DEFAULT_GOAL_STATUS, due_date=data.due_date,
                       position=data.position if data.position is not None else 0, created_by=ctx.user_id)
    ctx.db.add(goal)
    ctx.db.flush()
    return row_dict(goal, GOAL_FIELDS)


def update_goal(ctx, *, project_id: str, goal_id: str, data) -> dict:
    goal = _goal(ctx, project_id, goal_id)
    for field, value in data.changes().items():
        setattr(goal, field, value)
    ctx.db.flush()
    return row_dict(goal, GOAL_FIELDS)


def delete_goal(ctx, *, project_id: str, goal_id: str) -> None:
    ctx.db.delete(_goal(ctx, project_id, goal_id))
    ctx.db.flush()
