"""Project members: list, add (with the `project_member_added` notification), remove."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import not_found
from chalicelib.core.locks import insert_ignore
from chalicelib.core.models import User
from chalicelib.core.notify import notify
from chalicelib.core.serialize import value_out

from .models import ProjectMember
from .service import LIST_LIMIT, ENTITY, require_users, visible_project


def member_records(db, *, project_id: str) -> list[dict]:
    """Members with their user's name, picture and job title, oldest first (one query)."""
    rows = db.execute(
        select(ProjectMember, User.name, User.picture, User.job_title)
        .join(User, User.id == ProjectMember.user_id)
        .where(ProjectMember.project_id == project_id)
        .order_by(ProjectMember.created_at, User.name, ProjectMember.id)
        .limit(LIST_LIMIT)
    ).all()
    return [
        {"id": member.id, "project_id": member.project_id, "user_id": member.user_id, "role": member.role,
         "created_at": value_out(member.created_at), "name": name, "picture": picture, "job_title": job_title}
        for member, name, picture, job_title in rows
    ]


def list_members(ctx, *, project_id: str) -> list[dict]:
    visible_project(ctx, project_id)
    return member_records(ctx.db, project_id=project_id)


def add_member(ctx, *, project_id: str, data) -> None:
    """Adds the user with the role (default `member`); an existing member is left as is."""
    project = visible_project(ctx, project_id)
    require_users(ctx.db, user_id=data.user_id)
    # insert ... on conflict do nothing: an existing member (or one a concurrent request adds) is no 409
    added = insert_ignore(ctx.db, ProjectMember, {"project_id": project.id, "user_id": data.user_id,
                                                  "role": data.role or "member"}, conflict=("project_id", "user_id"))
    if added and data.user_id != ctx.user_id:
        notify(ctx, user_id=data.user_id, type="project_member_added", title=f"You were added to {project.name}",
               body=f"{ctx.user.name} added you to the project {project.name}.", resource_type=ENTITY,
               resource_id=project.id, action_url=f"/projects/{project.id}", actor_id=ctx.user_id)


def remove_member(ctx, *, project_id: str, user_id: str) -> None:
    project = visible_project(ctx, project_id)
    member = ctx.db.scalar(select(ProjectMember).where(ProjectMember.project_id == project.id,
                                                       ProjectMember.user_id == user_id))
    if member is None:
        raise not_found("Project member")
    ctx.db.delete(member)
    ctx.db.flush()
