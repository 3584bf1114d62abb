"""Projects: list, detail, create, update, delete, history (scope and reads: queries.py).

Sub-resources live beside this file: members and goals (`service_members.py`), decisions
(`service_decisions.py`), tasks, profitability, AI summary and deal link (`service_insights.py`), and the client
portal's company-scoped reads (`company_project_ids`, `portal_project_ids`, `portal_projects_select`,
`portal_project_detail`, `portal_project_to_name`, `portal_decisions`, `portal_milestones_select`,
`portal_team`: `service_portal.py`), which other areas reach through this module,
which imports them.
Other areas are reached only through their `service` module, imported inside the function that
needs it (tasks: task counts; deals: company names).
"""
from __future__ import annotations

from dataclasses import replace

from sqlalchemy import func, or_, select, update

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict
from chalicelib.core.locks import lock_row
from chalicelib.core.lookup import ids_read, list_items_among
from chalicelib.core.models import ConfigListItem, Squad
from chalicelib.core.query import Page, contains_text, in_scope, record_page
from chalicelib.core.schemas import comma_values
from chalicelib.core.serialize import value_out
from chalicelib.core.spelling import composed

from .models import Project, ProjectDealLink, ProjectMember
from .queries import seen_project  # noqa: F401 - other areas ask it of a project they name or read
from .queries import (ATTRIBUTE, ENTITY, get_field, goal_select, link_project,  # noqa: F401
                      load_project, member_ids, member_select, project_lookups, project_readers, project_record,
                      project_select, require_users, visible, with_project_lookups)
from .queries import project_status_items
from .queries import project_seen_by  # noqa: F401 - the notes area asks who of a note's mentioned users see the record
from .service_portal import (company_project_ids, portal_decisions,  # noqa: F401 - other areas call it through the service
                             portal_milestones_select, portal_project_detail, portal_project_ids, portal_projects_select,
                             portal_project_to_name, portal_team)

WRITABLE = ("name", "description", "company_id", "type_id", "status", "owner_id", "delivery_manager_id", "squad",
            "start_date", "end_date", "metadata", "sla_policy_id", "auto_ticket_from_email")


def _set(project: Project, field: str, value) -> None:
    setattr(project, ATTRIBUTE.get(field, field), value)


# ---------------------------------------------------------------- for other areas

BRIEF_FIELDS = ("id", "name", "status", "company_id", "type_id", "owner_id", "delivery_manager_id", "squad",
                "start_date", "end_date", "sla_policy_id")


def project_brief(db, project_id: str) -> dict | None:
    """What hook handlers and other areas need of a project (no scoping), with `type_value`; or None."""
    row = db.execute(select(Project, ConfigListItem.value).outerjoin(ConfigListItem, ConfigListItem.id == Project.type_id)
                     .where(Project.id == project_id)).first()
    if row is None:
        return None
    project, type_value = row
    return {**{field: value_out(get_field(project, field)) for field in BRIEF_FIELDS}, "type_value": type_value}


def request_manager(db, project_id: str, *, project: Project | None = None) -> str | None:
    """The user a client's request in the project derives (who watches it and hears of it; the portal's request in a
    project asks it too): the first active of the project's delivery manager, its company's client profile's, the
    project's owner and the company's owner who may read tasks, else None (session 25: a deactivated manager is
    passed over, and a project with no active manager goes to its owner, then its company's; session 26: so is one
    who may not read tasks). One statement
    (`request_manager_of`); `project`, when given, is flushed first (the session autoflushes). The tasks area asks it
    of a request moved into the project."""
    return db.scalar(select(request_manager_of(project.id if project is not None else project_id)))


def _reader_of_tasks():
    """`active(user_id)`: a correlated scalar, the user when active and a reader of tasks (tasks:view; session 26:
    a manager with tasks at none was picked, watched the request they could not open, and the next in the chain,
    who could, was never told), else null; the readers are one uncorrelated subquery."""
    from chalicelib.core.models import User
    from chalicelib.core.permissions import holders_select

    readers = holders_select("tasks", "view").correlate(None)

    def active(user_id):
        return select(User.id).where(User.id == user_id, User.is_active.is_(True),
                                     User.id.in_(readers)).scalar_subquery()

    return active


def request_manager_of(project_id_column):
    """A correlated scalar for another area's statement: `request_manager` as SQL for project `project_id_column` (a
    column or a value). The tasks area reads it for the SLA breach and due-soon notices of a task nobody active is
    assigned (session 25)."""
    active = _reader_of_tasks()
    return (select(func.coalesce(*(active(person) for person in _manager_chain())))
            .where(Project.id == project_id_column).scalar_subquery())


def company_request_manager_of(company_id_column):
    """As `request_manager_of`, for a client's request in no project of company `company_id_column`: the first
    active reader of tasks among the company's client profile's delivery manager and its owner (the company's half
    of `_manager_chain`), else null (session 26: the portal's request, the watch re-derived on a user's change and
    the SLA and due-soon fallbacks read this one chain)."""
    active = _reader_of_tasks()
    chain = _company_chain(company_id_column)
    return select(func.coalesce(*(active(person) for person in chain))).scalar_subquery()


def company_request_manager(db, company_id: str) -> str | None:
    """`company_request_manager_of` for one company (one statement): who watches a client's request in no project."""
    return db.scalar(select(company_request_manager_of(company_id)))


def user_activity_changed(ctx, user_id: str) -> None:
    """After an admin write that deactivated or reactivated `user_id` (admin.update_user calls it): the client
    requests of every project whose manager chain (`_manager_chain`) names them watch the manager the project now
    derives (tasks' `rederive_request_watches`): one read of those projects' ids inside the tasks area's two
    statements (review of session 25: the SLA breach and due-soon notices follow the derived manager, who could
    not read a request whose watch stayed with the one before)."""
    users_changed(ctx, [user_id])


def users_changed(ctx, user_ids) -> None:
    """As `user_activity_changed`, for these users (`user_ids`: a list or a SELECT of ids) after an admin write that
    changed what they may read: their access level, their tasks override, or their level's tasks cell (session 26:
    the chain passes over one who may not read tasks, so such a change moves the watch too). The requests in no
    project follow their company's half of the chain (`company_request_manager_of`) likewise."""
    from chalicelib.areas.tasks import service as tasks_service  # another area: imported lazily

    named = select(Project.id).where(or_(*(person.in_(user_ids) for person in _manager_chain())))
    from chalicelib.areas.clients import service as clients_service  # another area: imported lazily

    company = _company_table()
    companies = select(company.c.id).where(or_(clients_service.profile_manager_of(company.c.id).in_(user_ids),
                                               company.c.owner_id.in_(user_ids)))
    tasks_service.rederive_request_watches(ctx.db, named, companies)


def _company_table():
    from chalicelib.areas.deals import service as deals_service  # another area: imported lazily

    return deals_service.company_table()


def _company_chain(company_id_column) -> tuple:
    """The company's half of the chain, as columns for a statement naming the company (`company_id_column`): its
    client profile's delivery manager, its owner."""
    from chalicelib.areas.clients import service as clients_service  # another area: imported lazily

    company = _company_table()
    owner = (select(company.c.owner_id).where(company.c.id == company_id_column)
             .correlate_except(company).scalar_subquery())
    return clients_service.profile_manager_of(company_id_column), owner


def _manager_chain() -> tuple:
    """The chain a project's client-facing manager is picked from, in order, as columns of a statement on the
    projects row: its delivery manager, its company's client profile's, its owner, its company's owner."""
    profile_manager, company_owner = _company_chain(Project.company_id)  # correlated to the projects row
    return (Project.delivery_manager_id, profile_manager, Project.owner_id, company_owner)


def _completion_chain(db, project_id: str) -> list[str]:
    """The ids of the project's `_manager_chain`, in order, none missing, each once (one statement): who is told
    `project_completed` is the first of them who may read the project (session 25)."""
    row = db.execute(select(*_manager_chain()).where(Project.id == project_id)).first()
    return list(dict.fromkeys(person for person in row or () if person))


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


def project_companies(db, project_ids, *, principal=None) -> dict[str, tuple[str, str | None]]:
    """`{project_id: (name, company_id)}` for the ids that exist (one query): with `principal`, only the projects
    in that principal's scope (`visible`; another is left out like a missing one), without it no scoping."""
    ids = {pid for pid in project_ids or () if pid}
    if not ids:
        return {}
    stmt = select(Project.id, Project.name, Project.company_id).where(Project.id.in_(ids))
    rows = db.execute(stmt if principal is None else in_scope(stmt, visible(principal))).all()
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

def squad_renamed(db, old: str, new: str) -> None:
    """A squad is renamed (admin area, under the squad's row lock): its projects, which name it by `squad`, take
    the new name (one UPDATE), so that they stay in its manager's scope and a squad later given the old name gets
    none of them. Matched exactly, as the scope (`visible`, `scoping.squad_names`) matches: a project keeps its
    squad's own spelling (`_squad_name`).
    No project history entry (the squad's own `updated` entry holds the rename); `updated_at` is refreshed."""
    if old and new and old != new:
        db.execute(update(Project).where(Project.squad == old).values(squad=new)
                   .execution_options(synchronize_session=False))


def squad_deleted(db, name: str) -> None:
    """A squad is being deleted (admin area, under the squad's row lock): its projects keep no squad (`squad`
    cleared, one UPDATE), so a squad created later under the same name does not inherit them."""
    if name:
        db.execute(update(Project).where(Project.squad == name).values(squad=None)
                   .execution_options(synchronize_session=False))


def visible_project_ids(principal):
    """A SELECT of the ids of the projects the principal may see, for other areas' scoping (None: all)."""
    clause = visible(principal)
    return None if clause is None else select(Project.id).where(clause)


# ---------------------------------------------------------------- reading

def list_projects(ctx, *, query) -> Page:
    """One page of the visible projects, filtered, newest first, with the total; a fixed number of statements
    whatever the count (the page, its total when cut, and project_records' lookups)."""
    stmt = in_scope(project_select(), visible(ctx.principal))
    if query.company_id and query.company_id.strip():  # blank, as empty: no filter (it matched nothing)
        stmt = stmt.where(Project.company_id == query.company_id.strip())
    for field in ("type_id", "owner_id"):
        values = comma_values(getattr(query, field))
        if values:
            stmt = stmt.where(getattr(Project, field).in_(values))
    statuses = comma_values(query.status)
    if statuses:  # as typed, or the value of the `project_status` item each names (_status_value; session 32)
        stmt = stmt.where(or_(Project.status.in_(statuses), Project.status.in_(_status_values_named(statuses))))
    squads = comma_values(query.squad)
    if squads:  # ignoring case, as squad names are unique (a project keeps its squad's spelling: _squad_name), and
        # composed, as admin stores them (the second review of session 32)
        stmt = stmt.where(func.lower(Project.squad).in_([func.lower(composed(name)) for name in squads]))
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

def _validate_references(db, data: dict, sent=None) -> None:
    """400 naming the field of a reference that matches nothing, or of dates that end before they start: the date
    the request sent (`sent`, its keys; all of `data` on create), `end_date` when it gives one, else `start_date`,
    moved past the stored end (session 32: that named `end_date`, a field the request did not send)."""
    if data.get("type_id"):
        if not list_items_among(db, "project_type", [data["type_id"]]):
            raise BadRequest("type_id must be a project type", details=[{"field": "type_id",
                                                                         "message": "not a project_type item"}])
    require_users(db, active=True, **{k: data.get(k) for k in ("owner_id", "delivery_manager_id") if data.get(k)})
    if data.get("squad"):
        data["squad"] = _squad_name(db, data["squad"])
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
        sent = data if sent is None else sent
        if "end_date" in sent or "start_date" not in sent:
            raise BadRequest("end_date must not be before start_date",
                             details=[{"field": "end_date", "message": "before start_date"}])
        raise BadRequest("start_date must not be after end_date",
                         details=[{"field": "start_date", "message": "after end_date"}])


def _squad_name(db, name: str) -> str:
    """The squad's own name for `name` given in any letter case (squad names are unique case-insensitively: the
    index `uq_squads_name_lower`), which the project keeps: its manager's scope, a rename and a delete match the
    stored name exactly (session 32: "rockets" was a 400 for the squad "Rockets"). 400 when no squad has it.
    FOR SHARE: a rename or delete of the squad in progress is waited for (then the name no longer matches: 400),
    and one starting after waits for this write, whose project it then carries or clears."""
    name = composed(name)  # as squad names are stored (admin, session 32)
    found = db.scalar(select(Squad.name).where(func.lower(Squad.name) == func.lower(name)).limit(1)
                      .with_for_update(read=True))
    if found is None:
        raise BadRequest("squad must be the name of a squad", details=[{"field": "squad",
                                                                        "message": "no squad has this name"}])
    return found


def _clean(data: dict) -> dict:
    for field in ("squad", "auto_ticket_from_email"):
        if field in data and data[field] == "":
            data[field] = None
    return data


def _status_values_named(statuses: list[str]):
    """SELECT of the values of the `project_status` items these statuses name by value or label, ignoring case (the
    list filter's reading of `_status_value`: `?status=Completed` listed none of the completed projects)."""
    folded = sorted({status.lower() for status in statuses})
    return project_status_items().where(or_(func.lower(ConfigListItem.value).in_(folded),
                                             func.lower(ConfigListItem.label).in_(folded)))


def _status_value(db, status: str) -> str:
    """The status to store for `status` as sent (session 32, "labels" audit): the value of the `project_status` item
    it names by its value or its label, ignoring case (the value first, then the label, then the list's order), else
    `status` as typed (a free string, document 1). The completion side effects, the `status` filter, the portal's
    active projects and the capacity heatmap compare the stored status with the list's values (`completed`,
    `active`): "Completed", the list's own label, completed nothing and was listed under no filter. One statement."""
    folded = status.strip().lower()
    found = db.scalar(
        project_status_items()
        .where(or_(func.lower(ConfigListItem.value) == folded, func.lower(ConfigListItem.label) == folded))
        .order_by((func.lower(ConfigListItem.value) != folded), ConfigListItem.position, ConfigListItem.id).limit(1))
    return found if found is not None else status


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
    values["status"] = _status_value(ctx.db, values["status"]) if values.get("status") else "active"
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


def link_deal_for(ctx, *, project_id: str, deal_id: str, linked_by: str | None = None) -> None:
    """Links a project another area's automation just made (proposals' onboarding on accept, so no link exists
    yet) to `deal_id`, which the caller holds (the accept locked the deal): one INSERT of the row
    PUT /api/projects/:id/deal writes, which, like that PUT, records no history and notifies nobody."""
    ctx.db.add(ProjectDealLink(project_id=project_id, deal_id=deal_id, linked_by=linked_by))
    ctx.db.flush()


def update_project(ctx, *, project_id: str, data) -> dict:
    project = load_project(ctx, project_id)
    lock_row(ctx.db, Project, project.id, missing="Project")  # a status transition (completed: hooks, notification) happens once
    values = _clean({k: v for k, v in data.changes().items() if k in WRITABLE})
    if values.get("status"):
        values["status"] = _status_value(ctx.db, values["status"])  # as the list names it (_status_value)
    before = _snapshot(project)
    merged = {**{k: get_field(project, k) for k in ("start_date", "end_date")}, **values}
    # a reference sent back as it is stored is not checked again, as tasks do: a client may PUT the record it
    # read, whose company may since have been deleted or whose owner deactivated (a 400 on a field it left alone)
    changed = {k: v for k, v in values.items() if value_out(v) != before.get(k)}
    checked = {**changed, "start_date": merged["start_date"], "end_date": merged["end_date"]}
    _validate_references(ctx.db, checked, values)
    if checked.get("squad"):
        values["squad"] = checked["squad"]  # the squad's own spelling (_squad_name)
    if "company_id" in changed:  # a budget client A approved does not move to client B with the project (session 25)
        _approved_budgets_stay(ctx, project, changed["company_id"])
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
        if "status" in changes:
            _status_changed(ctx, project, previous=before["status"])
        elif project.status == "completed" and project.company_id and not before["company_id"]:
            _completed_given_company(ctx, project)  # completed before, given its company only now
        if "company_id" in changes:
            _summary_dropped(ctx, project)
            _onboarding_hook(ctx, project)  # given a (new) company: as a project created with it
            if project.company_id:
                _pending_budgets_shown(ctx, project)
        if {"delivery_manager_id", "company_id", "owner_id"} & changes.keys():
            # each names a link of the chain a request's manager is picked from (review of session 25: a project
            # moved to another client kept the first client's manager on its requests)
            _request_watch_follows(ctx, project)
    return project_record(ctx, project.id)


def _request_watch_follows(ctx, project: Project) -> None:
    """The project's delivery manager really changed (under its row lock): the watch each client request in it got
    from the manager at its filing goes to the manager it now derives, the new one, else the client profile's
    (`request_manager`); a watch somebody chose stays (tasks' `move_request_watch`: two statements whatever the
    requests). Session 24: the old manager kept reading the client's requests, and the new one answered 404."""
    from chalicelib.areas.tasks import service as tasks_service

    tasks_service.move_request_watch(ctx.db, manager_id=request_manager(ctx.db, project.id, project=project),
                                     project_id=project.id)


def _summary_dropped(ctx, project: Project) -> None:
    """The project's company really changed (under its row lock): its stored AI summary, built from the former
    client's requests and shown in the client portal, goes (session 28: the new client read the first's requests in
    it). One DELETE, leaving with the request's next statement (WRITE_LATER)."""
    from sqlalchemy import delete

    from chalicelib.core.db import WRITE_LATER

    from .models import ProjectAISummary

    ctx.db.execute(delete(ProjectAISummary).where(ProjectAISummary.project_id == project.id),
                   execution_options={**WRITE_LATER, "synchronize_session": False})


def _approved_budgets_stay(ctx, project: Project, company_id: str | None) -> None:
    """Before the project's company changes (under its row lock): a move from client A to another company or none
    while budgets of it are `approved` (A's approval, given in A's portal) is a 409, nothing written (budgets'
    `check_client_move`, one statement; session 25). A company given to a companyless project checks nothing."""
    from chalicelib.areas.budgets import service as budgets_service

    budgets_service.check_client_move(ctx.db, resource_type="project", resource_id=project.id,
                                      company_before=project.company_id, company_after=company_id)


def _pending_budgets_shown(ctx, project: Project) -> None:
    """The project was given a client company or moved to another (session 24): the budgets of it pending approval,
    now in that client's portal, are told to its portal users as a budget moved there is (budgets'
    `project_company_changed`); the old company is not told again."""
    from chalicelib.areas.budgets import service as budgets_service

    budgets_service.project_company_changed(ctx, project_id=project.id)


def _status_changed(ctx, project: Project, *, previous: str) -> None:
    """After a real change of the project's status (compared under the row lock): on `completed` with a company,
    the draft client win and `project_completed` to the first of the project's delivery manager, the client
    profile's, the project's owner and the company's owner who is active and may read the project (session 25:
    before, only the project's delivery manager, so one who had left told nobody), also when they made the change
    (the specification names no exception); and `project_status_changed` to the owner, the delivery manager and
    the members who may read the project, never to the actor nor to the one told `project_completed` (one notice
    per change). Who may read it (queries.project_readers) is asked of all of them at once, the completion's chain
    among them. All in one notify_many: a fixed number of statements whatever the number of members (the members'
    ids, on completion the chain's ids, their principals, the scope as each of them, then notify's own)."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    chain = []
    if project.status == "completed" and project.company_id:
        _client_win(ctx, project)
        chain = _completion_chain(ctx.db, project.id)
    people = ({project.owner_id, project.delivery_manager_id, *member_ids(ctx.db, project.id)} - {ctx.user_id, None})
    # one readers check for both notices: the completion's chain is asked also when one of it is the actor
    readers = project_readers(ctx.db, project.id, people | set(chain))
    completed_to = next((person for person in chain if person in readers), None)
    readers = (readers & people) - {completed_to}  # the one told `project_completed` gets only that notice
    notify_many(ctx, [
        *([_completed_notice(ctx, project, completed_to)] if completed_to else []),
        *({"user_id": user_id, "type": "project_status_changed",
           "title": f"Project status changed: {project.name} is now {project.status}",
           "body": f"{ctx.actor_name} changed the status from {previous} to {project.status}.", **_about(ctx, project)}
          for user_id in sorted(readers))])


def _about(ctx, project: Project) -> dict:
    return {"resource_type": ENTITY, "resource_id": project.id, "action_url": f"/projects/{project.id}",
            "actor_id": ctx.user_id}


def _completed_notice(ctx, project: Project, user_id: str) -> dict:
    return {"user_id": user_id, "type": "project_completed", "title": f"Project completed: {project.name}",
            "body": f"{project.name} has been marked completed.", **_about(ctx, project)}


def _client_win(ctx, project: Project) -> bool:
    """The project's draft client win (relationships area, once per project): True when made now."""
    from chalicelib.areas.relationships import service as relationships_service

    return relationships_service.project_completed(ctx, project_id=project.id, company_id=project.company_id,
                                                   project_name=project.name)


def _completed_given_company(ctx, project: Project) -> None:
    """A project already `completed` is given a company, having had none (session 24's paths audit; document 1:
    "when status becomes completed and the project has a company"): its draft client win and, only when that win is
    made now (once per project: not again when the company is cleared and given again), `project_completed` to the
    status path's recipient (the first of the chain who may read the project, also when they made the change). No
    `project_status_changed`: the status did not change. A completed project moved from one company to another
    makes nothing (its win, if any, stays the first company's)."""
    if not _client_win(ctx, project):
        return
    chain = _completion_chain(ctx.db, project.id)
    readers = project_readers(ctx.db, project.id, chain)
    completed_to = next((person for person in chain if person in readers), None)
    if completed_to:
        from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

        notify_many(ctx, [_completed_notice(ctx, project, completed_to)])


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
    is locked first, so a delete waits for a request changing it and a second delete at once answers 404. Its notes go
    with it (the notes area: one statement)."""
    from chalicelib.areas.budgets import service as budgets_service  # other areas: imported lazily
    from chalicelib.areas.notes import service as notes_service
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
    # roadmaps (with their items) before sprints: the order a task create or duplicate share-locks a roadmap item and
    # then a sprint, so the two never wait for each other crosswise (session 24's review)
    roadmaps_service.project_deleted(ctx.db, project.id)  # with their items, cleared from their tasks
    sprints_service.project_deleted(ctx.db, project.id)  # the database clears its sprints from their tasks
    notes_service.records_deleted(ctx.db, "project", [project.id])  # its notes go with it (session 23)
    ctx.db.delete(project)
    ctx.db.flush()


__all__ = ["list_projects", "get_detail", "create_project", "create_project_for", "link_deal_for", "update_project", "delete_project", "load_project",
           "visible", "visible_project_ids", "project_history", "project_record", "require_users", "project_brief",
           "project_names", "goal_briefs", "member_count"]
