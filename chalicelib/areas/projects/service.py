"""Projects: list, detail, create, update, delete, history (scope and reads: queries.py).

Sub-resources live beside this file: members and goals (`service_members.py`), decisions
(`service_decisions.py`), tasks, profitability, AI summary and deal link (`service_insights.py`).
Other areas are reached only through their `service` module, imported inside the function that
needs it (tasks: task counts; deals: company names).
"""
from __future__ import annotations

from dataclasses import replace
from functools import cache

from sqlalchemy import func, select

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict
from chalicelib.core.locks import lock_row
from chalicelib.core.lookup import ids_read, list_items_among
from chalicelib.core.models import ConfigListItem, Squad
from chalicelib.core.query import Page, contains_text, in_scope, record_page, record_rows, record_sets
from chalicelib.core.schemas import comma_values
from chalicelib.core.serialize import value_out

from .models import Project, ProjectMember
from .queries import (ATTRIBUTE, ENTITY, decision_select, get_field, goal_select, link_project,  # noqa: F401
                      load_project, member_select,
                      project_lookups, project_record, project_select, require_users, visible, with_project_lookups)
from .queries import project_seen_by  # noqa: F401 - the notes area asks who of a note's mentioned users see the record

WRITABLE = ("name", "description", "company_id", "type_id", "status", "owner_id", "delivery_manager_id", "squad",
            "start_date", "end_date", "metadata", "sla_policy_id", "auto_ticket_from_email")


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
    return {**{field: value_out(get_field(project, field)) for field in BRIEF_FIELDS}, "type_value": type_value}


def project_names(db, project_ids) -> dict[str, str]:
    """`{project_id: name}` for the ids that exist (one query; no scoping)."""
    read = project_names_select(db, project_ids)
    return {} if read is None else dict(db.execute(read.stmt, read.params).all())


def _project_names_statement(project_in):
    return select(Project.id, Project.name).where(project_in(Project.id))


def project_names_select(db, project_ids):
    """The read of `project_names` (rows id, name; built once per process), None without ids: for a read that
    sends it with others in one round trip (core.query.record_sets, record_page's lookups)."""
    return ids_read(db, _project_names_statement, "project_name_ids", project_ids or ())


def own_project_ids(user_id: str):
    """A subquery of the ids of the projects the user owns or belongs to (the action centre's sprints)."""
    members = select(ProjectMember.project_id).where(ProjectMember.user_id == user_id)
    return select(Project.id).where((Project.owner_id == user_id) | Project.id.in_(members))


def project_companies(db, project_ids) -> dict[str, tuple[str, str | None]]:
    """`{project_id: (name, company_id)}` for the ids that exist (one query; no scoping)."""
    ids = {pid for pid in project_ids or () if pid}
    if not ids:
        return {}
    rows = db.execute(select(Project.id, Project.name, Project.company_id).where(Project.id.in_(ids))).all()
    return {row.id: (row.name, row.company_id) for row in rows}


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


# ---------------------------------------------------------------- scope, for other areas

def visible_project_ids(principal):
    """A SELECT of the ids of the projects the principal may see, for other areas' scoping (None: all)."""
    clause = visible(principal)
    return None if clause is None else select(Project.id).where(clause)


# ---------------------------------------------------------------- reading

def list_projects(ctx, *, query) -> Page:
    """One page of the visible projects, filtered, newest first, with the total; a fixed number of statements
    whatever the count (the page, its total when cut, and project_records' lookups)."""
    stmt = in_scope(project_select(), visible(ctx.principal))
    if query.company_id:
        stmt = stmt.where(Project.company_id == query.company_id.strip())
    for field in ("status", "type_id", "owner_id", "squad"):
        values = comma_values(getattr(query, field))
        if values:
            stmt = stmt.where(getattr(Project, field).in_(values))
    if query.search and query.search.strip():
        stmt = stmt.where(contains_text(query.search.strip(), Project.name, Project.description))
    page, sets = record_page(ctx.db, stmt.order_by(Project.created_at.desc(), Project.id), query,
                             lookups=lambda rows: project_lookups(ctx.db, rows))
    return replace(page, items=with_project_lookups(ctx.db, page.items, sets))


def get_detail(ctx, *, project_id: str) -> tuple[dict, list[dict], list[dict]]:
    """(the project, its members, its goals)."""
    record, sets = project_record(ctx, project_id, scope=visible(ctx.principal),
                                  also={"members": member_select(project_id), "goals": goal_select(project_id)})
    return record, sets["members"], sets["goals"]


def project_history(ctx, *, project_id: str, query):
    load_project(ctx, project_id)
    return history.entries(ctx.db, entity_type=ENTITY, entity_id=project_id, query=query)


# ---------------------------------------------------------------- validation

def _validate_references(db, data: dict) -> None:
    if data.get("type_id"):
        if not list_items_among(db, "project_type", [data["type_id"]]):
            raise BadRequest("type_id must be a project type", details=[{"field": "type_id",
                                                                         "message": "not a project_type item"}])
    require_users(db, active=True, **{k: data.get(k) for k in ("owner_id", "delivery_manager_id") if data.get(k)})
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
    if data.get("sla_policy_id"):
        from chalicelib.areas.sla import service as sla_service  # another area: imported lazily

        if not sla_service.policy_exists(db, data["sla_policy_id"]):
            raise BadRequest("sla_policy_id does not match an SLA policy",
                             details=[{"field": "sla_policy_id", "message": "no SLA policy has this id"}])
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
    return {field: value_out(get_field(project, field)) for field in WRITABLE}


def _onboarding_hook(ctx, project: Project) -> None:
    """A client company's onboarding milestones with auto_source `project_created` are completed."""
    if project.company_id:
        from chalicelib.areas.onboarding import service as onboarding_service

        onboarding_service.auto_complete(ctx, company_id=project.company_id, source="project_created")


def create_project(ctx, *, data) -> dict:
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
    if project.company_id and project.type_id:
        _capacity_changed(ctx, project)
    _onboarding_hook(ctx, project)
    return project_record(ctx, project.id)


def _capacity_changed(ctx, project: Project) -> None:
    """The capacity heatmap cell of the project's company and type (document 1: filled on create when both
    are set, refreshed when status or company changes)."""
    from chalicelib.areas.insights import service as insights_service

    insights_service.project_changed(ctx, project_id=project.id, company_id=project.company_id,
                                     type_id=project.type_id, status=project.status)


def create_project_for(ctx, *, name: str, company_id: str | None, owner_id: str | None,
                       description: str | None = None) -> str:
    """A project made by another area's automation (proposals' onboarding on accept): active, owned and
    joined (role owner) by `owner_id`, history written with no actor. Answers its id."""
    project = Project(name=name[:300], description=description, company_id=company_id, status="active",
                      owner_id=owner_id, created_by=owner_id)
    ctx.db.add(project)
    ctx.db.flush()
    if owner_id:
        ctx.db.add(ProjectMember(project_id=project.id, user_id=owner_id, role="owner"))
    history.record(ctx.db, entity_type=ENTITY, entity_id=project.id, action="created", actor_id=None,
                   changes={field: {"from": None, "to": value} for field, value in _snapshot(project).items()
                            if value is not None})
    ctx.db.flush()
    _onboarding_hook(ctx, project)
    return project.id


def update_project(ctx, *, project_id: str, data) -> dict:
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    project = load_project(ctx, project_id)
    lock_row(ctx.db, Project, project.id)  # a status transition (completed: hooks, notification) happens once
    values = _clean({k: v for k, v in data.changes().items() if k in WRITABLE})
    before = _snapshot(project)
    merged = {**{k: get_field(project, k) for k in ("start_date", "end_date")}, **values}
    # a reference sent back as it is stored is not checked again, as tasks do: a client may PUT the record it
    # read, whose company may since have been deleted or whose owner deactivated (a 400 on a field it left alone)
    changed = {k: v for k, v in values.items() if value_out(v) != before.get(k)}
    _validate_references(ctx.db, {**changed, "start_date": merged["start_date"], "end_date": merged["end_date"]})
    for field, value in values.items():
        _set(project, field, value)
    changes = history.diff(before, _snapshot(project))
    if changes:
        ctx.db.flush()
        history.record(ctx.db, entity_type=ENTITY, entity_id=project.id, action="updated", actor_id=ctx.user_id,
                       changes=changes)
        ctx.db.flush()
        if {"status", "company_id", "type_id"} & changes.keys():
            _capacity_changed(ctx, project)
        if "status" in changes and project.status == "completed" and project.company_id:
            from chalicelib.areas.relationships import service as relationships_service

            relationships_service.project_completed(ctx, project_id=project.id, company_id=project.company_id,
                                                    project_name=project.name)
            if project.delivery_manager_id:
                notify(ctx, user_id=project.delivery_manager_id, type="project_completed",
                       title=f"Project completed: {project.name}",
                       body=f"{project.name} has been marked completed.", resource_type=ENTITY,
                       resource_id=project.id, action_url=f"/projects/{project.id}", actor_id=ctx.user_id)
    return project_record(ctx, project.id)


def _holds_message(holds: dict[str, int]) -> str:
    """"The project has 12 time entries and 1 budget: ..." for the records that hold a project."""
    names = {"time_entries": ("time entry", "time entries"), "budgets": ("budget", "budgets")}
    parts = [f"{count} {names[kind][count != 1]}" for kind, count in holds.items() if count]
    return f"The project has {' and '.join(parts)}: remove or move them first, or set its status instead"


def delete_project(ctx, *, project_id: str) -> None:
    """Deletes the project with its members, goals, decisions, AI summary and deal link (database cascades), its
    sprints and its roadmaps with their items (planning that means nothing without it); its tasks are kept, standalone,
    without those sprints and roadmap items. A project that work or money was recorded against (time entries,
    budgets, and through them invoices) is not deleted: 409 naming what holds it, nothing changed. The project's row
    is locked first, so a delete waits for a request changing it and a second delete at once answers 404."""
    from chalicelib.areas.budgets import service as budgets_service  # other areas: imported lazily
    from chalicelib.areas.roadmaps import service as roadmaps_service
    from chalicelib.areas.sprints import service as sprints_service
    from chalicelib.areas.tasks import service as tasks_service

    project = lock_row(ctx.db, Project, project_id, where=visible(ctx.principal), missing="Project")
    holds = budgets_service.project_holds(ctx.db, project.id)
    if any(holds.values()):
        raise Conflict(_holds_message(holds))
    history.record(ctx.db, entity_type=ENTITY, entity_id=project.id, action="deleted", actor_id=ctx.user_id,
                   changes={"name": {"from": project.name, "to": None}})
    tasks_service.project_deleted(ctx.db, project.id)  # its tasks are kept, no longer linked to it
    sprints_service.project_deleted(ctx.db, project.id)  # the database clears its sprints from their tasks
    roadmaps_service.project_deleted(ctx.db, project.id)  # with their items, cleared from their tasks
    ctx.db.delete(project)
    ctx.db.flush()


__all__ = ["list_projects", "get_detail", "create_project", "create_project_for", "update_project", "delete_project", "load_project",
           "visible", "visible_project_ids", "project_history", "project_record", "require_users", "project_brief",
           "project_names", "goal_briefs", "member_count"]


# ---------------------------------------------------------------- the client portal (company-scoped, no principal)

PORTAL_PROJECT_FIELDS = ("id", "name", "description", "company_id", "status", "start_date", "end_date", "created_at",
                         "updated_at")


def company_project_ids(company_ids):
    """A SELECT of the ids of the projects of these companies (the portal's scope)."""
    return select(Project.id).where(Project.company_id.in_(list(company_ids)))


@cache
def _portal_select():
    """The portal's project record: client-safe fields, the type's label, the owner's and delivery manager's
    names and ids, the SLA policy (joins; records through core.query.record_rows). Built once per process, on
    the portal's first call (an alias proxies its table's columns on first use)."""
    from sqlalchemy.orm import aliased

    from chalicelib.core.models import User

    owner, manager = aliased(User, name="portal_owner"), aliased(User, name="portal_manager")
    return (select(*(getattr(Project, field) for field in PORTAL_PROJECT_FIELDS),
                   ConfigListItem.label.label("type_label"), owner.name.label("owner_name"),
                   manager.name.label("delivery_manager_name"), Project.delivery_manager_id, Project.owner_id,
                   Project.sla_policy_id)
            .outerjoin(owner, owner.id == Project.owner_id).outerjoin(manager, manager.id == Project.delivery_manager_id)
            .outerjoin(ConfigListItem, ConfigListItem.id == Project.type_id))


def _of_companies(stmt, company_in, status):
    """`stmt` kept to the projects whose company `company_in(Project.company_id)` admits, of `status` when it
    is given (a value or a bind parameter)."""
    stmt = stmt.where(company_in(Project.company_id))
    return stmt if status is None else stmt.where(Project.status == status)


def portal_project_ids(company_in, status=None):
    """SELECT of the ids of the portal's projects (`company_in(column)`: the clause of its companies; `status`:
    a value, a bind parameter or None), for a read another area sends in the same statement (task counts)."""
    return _of_companies(select(Project.id), company_in, status)


def portal_projects_select(company_in, status=None):
    """The read of the portal's projects (portal records; arguments as portal_project_ids), newest first, at
    most LIST_LIMIT: for core.query.record_rows, or record_sets with other reads (a template when its
    arguments are bind parameters)."""
    from chalicelib.core.query import LIST_LIMIT

    return (_of_companies(_portal_select(), company_in, status)
            .order_by(Project.created_at.desc(), Project.id).limit(LIST_LIMIT))


def portal_project_detail(db, company_ids, project_id: str, *, brief: bool = False):
    """(project, goals, members, AI summary, decisions) of a project of these companies, or None (a project of
    another company looks missing). Two statements: the project, then its goals, members, summary and decisions
    together (core.query.record_sets); `brief`: the project record alone (one)."""
    from .models import ProjectAISummary, ProjectDecision

    found = _portal_project(db, company_ids, project_id) if project_id and len(project_id) <= 36 else []
    if not found:
        return None
    if brief:
        return found[0]
    sets = record_sets(db, goals=goal_select(project_id), members=member_select(project_id),
                       summary=select(ProjectAISummary.summary_text, ProjectAISummary.recommendations,
                                      ProjectAISummary.generated_at).where(ProjectAISummary.project_id == project_id),
                       decisions=decision_select(ProjectDecision.project_id == project_id))
    summary = sets["summary"][0] if sets["summary"] else None
    ai = None if summary is None else {"summary_text": summary["summary_text"],
                                       "recommendations": list(summary["recommendations"] or []),
                                       "generated_at": summary["generated_at"]}
    members = [{"user_id": m["user_id"], "name": m["name"], "picture": m["picture"], "job_title": m["job_title"],
                "role": m["role"]} for m in sets["members"]]
    return found[0], sets["goals"], members, ai, sets["decisions"]


def _portal_project(db, company_ids, project_id: str) -> list[dict]:
    from chalicelib.core.query import record_rows

    return record_rows(db, _of_companies(_portal_select(), lambda column: column.in_(list(company_ids)), None)
                       .where(Project.id == project_id))


def portal_decisions(db, project_id: str) -> list[dict]:
    """A project's decisions with decided_by_name (the portal checked the project's company; one query)."""
    from .models import ProjectDecision
    from .queries import decision_records

    return decision_records(db, ProjectDecision.project_id == project_id)


def portal_milestones(db, company_ids, limit: int = 10) -> list[dict]:
    """The open goals with a due date of these companies' active projects, soonest first (one query)."""
    return record_rows(db, portal_milestones_select(company_ids, limit))


def portal_milestones_select(company_ids, limit: int = 10):
    """The read of `portal_milestones` (records id, project_id, project_name, title, status, due_date)."""
    from .models import ProjectGoal

    return (select(ProjectGoal.id, ProjectGoal.project_id, Project.name.label("project_name"), ProjectGoal.title,
                   ProjectGoal.status, ProjectGoal.due_date).join(Project, Project.id == ProjectGoal.project_id)
            .where(Project.company_id.in_(list(company_ids)), Project.status == "active",
                   ProjectGoal.due_date.is_not(None))
            .order_by(ProjectGoal.due_date, ProjectGoal.id).limit(limit))


def portal_team(db, company_ids) -> tuple[list[dict], list[dict]]:
    """(team, leads) across these companies' active projects: members by name, each once with their projects;
    leads are the projects' owners and delivery managers. Three queries."""
    from chalicelib.core.models import User
    from chalicelib.core.query import LIST_LIMIT

    active = select(Project.id).where(Project.company_id.in_(list(company_ids)), Project.status == "active")
    team: dict[str, dict] = {}
    for member, name, picture, title in db.execute(
            select(ProjectMember, User.name, User.picture, User.job_title).join(User, User.id == ProjectMember.user_id)
            .where(ProjectMember.project_id.in_(active), User.is_active.is_(True))
            .order_by(User.name, ProjectMember.id).limit(LIST_LIMIT)):
        entry = team.setdefault(member.user_id, {"user_id": member.user_id, "name": name, "picture": picture,
                                                 "job_title": title, "roles": [], "project_ids": []})
        entry["project_ids"].append(member.project_id)
        if member.role not in entry["roles"]:
            entry["roles"].append(member.role)
    leads: dict[str, dict] = {}
    rows = db.execute(select(Project.id, Project.owner_id, Project.delivery_manager_id)
                      .where(Project.id.in_(active)).limit(LIST_LIMIT)).all()
    lead_ids = {uid for row in rows for uid in (row.owner_id, row.delivery_manager_id) if uid}
    people = {u.id: u for u in db.scalars(select(User).where(User.id.in_(lead_ids)))} if lead_ids else {}
    for row in rows:
        for uid, role in ((row.delivery_manager_id, "delivery_manager"), (row.owner_id, "owner")):
            if uid and uid in people:
                user = people[uid]
                entry = leads.setdefault(uid, {"user_id": uid, "name": user.name, "picture": user.picture,
                                               "job_title": user.job_title, "email": user.email, "roles": [],
                                               "project_ids": []})
                if role not in entry["roles"]:
                    entry["roles"].append(role)
                if row.id not in entry["project_ids"]:
                    entry["project_ids"].append(row.id)
    # an owner and a delivery manager a project: up to twice LIST_LIMIT people, the first LIST_LIMIT by name
    return list(team.values()), sorted(leads.values(), key=lambda lead: (lead["name"], lead["user_id"]))[:LIST_LIMIT]
