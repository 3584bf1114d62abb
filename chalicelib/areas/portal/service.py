"""The portal's reads of delivery work: dashboard, projects and their detail, tasks, roadmap, decisions, team,
history, published pages and announcements. Every read is limited to the caller's company (`ctx.portal`), or
to its honoured group companies on group-aware routes; other areas are read through their `service`.
Budgets, notes, requests and the questionnaire, QBRs and goals, and notifications live in service_*.py."""
from __future__ import annotations

from functools import cache

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import aliased

from chalicelib.core.models import HistoryEntry, User
from chalicelib.core.query import template
from chalicelib.core.serialize import clipped

from .queries import deal_ids, load_project, project_ids

HISTORY_LIMIT = 50  # document 3: portal history, at most 50 entries
RECENT_ACTIVITY = 10
DASHBOARD_ANNOUNCEMENTS = 5


def _sum_counts(counts: dict) -> dict:
    total = {"total": 0, "done": 0, "open": 0}
    for entry in counts.values():
        for key in total:
            total[key] += entry[key]
    return total


def list_projects(ctx, *, company_ids, status: str | None = None) -> tuple[list[dict], dict]:
    """(projects with their task counts, task counts in total) of these companies. One statement: the projects
    and the task counts of the same projects (record_sets)."""
    from chalicelib.core.query import record_sets

    return _projects_out(record_sets(ctx.db, **_projects_reads(ctx, company_ids, status)))


def _projects_reads(ctx, company_ids, status: str | None) -> dict:
    """The reads of `list_projects` (`projects`, `counts`), for a record_sets statement."""
    from chalicelib.core.query import Read, ids_value

    postgres = ctx.db.get_bind().dialect.name == "postgresql"
    ids = ids_value(company_ids, postgres)
    if ids is None:  # an id with a comma (none is made here): the statements built for these values
        projects, counts = _project_reads(lambda column: column.in_(list(company_ids)), status)
        return {"projects": projects, "counts": counts}
    params = {"portal_company_ids": ids, **({"portal_status": status} if status else {})}
    return {"projects": Read(_projects_template(postgres, bool(status)), params),
            "counts": Read(_counts_template(postgres, bool(status)), params)}


def _projects_out(sets: dict) -> tuple[list[dict], dict]:
    """`list_projects`' answer from the records of its reads."""
    from chalicelib.areas.tasks import service as tasks_service

    projects = sets["projects"]
    counts = tasks_service.portal_counts(sets["counts"])
    empty = {"total": 0, "done": 0, "open": 0}
    records = [_project_out(p, counts.get(p["id"], empty)) for p in projects]
    return records, _sum_counts(counts)


def _project_reads(company_in, status):
    """(the portal's projects, their task counts): two reads for one record_sets statement."""
    from chalicelib.areas.projects import service as projects_service
    from chalicelib.areas.tasks import service as tasks_service

    return (projects_service.portal_projects_select(company_in, status),
            tasks_service.portal_task_counts_select(projects_service.portal_project_ids(company_in, status),
                                                    company_in))


def _template_args(postgres: bool, with_status: bool):
    from sqlalchemy import bindparam

    from chalicelib.core.query import ids_param

    return (lambda column: ids_param(column, "portal_company_ids", postgres),
            bindparam("portal_status") if with_status else None)


@template
def _projects_template(postgres: bool, with_status: bool):
    return _project_reads(*_template_args(postgres, with_status))[0]


@template
def _counts_template(postgres: bool, with_status: bool):
    return _project_reads(*_template_args(postgres, with_status))[1]


def _project_out(project: dict, counts: dict) -> dict:
    out = {key: project[key] for key in ("id", "name", "description", "company_id", "status", "start_date",
                                         "end_date", "type_label", "delivery_manager_name", "owner_name",
                                         "created_at", "updated_at")}
    out["task_counts"] = counts
    return out


def project_detail(ctx, *, project_id: str) -> dict:
    from chalicelib.areas.projects import service as projects_service
    from chalicelib.areas.tasks import service as tasks_service

    from chalicelib.core.errors import not_found

    found = projects_service.portal_project_detail(ctx.db, [ctx.portal.company_id], project_id)
    if found is None:
        raise not_found("Project")
    project, goals, members, summary, decisions = found
    counts = tasks_service.portal_task_counts(ctx.db, [project["id"]], companies=[ctx.portal.company_id])
    goals = [{k: g[k] for k in ("id", "title", "description", "status", "due_date", "position")} for g in goals]
    return {"project": _project_out(project, counts.get(project["id"], {"total": 0, "done": 0, "open": 0})),
            "goals": goals, "members": members, "aiSummary": summary, "decisions": [_decision(d) for d in decisions]}


def _decision(record: dict) -> dict:
    return {k: record[k] for k in ("id", "title", "decision", "rationale", "decided_at", "status", "decided_by_name",
                                   "created_at")}


def project_tasks(ctx, *, project_id: str, query):
    """One page (core.query.Page) of the project's non-private tasks, in list order; a client's request only to the
    company that filed it (session 24)."""
    from chalicelib.areas.tasks import service as tasks_service

    load_project(ctx, project_id)
    return tasks_service.portal_tasks(ctx.db, project_id, query, companies=[ctx.portal.company_id])


def project_roadmap(ctx, *, project_id: str) -> tuple[dict | None, list[dict]]:
    from chalicelib.areas.roadmaps import service as roadmaps_service

    load_project(ctx, project_id)
    return roadmaps_service.portal_roadmap(ctx.db, project_id)


def project_decisions(ctx, *, project_id: str, query):
    """One page (core.query.Page) of the project's decisions, in the detail's order."""
    from dataclasses import replace

    from chalicelib.areas.projects import service as projects_service

    load_project(ctx, project_id)
    page = projects_service.portal_decisions(ctx.db, project_id, query)
    return replace(page, items=[_decision(d) for d in page.items])


def team(ctx) -> tuple[list[dict], list[dict]]:
    from chalicelib.areas.projects import service as projects_service

    return projects_service.portal_team(ctx.db, ctx.portal.company_ids)


def _history_targets(company_ids):
    """WHERE clause of the history entries of these companies' projects, budgets and invoices, each since the record
    became theirs (session 27): an entry older than a later move of its record (`_moved_after`), or, a budget of a
    project, of that project, is another client's time (or the staff's own, before the record had a client)."""
    from chalicelib.areas.budgets import service as budgets_service

    from . import service_invoices

    projects = project_ids(company_ids)
    current = projects.subquery("portal_history_projects")
    projects_since = select(current.c.id).where(~_moved_after("project", current.c.id))
    clauses = [and_(HistoryEntry.entity_type == "project", HistoryEntry.entity_id.in_(projects),
                    ~_moved_after("project", HistoryEntry.entity_id)),
               and_(HistoryEntry.entity_type == "budget",
                    HistoryEntry.entity_id.in_(budgets_service.portal_budget_ids(projects_since,
                                                                                 deal_ids(company_ids))),
                    ~_moved_after("budget", HistoryEntry.entity_id)),
               and_(HistoryEntry.entity_type == "invoice",
                    HistoryEntry.entity_id.in_(service_invoices.invoice_ids(company_ids)),
                    ~_moved_after("invoice", HistoryEntry.entity_id))]
    return or_(*clauses)


@cache
def _moved_alias(entity_type: str):
    """The later entries' alias of `_moved_after`, one per entity type, built once (tests/core/test_aliases_built_once)."""
    return aliased(HistoryEntry, name=f"moved_{entity_type}")


def _moved_after(entity_type: str, entity_id):
    """EXISTS (correlated to the listed HistoryEntry): a later entry of the record (`entity_type`, `entity_id`: a
    column) that changed its company (`company_id`: a project's, an invoice's, a budget's) or what it belongs to
    (`resource_id`: a budget's project or deal). Its own history is the record's marker: a project's create and every
    update name the company they set. One index range (entity_type, entity_id, created_at) each."""
    moved = _moved_alias(entity_type)
    return (select(moved.id).where(moved.entity_type == entity_type, moved.entity_id == entity_id,
                                   moved.created_at > HistoryEntry.created_at,
                                   # as_string: SQLite's JSON path read of a missing key is the text 'null'
                                   or_(moved.changes["company_id"].as_string().is_not(None),
                                       moved.changes["resource_id"].as_string().is_not(None)))
            .correlate_except(moved).exists())  # the listed entry and the record, both the caller's


def history(ctx, *, company_ids=None, limit: int = HISTORY_LIMIT) -> list[dict]:
    """The newest history entries of the company's projects, budgets and invoices (one statement): what was
    done, by whom (a staff member's name, or none for the client), when; never the changed values, which may
    carry internal figures."""
    from chalicelib.core.query import record_rows

    return record_rows(ctx.db, _history_select(company_ids or [ctx.portal.company_id], limit))


def _history_select(company_ids, limit: int):
    return (select(HistoryEntry.id, HistoryEntry.entity_type, HistoryEntry.entity_id, HistoryEntry.action,
                   User.name.label("actor_name"), HistoryEntry.created_at)
            .outerjoin(User, User.id == HistoryEntry.actor_id).where(_history_targets(company_ids))
            .order_by(HistoryEntry.created_at.desc(), HistoryEntry.id).limit(limit))


def pages(ctx) -> list[dict]:
    from chalicelib.areas.pages import service as pages_service

    ids = ctx.portal.company_ids
    return pages_service.portal_pages(ctx.db, ids, project_ids(ids))


def page(ctx, *, page_id: str) -> dict:
    from chalicelib.areas.pages import service as pages_service

    ids = [ctx.portal.company_id]
    return pages_service.portal_page(ctx.db, page_id, ids, project_ids(ids))


def announcements(ctx) -> list[dict]:
    from chalicelib.areas.announcements import service as announcements_service

    return announcements_service.portal_announcements(ctx.db)


def dashboard(ctx) -> dict:
    """Projects with task counts, financial totals, recent activity, milestones and announcements of the
    company and its honoured group companies: every part read in one statement (core.query.record_sets)."""
    from chalicelib.areas.announcements import service as announcements_service
    from chalicelib.areas.invoices import service as invoices_service
    from chalicelib.areas.projects import service as projects_service
    from chalicelib.core.query import record_sets

    ids = ctx.portal.company_ids
    sets = record_sets(ctx.db, **_projects_reads(ctx, ids, None),
                       financial=invoices_service.portal_financial_select(ids),
                       history=_history_select(ids, RECENT_ACTIVITY),
                       milestones=projects_service.portal_milestones_select(ids),
                       announcements=announcements_service.portal_announcements_select(DASHBOARD_ANNOUNCEMENTS))
    projects, counts = _projects_out(sets)
    return {
        "projects": projects,
        "taskCounts": counts,
        "financial": invoices_service.portal_financial_record(sets["financial"]),
        "recentActivity": sets["history"],
        "milestones": sets["milestones"],
        "announcements": sets["announcements"],
    }


# ---------------------------------------------------------------- for other areas: portal notifications
# Called by the producing area after its change, in its transaction (the e-mails go after commit).

def budget_pending_approval(ctx, *, budget_id: str, name: str, resource_type: str, resource_id: str) -> int:
    """A budget moved to `pending_approval` (budgets): the portal users of the client company of its project
    or deal are told (`portal_budget_pending`)."""
    from . import service_notifications

    company_id = None
    if resource_type == "project":
        from chalicelib.areas.projects import service as projects_service

        company_id = (projects_service.project_companies(ctx.db, [resource_id]).get(resource_id) or (None, None))[1]
    elif resource_type == "deal":
        from chalicelib.areas.deals import service as deals_service

        company_id = (deals_service.deal_facts(ctx.db, resource_id) or {}).get("company_id")
    if not company_id:
        return 0
    return service_notifications.notify_portal_users(
        ctx, company_ids=[company_id], type="portal_budget_pending", title=f"Budget awaiting your approval: {name}",
        resource_type="budget", resource_id=budget_id, action_url=f"/budgets/{budget_id}")


def budget_withdrawn(db, *, budget_id: str) -> None:
    """A budget is being deleted, or set back to draft (budgets): the `portal_budget_pending` notices told of it are
    withdrawn from every portal user (one DELETE whose answer nobody reads; sessions 24 and 28): they pointed at a
    budget the portal answers 404 for, as a deleted QBR's did. A budget taken out of pending_approval to another
    status the portal shows is still listed: its notice is kept."""
    from . import service_notifications

    service_notifications.withdraw_notices(db, type="portal_budget_pending", resource_type="budget",
                                           resource_id=budget_id)


def task_status_changed(ctx, *, task_id: str, title: str) -> int:
    """A task's status changed (tasks): when the task is a client's request, its requester is told
    (`portal_request_updated`)."""
    from . import service_notifications

    found = service_notifications.submitter(ctx.db, "task", task_id)
    if found is None or not _portal_shows_task(ctx.db, task_id, found[0]):
        return 0
    return service_notifications.notify_portal_users(
        ctx, recipients=[found], type="portal_request_updated", title=f"Your request was updated: {title}",
        resource_type="task", resource_id=task_id)


def _portal_shows_task(db, task_id: str, company_id: str) -> bool:
    """Whether the company's portal shows the task (GET /projects/:id/tasks): linked to a project of the company,
    neither private nor under a private task at any depth. A request task staff made private, put under a private
    task or moved to another client's project is told to nobody: its title would reach the requester (security
    audit S4). Two statements (the task, then its project)."""
    from chalicelib.areas.projects import service as projects_service
    from chalicelib.areas.tasks import service as tasks_service

    project_id = tasks_service.portal_task_project(db, task_id)
    return project_id is not None and \
        projects_service.portal_project_detail(db, [company_id], project_id, brief=True) is not None


def _portal_shows_record(db, resource_type: str, resource_id: str, company_id: str) -> bool:
    """Whether the company's portal shows the noted record: a project of the company (GET /projects/:id), an
    invoice the company sees (issued: approved, sent or paid; GET /invoices/:id). A portal note is only on one of
    these (POST /notes); any other record: False. One statement."""
    if resource_type == "project":
        from chalicelib.areas.projects import service as projects_service

        return projects_service.portal_project_detail(db, [company_id], resource_id, brief=True) is not None
    if resource_type == "invoice":
        from . import service_invoices

        return service_invoices.shows_invoice(db, company_id, resource_id)
    return False


def note_replied(ctx, *, parent_id: str, note_id: str, resource_type: str, resource_id: str, content: str) -> int:
    """A staff member replied, visibly to the client, to a note (notes): when the note was written in the portal,
    its author is told (`portal_note_reply`), while their company's portal shows the note's record (a reply on a
    project moved to another client, or on a voided invoice, is told to nobody: security audit S4)."""
    from . import service_notifications

    found = service_notifications.submitter(ctx.db, "note", parent_id)
    if found is None or not _portal_shows_record(ctx.db, resource_type, resource_id, found[0]):
        return 0
    return service_notifications.notify_portal_users(
        ctx, recipients=[found], type="portal_note_reply", title="The agency replied to your note",
        body=clipped(content, 500), resource_type="note", resource_id=note_id,
        action_url=f"/{resource_type}s/{resource_id}")


def submissions_select(record_type: str, record_id):
    """(SELECT of the portal submission of the record `record_id` names (a column another area's read correlates),
    its company column): for a WHERE clause of that read (tasks' `_filed_for`: a request is listed only to the
    company that filed it, session 24)."""
    from .models import PortalSubmission

    return (select(PortalSubmission.record_id).where(PortalSubmission.record_type == record_type,
                                                     PortalSubmission.record_id == record_id),
            PortalSubmission.company_id)


def records_deleted(db, record_type: str, ids) -> None:
    """Records submitted through the portal (`task`: a request, `note`: a note) are being deleted by their area:
    who submitted them is forgotten (one DELETE; `ids` a list of ids or a SELECT of them, read before the records'
    own DELETE). Nobody reads its answer: it rides with the request's next statement (core.db.WRITE_LATER). The row
    was kept for good before (session 23): nothing read it again, the table only grew. Notes: the staff replies among
    them told to a portal author take their `portal_note_reply` notices with them (`note_replies_withdrawn`, one
    DELETE more; session 24); tasks (a request and its subtasks) their `portal_request_updated` notices (one DELETE
    more)."""
    from sqlalchemy import delete

    from chalicelib.core.db import WRITE_LATER

    from .models import PortalSubmission

    db.execute(delete(PortalSubmission).where(PortalSubmission.record_type == record_type,
                                              PortalSubmission.record_id.in_(ids)),
               execution_options={**WRITE_LATER, "synchronize_session": False})
    if record_type == "note":
        note_replies_withdrawn(db, note_ids=ids)
    elif record_type == "task":  # a deleted request's status notices pointed at a task the portal no longer lists
        from . import service_notifications

        service_notifications.withdraw_notices(db, type="portal_request_updated", resource_type="task",
                                               resource_ids=ids)


def note_replies_withdrawn(db, *, note_ids) -> None:
    """Staff replies the portal no longer lists (notes: a reply whose visibility no longer names `client`, or replies
    being deleted, `note_ids` a list of ids or a SELECT of them): the `portal_note_reply` notices told of them
    (resource `note`, the reply's id; they carry its text) are withdrawn from every portal user (one DELETE whose
    answer nobody reads; session 24, docs/decisions/portal.md "Withdrawn notices")."""
    from . import service_notifications

    service_notifications.withdraw_notices(db, type="portal_note_reply", resource_type="note", resource_ids=note_ids)


def announcement_published(ctx, *, announcement_id: str, title: str) -> int:
    """An announcement of category `company` was published (announcements): every portal user is told
    (`portal_announcement`), as every client reads the company announcements."""
    from . import service_notifications

    return service_notifications.notify_portal_users(
        ctx, every_company=True, type="portal_announcement", title=f"Announcement: {title}",
        resource_type="announcement", resource_id=announcement_id, action_url="/announcements")


def announcement_withdrawn(db, *, announcement_id: str) -> None:
    """An announcement the clients read is deleted, or moved out of category `company` (announcements): the
    portal notices of its publication (`portal_announcement`) are withdrawn from every portal user (one DELETE;
    session 24). An edit that keeps it a company announcement leaves them as they were sent."""
    from . import service_notifications

    service_notifications.withdraw_notices(db, type="portal_announcement", resource_type="announcement",
                                           resource_id=announcement_id)
