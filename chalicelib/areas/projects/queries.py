"""The projects area's leaf module: the scope clause `visible`, the load-or-404 helpers (`load_project`,
`load_goal`, `load_decision`), the project, member, goal and decision read queries and record builders, and
the user checks every project writer shares. service.py and service_*.py import it, never the reverse."""
from __future__ import annotations

from functools import cache

from sqlalchemy import bindparam, func, literal_column, or_, select, union_all

from chalicelib.core import scoping
from chalicelib.core.errors import BadRequest, not_found
from chalicelib.core.locks import lock_row
from chalicelib.core.lookup import Names, ids_read, names_select
from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT, Read, record_rows, record_sets, template, visible_row
from chalicelib.core.readers import readers, seen_by
from chalicelib.core.serialize import row_dict

from .models import Project, ProjectDecision, ProjectGoal, ProjectMember

ENTITY = "project"
GOAL_FIELDS = ("id", "project_id", "title", "description", "status", "due_date", "position", "created_by",
               "created_at", "updated_at")
DECISION_FIELDS = ("id", "project_id", "title", "decision", "rationale", "decided_by", "decided_at", "status",
                   "created_by", "created_at", "updated_at")
ATTRIBUTE = {"metadata": "meta"}
# A project holds at most this many members, goals and decisions each (enforced on write), so that its
# detail and sub-lists answer them all.
SUB_LIST_LIMIT = LIST_LIMIT


def get_field(project: Project, field: str):
    return getattr(project, ATTRIBUTE.get(field, field))


# ---------------------------------------------------------------- scope and load-or-404

def visible(principal):
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


def load_project(ctx, project_id: str) -> Project:
    """The project if it exists and is inside the caller's scope; 404 otherwise (one query)."""
    return visible_row(ctx.db, Project, project_id, visible(ctx.principal), "Project")


def seen_project(ctx, project_id: str) -> Project:
    """`load_project` for another area that reads or names the project without holding it (an action item, a
    meeting's match): the project is one the caller can see, `projects:view` as well as the row scope (session 29),
    else the 404 of a missing one. Not locked (`link_project` share-locks)."""
    if not ctx.reads("projects"):
        raise not_found("Project")
    return load_project(ctx, project_id)


def project_seen_by(db, project_id: str, principals) -> set[str]:
    """Which of these principals see the project: its scope clause as each of them, in one statement (a
    UNION ALL; none for no principals). The notes area asks it of the users a note mentions."""
    return seen_by(db, Project, project_id, principals, visible)


def project_readers(db, project_id: str, user_ids) -> set[str]:
    """Which of these users may read the project: active, `projects:view`, and the project inside their scope
    (`visible`), two statements at most whatever their number (core.readers.readers)."""
    return readers(db, Project, project_id, user_ids, tool="projects", scope_of=visible)


def link_project(ctx, project_id: str) -> Project:
    """`load_project` for a record of another area about to name the project (a time entry, a budget, a sprint,
    a roadmap): the row is share-locked (FOR KEY SHARE), so the write waits for a project delete in progress and
    then finds the project gone (404) instead of naming a deleted project. It waits for nothing else: edits of
    the project take a weaker lock (FOR NO KEY UPDATE) that this one does not conflict with. The project is one the
    caller can see: `projects:view` as well as the row scope (session 29: a caller whose projects permission is
    none, by an override, named any project of their scope); without it, the 404 of a missing one."""
    if not ctx.reads("projects"):
        raise not_found("Project")
    return lock_row(ctx.db, Project, project_id, where=visible(ctx.principal), missing="Project", key_share=True)


def load_goal(ctx, project_id: str, goal_id: str) -> ProjectGoal:
    """The goal of a project the caller can see; 404 otherwise."""
    load_project(ctx, project_id)
    return visible_row(ctx.db, ProjectGoal, goal_id, ProjectGoal.project_id == project_id, "Goal")


def load_decision(ctx, project_id: str, decision_id: str) -> ProjectDecision:
    """The decision of a project the caller can see; 404 otherwise."""
    load_project(ctx, project_id)
    return visible_row(ctx.db, ProjectDecision, decision_id, ProjectDecision.project_id == project_id, "Decision")


def count_of(db, model, project_id: str) -> int:
    """How many `model` rows (members, goals, decisions) the project has (one query)."""
    return db.scalar(select(func.count(model.id)).where(model.project_id == project_id)) or 0


# ---------------------------------------------------------------- projects

@cache
def project_select():
    """The base statement of every project read: the projects' own columns, no joins (names, labels and counts
    are added by `project_records` with a fixed number of statements), built once per process (statements
    are immutable: `.where()` answers a copy)."""
    return select(Project)


def _counts_statement(resource_in):
    from chalicelib.areas.tasks import service as tasks_service

    members = (select(ProjectMember.project_id, literal_column("'members'").label("kind"), func.count().label("n"))
               .where(resource_in(ProjectMember.project_id)).group_by(ProjectMember.project_id))
    return union_all(members, tasks_service.project_task_counts(resource_in))


def project_counts_select(db, project_ids) -> Read | None:
    """Member counts and the tasks area's top-level task counts in one grouped read (a UNION ALL; rows
    project_id, kind 'members' or 'tasks', count; built once per process), None when there are no ids."""
    return ids_read(db, _counts_statement, "count_project_ids", project_ids)


def _counts(rows) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        project_id, kind, count = (row["project_id"], row["kind"], row["n"]) if isinstance(row, dict) else row
        counts.setdefault(project_id, {})[kind] = int(count)
    return counts


def project_lookups(db, records) -> dict:
    """The reads that complete project records (names and labels, counts, company names), for one
    record_sets round trip."""
    from chalicelib.areas.deals import service as deals_service

    return {
        "names": names_select(db, user_ids=[r[key] for r in records for key in ("owner_id", "delivery_manager_id")],
                              item_ids=[r["type_id"] for r in records]),
        "counts": project_counts_select(db, [r["id"] for r in records]),
        "companies": deals_service.company_names_select(db, [r["company_id"] for r in records]),
    }


def with_project_lookups(db, records: list[dict], sets: dict, *, detail: bool = False) -> list[dict]:
    """The records with the owner's and delivery manager's names, the type's label, member_count, task_count
    and company_name from `project_lookups`'s answers (`sets`; taken out of it); the detail shape adds
    owner_picture and the SLA fields (one more statement for a project with an SLA policy)."""
    found, counts = Names.of(sets.pop("names")), _counts(sets.pop("counts"))
    companies = {row["id"]: row["name"] for row in sets.pop("companies")}
    for record in records:
        owner, project_type = found.user(record["owner_id"]), found.item(record["type_id"])
        count = counts.get(record["id"], {})
        record.update(owner_name=owner["name"], delivery_manager_name=found.user(record["delivery_manager_id"])["name"],
                      type_label=project_type["label"], type_value=project_type["value"],
                      member_count=count.get("members", 0), company_name=companies.get(record["company_id"]),
                      task_count=count.get("tasks", 0))
        if detail:
            record.update(owner_picture=owner["picture"], sla_policy_name=None, sla_response_hours=None,
                          sla_resolution_hours=None)
    if detail and any(r["sla_policy_id"] for r in records):
        from chalicelib.areas.sla import service as sla_service

        policies = sla_service.policy_summaries(db, [r["sla_policy_id"] for r in records])
        for record in records:
            policy = policies.get(record["sla_policy_id"]) or {}
            record.update(sla_policy_name=policy.get("name"), sla_response_hours=policy.get("response_hours"),
                          sla_resolution_hours=policy.get("resolution_hours"))
    return records


def project_records(db, rows, *, detail: bool = False, also: dict | None = None):
    """Project records (see `with_project_lookups`): one statement for the whole list (the lookups sent
    together, core.query.record_sets), and one more for the detail of a project with an SLA policy. `rows`:
    records read by `core.query.record_rows` (the detail's path). `also`: more independent reads for the same
    round trip (`{name: read}`); then the answer is `(records, {name: records})`."""
    records = list(rows)
    sets = record_sets(db, **project_lookups(db, records), **(also or {}))
    records = with_project_lookups(db, records, sets, detail=detail)
    return (records, sets) if also is not None else records


def project_record(ctx, project_id: str, *, scope=None, also: dict | None = None):
    """The detail shape of one project; with `scope` (a WHERE clause) a project outside it is 404.
    Callers that have checked the scope already pass none. `also`: as project_records takes it (then the
    answer is `(record, {name: records})`)."""
    stmt = project_select().where(Project.id == project_id)
    if scope is not None:
        stmt = stmt.where(scope)
    rows = record_rows(ctx.db, stmt)
    if not rows:
        raise not_found("Project")
    if also is None:
        return project_records(ctx.db, rows, detail=True)[0]
    records, sets = project_records(ctx.db, rows, detail=True, also=also)
    return records[0], sets


# ---------------------------------------------------------------- members, goals, decisions

def member_records(db, *, project_id: str) -> list[dict]:
    """Members with their user's name, picture and job title, oldest first (one query)."""
    return record_rows(db, member_select(project_id))


@template
def _member_template(active_only: bool = False):
    """The members' read; `active_only`: the portal's, which leaves former staff out (as its team does)."""
    stmt = (select(ProjectMember.id, ProjectMember.project_id, ProjectMember.user_id, ProjectMember.role,
                   ProjectMember.created_at, User.name, User.picture, User.job_title)
            .join(User, User.id == ProjectMember.user_id)
            .where(ProjectMember.project_id == bindparam("member_project_id")))
    if active_only:
        stmt = stmt.where(User.is_active.is_(True))
    return stmt.order_by(ProjectMember.created_at, User.name, ProjectMember.id).limit(SUB_LIST_LIMIT)


def member_ids(db, project_id: str) -> list[str]:
    """The user ids of the project's members (one statement; a project holds at most SUB_LIST_LIMIT)."""
    return list(db.scalars(select(ProjectMember.user_id).where(ProjectMember.project_id == project_id)))


def member_select(project_id: str, *, active_only: bool = False) -> Read:
    """The read of the project's members (staff views: every member, a deactivated one too); `active_only` for the
    client portal, which names no former staff (session 26: its project detail listed them, its team did not)."""
    return Read(_member_template(active_only), {"member_project_id": project_id})


def goals_of(project_id):
    """The project's goals by position, then creation (and id), unbounded: the caller pages it (`record_page`)."""
    return (select(ProjectGoal).where(ProjectGoal.project_id == project_id)
            .order_by(ProjectGoal.position, ProjectGoal.created_at, ProjectGoal.id))


@template
def _goal_template():
    return goals_of(bindparam("goal_project_id")).limit(SUB_LIST_LIMIT)


def goal_select(project_id: str) -> Read:
    return Read(_goal_template(), {"goal_project_id": project_id})


def goal_record(goal: ProjectGoal) -> dict:
    return row_dict(goal, GOAL_FIELDS)


def decision_select(where, limit: int | None = SUB_LIST_LIMIT, *, active_only: bool = False):
    """Decisions matching `where`, newest decided first, with decided_by_name (records); at most `limit` (None: the
    caller pages it). `active_only`: the client portal's, whose decided_by_name is null for a deactivated user (it
    names no former staff, session 28, as `member_select`); staff views name every decider."""
    decider = User.id == ProjectDecision.decided_by
    if active_only:
        decider = decider & User.is_active.is_(True)
    stmt = (select(*(getattr(ProjectDecision, name) for name in DECISION_FIELDS), User.name.label("decided_by_name"))
            .outerjoin(User, decider).where(where)
            .order_by(ProjectDecision.decided_at.desc().nulls_last(), ProjectDecision.created_at.desc(),
                      ProjectDecision.id))
    return stmt if limit is None else stmt.limit(limit)


def decision_records(db, where) -> list[dict]:
    """Decisions matching `where`, newest decided first, with decided_by_name (one query)."""
    return record_rows(db, decision_select(where))


# ---------------------------------------------------------------- user checks

def require_users(db, *, active: bool = False, **fields) -> None:
    """400 when any given user id does not match a user, or (`active`) a deactivated one: an owner, delivery
    manager or member who cannot sign in would hold the project with nobody to act (one query for all)."""
    wanted = {name: value for name, value in fields.items() if value}
    if not wanted:
        return
    found = dict(db.execute(select(User.id, User.is_active).where(User.id.in_(set(wanted.values())))).all())
    problems = [{"field": name, "message": "does not match a user"} for name, value in wanted.items()
                if value not in found]
    if active:
        problems += [{"field": name, "message": "must be an active user"} for name, value in wanted.items()
                     if value in found and not found[value]]
    if problems:
        raise BadRequest("Unknown or inactive user: " + ", ".join(m["field"] for m in problems), details=problems)


STATUS_MAX = 50  # the `status` column's length (schemas.Status)


def project_status_items():
    """SELECT of the values of the `project_status` items a project's status can hold (an item's value may run to
    200 characters, a status to 50: a longer one names no status). The staff's writes and filter (service
    `_status_value`, `_status_values_named`) and the portal's filter (service_portal) read statuses by it."""
    from chalicelib.core.models import ConfigList, ConfigListItem

    return (select(ConfigListItem.value).join(ConfigList, ConfigList.id == ConfigListItem.list_id)
            .where(ConfigList.key == "project_status", func.length(ConfigListItem.value) <= STATUS_MAX))
