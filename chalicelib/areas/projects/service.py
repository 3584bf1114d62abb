"""Projects: scoping, list, detail, create, update, delete, history.

Sub-resources live beside this file: members and goals (`service_members.py`), decisions
(`service_decisions.py`), tasks, profitability, AI summary and deal link (`service_insights.py`).
Other areas are reached only through their `service` module, imported inside the function that
needs it (tasks: task counts; deals: company names).
"""
from __future__ import annotations

from functools import cache

from sqlalchemy import func, or_, select
from sqlalchemy.orm import aliased

from chalicelib.core import history, scoping
from chalicelib.core.errors import BadRequest, not_found
from chalicelib.core.locks import lock_row
from chalicelib.core.models import ConfigList, ConfigListItem, Squad, User
from chalicelib.core.notify import notify
from chalicelib.core.query import contains_text, in_scope, visible_row
from chalicelib.core.serialize import value_out

from .models import Project, ProjectMember

ENTITY = "project"
LIST_LIMIT = 500
PROJECT_FIELDS = ("id", "name", "description", "company_id", "type_id", "status", "owner_id", "delivery_manager_id",
                  "squad", "start_date", "end_date", "metadata", "sla_policy_id", "auto_ticket_from_email",
                  "created_by", "created_at", "updated_at")
WRITABLE = ("name", "description", "company_id", "type_id", "status", "owner_id", "delivery_manager_id", "squad",
            "start_date", "end_date", "metadata", "sla_policy_id", "auto_ticket_from_email")
ATTRIBUTE = {"metadata": "meta"}


def _get(project: Project, field: str):
    return getattr(project, ATTRIBUTE.get(field, field))


def _set(project: Project, field: str, value) -> None:
    setattr(project, ATTRIBUTE.get(field, field), value)


# ---------------------------------------------------------------- for other areas

BRIEF_FIELDS = ("id", "name", "status", "company_id", "type_id", "owner_id", "delivery_manager_id", "squad",
                "start_date", "end_date", "sla_policy_id")


def project_brief(db, project_id: str) -> dict | None:
    """What hook handlers and other areas need of a project (no scoping), with `type_value`; or None."""
    if not project_id:
        return None
    row = db.execute(select(Project, ConfigListItem.value).outerjoin(ConfigListItem, ConfigListItem.id == Project.type_id)
                     .where(Project.id == project_id)).first()
    if row is None:
        return None
    project, type_value = row
    return {**{field: value_out(_get(project, field)) for field in BRIEF_FIELDS}, "type_value": type_value}


def project_names(db, project_ids) -> dict[str, str]:
    """`{project_id: name}` for the ids that exist (one query; no scoping)."""
    ids = {pid for pid in project_ids or () if pid}
    if not ids:
        return {}
    return dict(db.execute(select(Project.id, Project.name).where(Project.id.in_(ids))).all())


def member_count(db, project_id: str) -> int:
    return db.scalar(select(func.count(ProjectMember.id)).where(ProjectMember.project_id == project_id)) or 0


def goal_briefs(db, goal_ids) -> dict[str, dict]:
    """`{goal_id: {title, project_id}}` for the goals that exist (one query; no scoping)."""
    from .models import ProjectGoal

    ids = {gid for gid in goal_ids or () if gid}
    if not ids:
        return {}
    rows = db.execute(select(ProjectGoal.id, ProjectGoal.title, ProjectGoal.project_id).where(ProjectGoal.id.in_(ids)))
    return {gid: {"title": title, "project_id": project_id} for gid, title, project_id in rows}


# ---------------------------------------------------------------- scoping

def visibility(principal):
    """The WHERE clause of the projects the principal may see (None: all of them).

    employee, lead: owner, delivery manager or member. manager: adds the projects whose owner,
    delivery manager or a member is one of their team (squad members, direct reports) and the
    projects of their squads (by name). head, executive: all.
    """
    if scoping.sees_all(principal):
        return None
    if scoping.is_manager(principal):
        team = scoping.team_user_ids(principal)
        return or_(
            Project.owner_id.in_(team),
            Project.delivery_manager_id.in_(team),
            Project.id.in_(select(ProjectMember.project_id).where(ProjectMember.user_id.in_(scoping.team_user_ids(principal)))),
            Project.squad.in_(scoping.squad_names(principal)),
        )
    me = principal.id
    return or_(
        Project.owner_id == me,
        Project.delivery_manager_id == me,
        Project.id.in_(select(ProjectMember.project_id).where(ProjectMember.user_id == me)),
    )


def visible_project_ids(principal):
    """A SELECT of the ids of the projects the principal may see, for other areas' scoping (None: all)."""
    clause = visibility(principal)
    return None if clause is None else select(Project.id).where(clause)


def visible_project(ctx, project_id: str) -> Project:
    """The project if it exists and is inside the caller's scope; 404 otherwise (one query)."""
    return visible_row(ctx.db, Project, project_id, visibility(ctx.principal), "Project")


# ---------------------------------------------------------------- reading

@cache
def _select_projects():
    """The base statement of every project read, built once per process (statements are immutable:
    `.where()` answers a copy), so that a request does not pay for building the joins again."""
    owner, manager, type_item = aliased(User), aliased(User), aliased(ConfigListItem)
    member_count = (
        select(func.count(ProjectMember.id)).where(ProjectMember.project_id == Project.id)
        .correlate(Project).scalar_subquery()
    )
    stmt = (
        select(Project, owner.name, owner.picture, manager.name, type_item.label, type_item.value,
               member_count.label("member_count"))
        .outerjoin(owner, owner.id == Project.owner_id)
        .outerjoin(manager, manager.id == Project.delivery_manager_id)
        .outerjoin(type_item, type_item.id == Project.type_id)
    )
    return stmt


def _records(db, rows, *, detail: bool = False) -> list[dict]:
    records = []
    for project, owner_name, owner_picture, manager_name, type_label, type_value, member_count in rows:
        record = {field: value_out(_get(project, field)) for field in PROJECT_FIELDS}
        record.update(owner_name=owner_name, delivery_manager_name=manager_name, type_label=type_label,
                      type_value=type_value, member_count=int(member_count or 0), company_name=None, task_count=0)
        if detail:
            record.update(owner_picture=owner_picture, sla_policy_name=None, sla_response_hours=None,
                          sla_resolution_hours=None)
        records.append(record)
    if not records:
        return records
    company_ids = sorted({r["company_id"] for r in records if r["company_id"]})
    if company_ids:
        from chalicelib.areas.deals import service as deals_service

        names = deals_service.company_names(db, company_ids)
        for record in records:
            record["company_name"] = names.get(record["company_id"]) if record["company_id"] else None
    from chalicelib.areas.tasks import service as tasks_service

    counts = tasks_service.task_counts_by_project(db, [r["id"] for r in records])
    for record in records:
        record["task_count"] = int(counts.get(record["id"], 0))
    return records


def _csv(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def list_projects(ctx, *, query) -> list[dict]:
    """Visible projects, filtered, newest first, at most 500; three queries whatever the count."""
    stmt = in_scope(_select_projects(), visibility(ctx.principal))
    if query.company_id:
        stmt = stmt.where(Project.company_id == query.company_id.strip())
    for field in ("status", "type_id", "owner_id", "squad"):
        values = _csv(getattr(query, field))
        if values:
            stmt = stmt.where(getattr(Project, field).in_(values))
    if query.search and query.search.strip():
        stmt = stmt.where(contains_text(query.search.strip(), Project.name, Project.description))
    stmt = stmt.order_by(Project.created_at.desc(), Project.id).limit(LIST_LIMIT)
    return _records(ctx.db, ctx.db.execute(stmt).all())


def project_record(ctx, project_id: str, *, scope=None) -> dict:
    """The detail shape of one project; with `scope` (a WHERE clause) a project outside it is 404.
    Callers that have checked the scope already pass none."""
    stmt = _select_projects().where(Project.id == project_id)
    if scope is not None:
        stmt = stmt.where(scope)
    rows = ctx.db.execute(stmt).all()
    if not rows:
        raise not_found("Project")
    return _records(ctx.db, rows, detail=True)[0]


def get_detail(ctx, *, project_id: str) -> dict:
    from . import service_goals, service_members

    return {
        "project": project_record(ctx, project_id, scope=visibility(ctx.principal)),
        "members": service_members.member_records(ctx.db, project_id=project_id),
        "goals": service_goals.goal_records(ctx.db, project_id=project_id),
    }


def project_history(ctx, *, project_id: str) -> list[dict]:
    visible_project(ctx, project_id)
    return history.entries(ctx.db, entity_type=ENTITY, entity_id=project_id)


# ---------------------------------------------------------------- validation

def existing_user_ids(db, ids) -> set[str]:
    ids = {i for i in ids if i}
    if not ids:
        return set()
    return set(db.scalars(select(User.id).where(User.id.in_(ids))))


def require_users(db, **fields) -> None:
    """400 when any given user id does not match a user (one query for all of them)."""
    wanted = {name: value for name, value in fields.items() if value}
    found = existing_user_ids(db, wanted.values())
    missing = [{"field": name, "message": "does not match a user"} for name, value in wanted.items()
               if value not in found]
    if missing:
        raise BadRequest("Unknown user: " + ", ".join(m["field"] for m in missing), details=missing)


def _validate_references(db, data: dict) -> None:
    if data.get("type_id"):
        is_type = db.scalar(
            select(ConfigListItem.id).join(ConfigList, ConfigList.id == ConfigListItem.list_id)
            .where(ConfigListItem.id == data["type_id"], ConfigList.key == "project_type")
        )
        if is_type is None:
            raise BadRequest("type_id must be a project type", details=[{"field": "type_id",
                                                                         "message": "not a project_type item"}])
    require_users(db, **{k: data.get(k) for k in ("owner_id", "delivery_manager_id") if data.get(k)})
    if data.get("squad"):
        if db.scalar(select(Squad.id).where(Squad.name == data["squad"]).limit(1)) is None:
            raise BadRequest("squad must be the name of a squad", details=[{"field": "squad",
                                                                            "message": "no squad has this name"}])
    if data.get("company_id"):
        from chalicelib.areas.deals import service as deals_service

        names = deals_service.company_names(db, [data["company_id"]])
        if data["company_id"] not in names:
            raise BadRequest("company_id does not match a company",
                             details=[{"field": "company_id", "message": "no company has this id"}])
    if data.get("start_date") and data.get("end_date") and data["end_date"] < data["start_date"]:
        raise BadRequest("end_date must not be before start_date",
                         details=[{"field": "end_date", "message": "before start_date"}])


def _clean(data: dict) -> dict:
    for field in ("squad", "auto_ticket_from_email"):
        if field in data and data[field] == "":
            data[field] = None
    return data


# ---------------------------------------------------------------- writing

def _snapshot(project: Project) -> dict:
    return {field: value_out(_get(project, field)) for field in WRITABLE}


def create(ctx, *, data) -> dict:
    values = _clean({k: v for k, v in data.changes().items() if k in WRITABLE})
    values["status"] = values.get("status") or "active"
    values["owner_id"] = values.get("owner_id") or ctx.user_id
    _validate_references(ctx.db, values)
    project = Project(created_by=ctx.user_id)
    for field, value in values.items():
        _set(project, field, value)
    ctx.db.add(project)
    ctx.db.flush()
    ctx.db.add(ProjectMember(project_id=project.id, user_id=ctx.user_id, role="owner"))
    history.record(ctx.db, entity_type=ENTITY, entity_id=project.id, action="created", actor_id=ctx.user_id,
                   changes={field: {"from": None, "to": value} for field, value in _snapshot(project).items()
                            if value is not None})
    ctx.db.flush()
    return project_record(ctx, project.id)


def update(ctx, *, project_id: str, data) -> dict:
    project = visible_project(ctx, project_id)
    lock_row(ctx.db, Project, project.id)  # a status transition (completed: hooks, notification) happens once
    values = _clean({k: v for k, v in data.changes().items() if k in WRITABLE})
    before = _snapshot(project)
    merged = {**{k: _get(project, k) for k in ("start_date", "end_date")}, **values}
    _validate_references(ctx.db, {**values, "start_date": merged["start_date"], "end_date": merged["end_date"]})
    for field, value in values.items():
        _set(project, field, value)
    changes = history.diff(before, _snapshot(project))
    if changes:
        ctx.db.flush()
        history.record(ctx.db, entity_type=ENTITY, entity_id=project.id, action="updated", actor_id=ctx.user_id,
                       changes=changes)
        ctx.db.flush()
        if "status" in changes and project.status == "completed" and project.company_id:
            if project.delivery_manager_id:
                notify(ctx, user_id=project.delivery_manager_id, type="project_completed",
                       title=f"Project completed: {project.name}",
                       body=f"{project.name} has been marked completed.", resource_type=ENTITY,
                       resource_id=project.id, action_url=f"/projects/{project.id}", actor_id=ctx.user_id)
    return project_record(ctx, project.id)


def delete(ctx, *, project_id: str) -> None:
    project = visible_project(ctx, project_id)
    history.record(ctx.db, entity_type=ENTITY, entity_id=project.id, action="deleted", actor_id=ctx.user_id,
                   changes={"name": {"from": project.name, "to": None}})
    ctx.db.delete(project)
    ctx.db.flush()


__all__ = ["list_projects", "get_detail", "create", "update", "delete", "visible_project", "visibility",
           "project_history", "project_record", "require_users", "project_brief", "project_names"]
