"""The client portal's reads of projects (company-scoped, no principal): the scope of a company's projects,
their records, a project's detail and decisions, the companies' open milestones and team. The portal area calls
them through service.py, which imports them.
"""
from __future__ import annotations

from functools import cache

from sqlalchemy import func, select

from chalicelib.core.models import ConfigListItem
from chalicelib.core.query import record_sets

from .models import Project, ProjectMember
from .queries import decision_select, goal_select, member_select


PORTAL_PROJECT_FIELDS = ("id", "name", "description", "company_id", "status", "start_date", "end_date", "created_at",
                         "updated_at")


def company_project_ids(company_ids):
    """A SELECT of the ids of the projects of these companies (the portal's scope)."""
    return select(Project.id).where(Project.company_id.in_(list(company_ids)))


@cache
def _portal_select():
    """The portal's project record: client-safe fields, the type's label, the owner's and delivery manager's
    names (null for a deactivated user) and ids, the SLA policy (joins; records through core.query.record_rows). Built once per process, on
    the portal's first call (an alias proxies its table's columns on first use)."""
    from sqlalchemy.orm import aliased

    from chalicelib.core.models import User

    owner, manager = aliased(User, name="portal_owner"), aliased(User, name="portal_manager")
    return (select(*(getattr(Project, field) for field in PORTAL_PROJECT_FIELDS),
                   ConfigListItem.label.label("type_label"), owner.name.label("owner_name"),
                   manager.name.label("delivery_manager_name"), Project.delivery_manager_id, Project.owner_id,
                   Project.sla_policy_id)
            # former staff are not named to the client, as the portal's team leaves them out (session 25)
            .outerjoin(owner, (owner.id == Project.owner_id) & owner.is_active.is_(True))
            .outerjoin(manager, (manager.id == Project.delivery_manager_id) & manager.is_active.is_(True))
            .outerjoin(ConfigListItem, ConfigListItem.id == Project.type_id))


def _of_companies(stmt, company_in, status):
    """`stmt` kept to the projects whose company `company_in(Project.company_id)` admits, of `status` when it
    is given (a value or a bind parameter), read as the staff's status filter reads it (session 32): letter case
    aside, or the value of the `project_status` item it names by its label (`?status=On hold` is `on_hold`)."""
    from sqlalchemy import or_

    from .queries import project_status_items

    stmt = stmt.where(company_in(Project.company_id))
    if status is None:
        return stmt
    named = project_status_items().where(or_(func.lower(ConfigListItem.value) == func.lower(status),
                                             func.lower(ConfigListItem.label) == func.lower(status)))
    return stmt.where(or_(func.lower(Project.status) == func.lower(status), Project.status.in_(named)))


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
    sets = record_sets(db, goals=goal_select(project_id), members=member_select(project_id, active_only=True),
                       summary=select(ProjectAISummary.summary_text, ProjectAISummary.recommendations,
                                      ProjectAISummary.generated_at).where(ProjectAISummary.project_id == project_id),
                       decisions=decision_select(ProjectDecision.project_id == project_id, active_only=True))
    summary = sets["summary"][0] if sets["summary"] else None
    ai = None if summary is None else {"summary_text": summary["summary_text"],
                                       "recommendations": list(summary["recommendations"] or []),
                                       "generated_at": summary["generated_at"]}
    members = [{"user_id": m["user_id"], "name": m["name"], "picture": m["picture"], "job_title": m["job_title"],
                "role": m["role"]} for m in sets["members"]]
    return found[0], sets["goals"], members, ai, sets["decisions"]


def portal_project_to_name(db, company_ids, project_id: str) -> dict | None:
    """The portal's project record (as `portal_project_detail(..., brief=True)`) of a project of these companies
    that a record of another area is about to name (a client's request: a task of the project), or None. The row is
    share-locked in the same statement (FOR KEY SHARE, as `link_project`): the write waits for a delete of the project
    in progress and then finds it missing, instead of naming a deleted project (session 24); it waits for no edit
    of the project (those take FOR NO KEY UPDATE)."""
    found = _portal_project(db, company_ids, project_id, key_share=True) if project_id and len(project_id) <= 36 else []
    return found[0] if found else None


def _portal_project(db, company_ids, project_id: str, *, key_share: bool = False) -> list[dict]:
    from chalicelib.core.query import record_rows

    stmt = _of_companies(_portal_select(), lambda column: column.in_(list(company_ids)), None).where(
        Project.id == project_id)
    if key_share:  # the project's row alone (its joins are outer: their nullable side cannot be locked)
        stmt = stmt.with_for_update(read=True, key_share=True, of=Project)
    return record_rows(db, stmt)


def portal_decisions(db, project_id: str, query):
    """One page (core.query.Page) of a project's decisions with decided_by_name (null for a deactivated user, as the
    detail's, session 28), newest decided first (the portal checked the project's company): the portal's project
    detail cuts its decisions to what fits a Lambda answer (session 23), the rest read in pages."""
    from chalicelib.core.query import record_page

    from .models import ProjectDecision

    return record_page(db, decision_select(ProjectDecision.project_id == project_id, limit=None, active_only=True),
                       query)


def portal_milestones_select(company_ids, limit: int = 10):
    """The open goals with a due date of these companies' active projects, soonest first (records id, project_id,
    project_name, title, status, due_date; the portal dashboard reads it with its other reads)."""
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
                      .where(Project.id.in_(active)).order_by(Project.created_at.desc(), Project.id)
                      .limit(LIST_LIMIT)).all()
    lead_ids = {uid for row in rows for uid in (row.owner_id, row.delivery_manager_id) if uid}
    # active staff only, as the team above: a former owner's name and e-mail were shown to the client (session 22)
    people = ({u.id: u for u in db.scalars(select(User).where(User.id.in_(lead_ids), User.is_active.is_(True)))}
              if lead_ids else {})
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
