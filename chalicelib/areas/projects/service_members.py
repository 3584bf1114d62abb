"""Project members: list, add (with the `project_member_added` notification), delete."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import Conflict, not_found
from chalicelib.core.locks import insert_ignore, lock_row
from chalicelib.core.models import User

from .models import Project, ProjectMember
from .queries import ENTITY, SUB_LIST_LIMIT, count_of, load_project, member_records, project_readers, require_users


def list_members(ctx, *, project_id: str) -> list[dict]:
    load_project(ctx, project_id)
    return member_records(ctx.db, project_id=project_id)


def add_member(ctx, *, project_id: str, data) -> None:
    """Adds the user with the role (default `member`); an existing member is left as is (also one deactivated
    since: only a user becoming a member must be active). A project holds
    at most SUB_LIST_LIMIT (500) members (409 beyond; the project row is locked so that concurrent adds
    cannot pass the cap together)."""
    project = load_project(ctx, project_id)
    lock_row(ctx.db, Project, project.id, missing="Project")
    # the user's active flag and whether they are a member already, in one statement: a user becoming a member must
    # be active, while adding an existing member has no effect (document 1), a deactivated one too
    found = ctx.db.execute(
        select(User.is_active, ProjectMember.id)
        .outerjoin(ProjectMember, (ProjectMember.user_id == User.id) & (ProjectMember.project_id == project.id))
        .where(User.id == data.user_id)).first()
    if found is None:
        require_users(ctx.db, user_id=data.user_id)  # the 400 naming user_id ("does not match a user")
    already = found.id is not None
    if not already and not found.is_active:
        require_users(ctx.db, active=True, user_id=data.user_id)  # the 400 naming user_id ("must be an active user")
    if not already and count_of(ctx.db, ProjectMember, project.id) >= SUB_LIST_LIMIT:
        raise Conflict(f"A project holds at most {SUB_LIST_LIMIT} members")
    # insert ... on conflict do nothing: an existing member (or one a concurrent request adds) is no 409
    added = insert_ignore(ctx.db, ProjectMember, {"project_id": project.id, "user_id": data.user_id,
                                                  "role": data.role or "member"}, conflict=("project_id", "user_id"))
    if added and data.user_id != ctx.user_id:
        _notify_added(ctx, project, data.user_id)


def _notify_added(ctx, project: Project, user_id: str) -> None:
    """`project_member_added` to the new member (never the caller). The project's name and link only to a member who
    may read the project (queries.project_readers: active, `projects:view`, the project in their scope; asked after
    the membership is written, which puts it in their scope); another, whose `projects` permission is none, learns
    that they were added to a project, and by whom (`actor_id`), as deals' `deal_assigned` and tasks' `todo_assigned`
    tell an assignee who may not read the record."""
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    told = {"title": "You were added to a project"}
    if project_readers(ctx.db, project.id, [user_id]):
        told = {"title": f"You were added to {project.name}",
                "body": f"{ctx.user.name} added you to the project {project.name}.",
                "action_url": f"/projects/{project.id}"}
    notify(ctx, user_id=user_id, type="project_member_added", resource_type=ENTITY, resource_id=project.id,
           actor_id=ctx.user_id, **told)


def delete_member(ctx, *, project_id: str, user_id: str) -> None:
    project = load_project(ctx, project_id)
    member = ctx.db.scalar(select(ProjectMember).where(ProjectMember.project_id == project.id,
                                                       ProjectMember.user_id == user_id))
    if member is None:
        raise not_found("Project member")
    ctx.db.delete(member)
    ctx.db.flush()
