"""Project goals: ordered by position then created_at; create, update, delete."""
from __future__ import annotations

from chalicelib.core.errors import Conflict
from chalicelib.core.locks import lock_row
from chalicelib.core.query import Page, record_page

from .models import Project, ProjectGoal
from .queries import SUB_LIST_LIMIT, count_of, goal_record, goals_of, load_goal, load_project

DEFAULT_GOAL_STATUS = "not_started"


def list_goals(ctx, *, project_id: str, query) -> Page:
    """One page of the project's goals in the detail's order (session 23: the detail cuts its goals to what fits a
    Lambda answer; the rest are read here)."""
    load_project(ctx, project_id)
    return record_page(ctx.db, goals_of(project_id), query)


def create_goal(ctx, *, project_id: str, data) -> dict:
    """A project holds at most SUB_LIST_LIMIT (500) goals (409 beyond)."""
    project = load_project(ctx, project_id)
    lock_row(ctx.db, Project, project.id, missing="Project")  # concurrent creates cannot pass the cap together
    if count_of(ctx.db, ProjectGoal, project.id) >= SUB_LIST_LIMIT:
        raise Conflict(f"A project holds at most {SUB_LIST_LIMIT} goals")
    goal = ProjectGoal(project_id=project.id, title=data.title, description=data.description,
                       status=data.status or DEFAULT_GOAL_STATUS, due_date=data.due_date,
                       position=data.position if data.position is not None else 0, created_by=ctx.user_id)
    ctx.db.add(goal)
    ctx.db.flush()
    return goal_record(goal)


def update_goal(ctx, *, project_id: str, goal_id: str, data) -> dict:
    goal = load_goal(ctx, project_id, goal_id)
    for field, value in data.changes().items():
        setattr(goal, field, value)
    ctx.db.flush()
    return goal_record(goal)


def delete_goal(ctx, *, project_id: str, goal_id: str) -> None:
    ctx.db.delete(load_goal(ctx, project_id, goal_id))
    ctx.db.flush()
