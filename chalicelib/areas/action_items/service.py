"""Action items: the list, counts, preferences, create, patch, complete and delete (scope, urgency and reads
are in queries.py).

Scoping: employee, lead and manager see the items assigned to them; head and executive see all, and only
they may filter by `assigned_to` (403 for others). References in a body must name records that exist
(company, contact, deal, an active user) or, for `project_id`, a project the caller can see: 400 otherwise.
Only manual items can be deleted (400 otherwise): by their creator or a holder of action-centre:manage
(403 otherwise). Other areas (projects, deals) are reached through their `service`, imported where needed.
"""
from __future__ import annotations

from sqlalchemy import delete, func, select, update

from chalicelib.core.errors import BadRequest, Forbidden, NotFound, bad_field, not_found
from chalicelib.core.locks import lock_key, lock_row
from chalicelib.core.models import User
from chalicelib.core.query import in_scope, record_page
from chalicelib.core.schemas import PageQuery, comma_values
from chalicelib.core.scoping import sees_all
from chalicelib.core.timeutil import org_today

from .models import ActionItem, ActionItemPreference
from .queries import (ITEM_FLAGS, contacts_read, current_urgency, failed_unstars, item_record, item_select,
                      latest_unstar_outcome, load_action_item, load_deletable_item, preference_records, urgency_for,
                      urgency_order, visible, with_contacts)


# ---------------------------------------------------------------- reads

def _filtered(ctx, query, today):
    if query.assigned_to and not sees_all(ctx.principal):
        raise Forbidden("Only head and executive may filter by assigned_to")
    stmt = in_scope(item_select(today), visible(ctx.principal))
    stmt = stmt.where(ActionItem.is_completed.is_(query.is_completed == "1"))
    if query.source_module:
        stmt = stmt.where(ActionItem.source_module.in_(comma_values(query.source_module)))
    if query.source_type:
        stmt = stmt.where(ActionItem.source_type.in_(comma_values(query.source_type)))
    if query.urgency:
        stmt = stmt.where(current_urgency(today) == query.urgency)
    for name in ("company_id", "project_id", "assigned_to"):
        if getattr(query, name):
            stmt = stmt.where(getattr(ActionItem, name) == getattr(query, name))
    return stmt


def list_items(ctx, query, today=None) -> dict:
    """One page of the caller's items: overdue, today, this week, normal (their urgency on `today`, default today
    in ORG_TIMEZONE: queries.current_urgency); then due date (none last); then newest first. Two statements
    whatever the page holds: the records, then the total (when the page is full or not the first) with the
    contacts' names (core.query.record_page)."""
    today = today or org_today()
    stmt = _filtered(ctx, query, today).order_by(urgency_order(today), ActionItem.due_date.asc().nulls_last(),
                                                 ActionItem.created_at.desc(), ActionItem.id)
    window = PageQuery(limit=query.limit, offset=(query.page - 1) * query.limit)
    page, sets = record_page(ctx.db, stmt, window, ITEM_FLAGS, exact_total=True,
                             lookups=lambda records: {"contacts": contacts_read(ctx.db, records,
                                                                                names=_sees_deals(ctx))})
    return {"action_items": with_contacts(page.items, sets["contacts"]), "total": page.total, "page": query.page,
            "limit": query.limit}


def counts(ctx, today=None) -> dict:
    """Open items the caller sees, by urgency on `today` (default today in ORG_TIMEZONE: queries.current_urgency)
    and by source module (one statement)."""
    items = in_scope(select(ActionItem.source_module, current_urgency(today or org_today()).label("urgency"))
                     .where(ActionItem.is_completed.is_(False)), visible(ctx.principal)).subquery()
    # grouped outside: Postgres does not take the select's CASE (its dates bound as parameters) for the GROUP BY's
    stmt = select(items.c.source_module, items.c.urgency, func.count()).group_by(items.c.source_module,
                                                                                 items.c.urgency)
    out = {"overdue": 0, "today": 0, "this_week": 0, "total": 0, "by_module": {}}
    for module, urgency, count in ctx.db.execute(stmt):
        if urgency in ("overdue", "today", "this_week"):
            out[urgency] += count
        out["total"] += count
        out["by_module"][module] = out["by_module"].get(module, 0) + count
    return out


def preferences(ctx) -> list[dict]:
    """The caller's per-module preferences; empty means the role defaults apply."""
    return preference_records(ctx.db, ctx.user_id)


def set_preferences(ctx, *, data) -> None:
    """Replaces the caller's preferences whole (an empty list restores the role defaults)."""
    modules = [pref.source_module for pref in data.preferences]
    if len(set(modules)) != len(modules):
        raise bad_field("preferences", "must name each source_module once")
    lock_key(ctx.db, "action-item-preferences", ctx.user_id)  # two replacements of one user's set: one after the other
    ctx.db.execute(delete(ActionItemPreference).where(ActionItemPreference.user_id == ctx.user_id))
    ctx.db.add_all([ActionItemPreference(user_id=ctx.user_id, **pref.model_dump()) for pref in data.preferences])
    ctx.db.flush()


# ---------------------------------------------------------------- writes

def _notify_assigned(ctx, item: ActionItem) -> None:
    notify_assigned(ctx, item_id=item.id, assigned_to=item.assigned_to, title=item.title)


def notify_assigned(ctx, *, item_id: str, assigned_to: str | None, title: str) -> None:
    """`action_item_assigned` to the assignee, unless they assigned it themselves. The item's title and link only
    to an assignee who may open the action centre (`action-centre:view`); any other is told "You were assigned an
    action item" and nothing of it, as tasks tell an assignee who may not read the task (session 22's
    notifications audit: an assignee whose permission was lowered to none was told the title). Also called by
    another area for an item it mirrors here that a member of staff assigned to a colleague (relationships'
    actions, session 24): the same notice, about this item."""
    from chalicelib.core.auth import principals_of
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    if not assigned_to or assigned_to == ctx.user_id:
        return
    assignee = principals_of(ctx.db, [assigned_to]).get(assigned_to)
    told = ({"title": f"You were assigned an action item: {title}", "action_url": "/action-centre"}
            if assignee is not None and assignee.can("action-centre", "view")
            else {"title": "You were assigned an action item"})
    notify(ctx, user_id=assigned_to, type="action_item_assigned", resource_type="action_item",
           resource_id=item_id, actor_id=ctx.user_id, **told)


def _sees_deals(ctx) -> bool:
    """Whether the caller may read the deals area's records (companies, contacts, deals: every holder of `deals:view`
    sees them all): their names are shown, and they are named by an item, only then (session 29)."""
    return ctx.can("deals", "view")


def _check_references(ctx, values: dict) -> None:
    """What an item names must be a record the caller can see: that record's tool at view besides its row scope or
    existence (session 29: a caller whose projects or deals permission is none named any project, company, contact
    or deal, learning which ids exist); answered as a missing one."""
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.areas.projects import service as projects_service

    if values.get("assigned_to"):
        if ctx.db.scalar(select(User.id).where(User.id == values["assigned_to"], User.is_active.is_(True))) is None:
            raise bad_field("assigned_to", "must be an active user")
    if values.get("project_id"):
        try:
            projects_service.seen_project(ctx, values["project_id"])  # projects:view and the row scope
        except NotFound as exc:
            raise bad_field("project_id", "must be a project you can see") from exc
    if not _sees_deals(ctx):
        for field, kind in (("company_id", "company"), ("contact_id", "contact"), ("deal_id", "deal")):
            if values.get(field):
                raise bad_field(field, f"must be an existing {kind}")
    deals_service.check_company(ctx.db, values.get("company_id"))
    deals_service.check_contact(ctx.db, values.get("contact_id"))
    if values.get("deal_id") and deals_service.deal_brief(ctx.db, values["deal_id"]) is None:
        raise bad_field("deal_id", "must be an existing deal")


def create_item(ctx, *, data) -> dict:
    """A manual item, assigned to the caller unless `assigned_to` names another user; urgency from due_date."""
    values = data.model_dump()
    values["assigned_to"] = values["assigned_to"] or ctx.user_id
    _check_references(ctx, values)
    today = org_today()
    item = ActionItem(**values, created_by=ctx.user_id, source_module="manual", is_completed=False,
                      urgency=urgency_for(values["due_date"], today), urgency_on=today)
    ctx.db.add(item)
    ctx.db.flush()
    _notify_assigned(ctx, item)
    return item_record(ctx.db, item.id, names=_sees_deals(ctx))


def _reassign_source(ctx, item: ActionItem, assigned_to: str) -> None:
    """An item mirrored from another area's record is reassigned: the source follows, through its area's service,
    which locks the source's row first; then this item's row is locked and read again, the order of the completion
    paths (`complete_item`) and of the sources' own writes (session 24; before, the relationship action or meeting
    item kept the old assignee: the new one got 404 on it, yet completed it from here). A relationship action takes
    any active user (its assignee decides who sees it); a meeting's item only a user who can read the meeting (400
    naming assigned_to otherwise). Items from chat or mail are left as they are: their source is a starred
    message of the person it was raised for, not a record assigned to anyone."""
    if item.source_module == "relationships":
        from chalicelib.areas.relationships import service as relationships_service

        relationships_service.reassigned_in_action_centre(ctx, action_id=item.source_id, assigned_to=assigned_to)
    else:
        from chalicelib.areas.meetings import service as meetings_service

        meetings_service.reassigned_in_action_centre(ctx, item_id=item.source_id, assignee_id=assigned_to)
    lock_row(ctx.db, ActionItem, item.id, missing="Action item")


def update_item(ctx, *, item_id: str, data) -> dict:
    """Urgency is recomputed when due_date changes and urgency is not given. A new assignee of an item mirrored
    from a relationship action or a meeting's action item is given to that source too, or refused (400) when the
    source cannot take it (`_reassign_source`)."""
    item = load_action_item(ctx, item_id)
    changes = data.changes()
    if "assigned_to" in changes and changes["assigned_to"] is None:
        raise bad_field("assigned_to", "may not be null")
    # an assignee sent back as stored is not checked again (an item whose assignee was deactivated since can be
    # sent back as it was read), as the other areas' references
    if changes.get("assigned_to") != item.assigned_to:
        _check_references(ctx, {"assigned_to": changes.get("assigned_to")})
    today = org_today()
    if "due_date" in changes and "urgency" not in changes and changes["due_date"] != item.due_date:
        changes["urgency"] = urgency_for(changes["due_date"], today)
    if "urgency" in changes:
        changes["urgency_on"] = today  # written today: reads answer it until the day (or the refresh) moves on
    reassigned = "assigned_to" in changes and changes["assigned_to"] != item.assigned_to
    if reassigned and item.source_id and item.source_module in ("relationships", "meetings"):
        _reassign_source(ctx, item, changes["assigned_to"])  # the source's row locked, then this one (re-read)
        reassigned = changes["assigned_to"] != item.assigned_to
    for key, value in changes.items():
        setattr(item, key, value)
    ctx.db.flush()
    if reassigned:
        _notify_assigned(ctx, item)
    return item_record(ctx.db, item.id, names=_sees_deals(ctx))


def complete_item(ctx, *, item_id: str) -> None:
    """Marks the item completed (again: no change). An item mirrored from a relationship action marks that
    action done (relationships service); an item raised for a meeting's action item marks that item done, unless
    it is done or dismissed already (meetings service, session 22); an item from chat or mail is unstarred at its
    source by the actions agent after commit (agents service; docs/decisions/action_items.md). Completing again an
    item whose last unstar failed asks the agent again (`retry_unstar`, session 26); otherwise nothing."""
    from chalicelib.areas.agents import service as agents_service
    from chalicelib.areas.relationships import service as relationships_service

    item = load_action_item(ctx, item_id)
    from_relationship = item.source_module == "relationships" and bool(item.source_id)  # set at creation, never edited
    if from_relationship:  # one order of the two rows on every path: the relationship action, then its item
        relationships_service.lock_for_action_centre(ctx, action_id=item.source_id)
    if item.source_module == "meetings" and item.source_id:
        from chalicelib.areas.meetings import service as meetings_service  # loaded only for a meeting's item

        # the meeting's item before this row, as the meetings side takes them (its status change locks its item,
        # then writes this one): one UPDATE that locks the meeting's item only when it writes it (pending -> done).
        # On an item completed already it changes nothing: its meeting's item is done or dismissed (reopening that
        # at the meeting reopens this one).
        meetings_service.completed_in_action_centre(ctx, item_id=item.source_id)
    lock_row(ctx.db, ActionItem, item.id, missing="Action item")  # re-read under the lock: a completion that waited for another
    if item.is_completed:                  # changes nothing and asks the source nothing, unless its unstar failed
        retry_unstar(ctx, item)
        return
    item.is_completed = True
    ctx.db.flush()
    if from_relationship:
        relationships_service.completed_in_action_centre(ctx, action_id=item.source_id)
    agents_service.unstar_at_source(ctx, action_item_id=item.id, source_module=item.source_module,
                                    source_type=item.source_type, source_id=item.source_id)



def retry_unstar(ctx, item: ActionItem) -> bool:
    """A completed item from chat or mail whose latest unstar outcome is `unstar_failed` (one statement) is
    unstarred at its source again, after commit, as at its first completion (agents service `unstar_at_source`): an
    `unstar_retried` entry goes on its history with the commit, and a new failure is recorded after it as at the
    first ask (so a retry with no failure after it succeeded). Anything else (never failed, retried with success, not
    from chat or mail) asks nothing. The caller holds the item's row lock: two retries take turns and the second finds
    `unstar_retried` (session 26, dead-end states audit: a failed unstar was never asked again). Answers whether the
    agent is asked. Also called by the hourly job `action-items-unstar-retry` (jobs.retry_unstar)."""
    from chalicelib.areas.agents import service as agents_service
    from chalicelib.core import history

    if (item.source_module not in agents_service.UNSTAR_SOURCES
            or latest_unstar_outcome(ctx.db, item.id) != "unstar_failed"):
        return False
    history.record(ctx.db, entity_type="action_item", entity_id=item.id, action="unstar_retried",
                   actor_id=ctx.user_id, changes={"source_module": item.source_module, "source_id": item.source_id})
    ctx.db.flush()
    return agents_service.unstar_at_source(ctx, action_item_id=item.id, source_module=item.source_module,
                                           source_type=item.source_type, source_id=item.source_id)


def unstar_retry_candidates(db, *, before, attempts: int, limit: int) -> list[tuple[str, str | None]]:
    """`(item_id, actor_id)` of the completed chat and mail items whose last unstar failed before `before`, with
    fewer than `attempts` failures (queries.failed_unstars), for the hourly retry job."""
    from chalicelib.areas.agents import service as agents_service

    return failed_unstars(db, sources=agents_service.UNSTAR_SOURCES, before=before, attempts=attempts, limit=limit)


def retry_unstar_of(ctx, item_id: str) -> bool:
    """The job's retry of one item: its row locked and read again (a completion or another run may have asked in
    the meantime), then `retry_unstar`. An item gone or reopened since asks nothing."""
    item = lock_row(ctx.db, ActionItem, item_id)
    return item is not None and item.is_completed and retry_unstar(ctx, item)

# ---------------------------------------------------------------- items other areas keep here

def create_source_items(ctx, items: list[dict]) -> list[dict]:
    """Items mirrored from another area's records (e.g. relationship actions: source_module `relationships`,
    source_id the action's id), urgency from due_date; one INSERT whatever their number. Answers the rows as
    inserted (with their ids), in the order given."""
    from chalicelib.core.locks import insert_rows

    today = org_today()
    return insert_rows(ctx.db, ActionItem, [{**item, "is_completed": False, "urgency_on": today,
                                             "urgency": urgency_for(item.get("due_date"), today)} for item in items])


def complete_source_items(ctx, *, source_module: str, source_ids: list[str]) -> None:
    """The source completed its records: their mirrored items are completed (one UPDATE, no call back)."""
    if source_ids:
        ctx.db.execute(update(ActionItem).where(ActionItem.source_module == source_module,
                                                ActionItem.source_id.in_(source_ids))
                       .values(is_completed=True).execution_options(synchronize_session=False))


def delete_source_items(ctx, *, source_module: str, source_ids: list[str]) -> None:
    """The source deleted its records: their mirrored items go with them, completed or not (one DELETE, no call
    back). The caller locked the source records first: the one order of the two rows (the source, then its item)."""
    if source_ids:
        ctx.db.execute(delete(ActionItem).where(ActionItem.source_module == source_module,
                                                ActionItem.source_id.in_(source_ids))
                       .execution_options(synchronize_session=False))


def delete_item(ctx, *, item_id: str) -> None:
    item = load_deletable_item(ctx, item_id)
    if item.source_module != "manual":
        raise BadRequest("Only manual action items can be deleted")
    if item.created_by != ctx.user_id and not ctx.can("action-centre", "manage"):
        raise Forbidden("Only the creator or a manager of the action centre may delete this item")
    ctx.db.delete(item)
    ctx.db.flush()


# ---------------------------------------------------------------- the action centre

CENTRE_TASK_FIELDS = ("id", "title", "sprint_id", "parent_task_id", "status_id", "priority_id", "type_id",
                      "assignee_id", "due_date", "start_date", "sort_order", "created_at", "status_label",
                      "status_color", "status_value", "priority_label", "priority_color", "type_label",
                      "assignee_name", "assignee_picture")


def _board_tasks(ctx, tasks: list[dict], sprint_project_id: str) -> list[dict]:
    """The work board's view of task records, with the type colour and project and company names (three
    statements for both lists together). A task linked to no project is shown in the sprint's project. Names come
    only from projects in the caller's scope: a task of a project they may not see (planned into this sprint by
    someone who may) keeps its project_id, with null project and company names (audit 7)."""
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.areas.projects import service as projects_service
    from chalicelib.core.lookup import names as lookup_names

    projects = {t["id"]: t["resource_id"] if t.get("resource_type") == "project" else sprint_project_id
                for t in tasks}
    found = lookup_names(ctx.db, item_ids=[t["type_id"] for t in tasks])
    briefs = projects_service.project_companies(ctx.db, projects.values(), principal=ctx.principal)
    companies = deals_service.company_names(ctx.db, [company for _, company in briefs.values()]) \
        if _sees_deals(ctx) else {}
    out = []
    for task in tasks:
        project_id = projects.get(task["id"])
        name, company_id = briefs.get(project_id, (None, None))
        out.append({**{key: task.get(key) for key in CENTRE_TASK_FIELDS},
                    "type_color": found.item(task["type_id"])["color"], "project_id": project_id,
                    "project_name": name, "company_name": companies.get(company_id)})
    return out


def centre(ctx, query, list_query) -> dict:
    """The action centre in one payload: the first page of open items, counts, preferences, whether the work
    board shows, the sprint (`sprint_id` or the caller's most recent active sprint), its tasks and its
    project's backlog, and the sprints before and after it. A constant number of statements."""
    from chalicelib.areas.projects import service as projects_service
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.areas.sprints import service as sprints_service
    from chalicelib.areas.tasks import service as tasks_service

    prefs = preferences(ctx)
    # the work board shows other areas' records, each with its tool at view besides its scope (session 29: a holder
    # of action-centre whose tasks, projects or deals permission is none was shown them): a sprint is the projects
    # tool's (its routes'), the board's tasks the tasks tool's, company names the deals tool's
    if ctx.can("projects", "view"):
        sprint, previous, following = sprints_service.centre_sprints(ctx, query.sprint_id)
    elif query.sprint_id:
        raise not_found("Sprint")
    else:
        sprint, previous, following = None, None, None
    sprint_tasks, backlog_tasks, summary = [], [], None
    if sprint is not None:
        if ctx.can("tasks", "view"):
            sprint_tasks, backlog_tasks = tasks_service.sprint_board(ctx, sprint["id"], sprint["project_id"])
        # the sprint was read in the caller's scope (or among the projects they own or belong to), so its project is
        # theirs to see; the scope is applied all the same, in the same statement
        project_name, company_id = projects_service.project_companies(
            ctx.db, [sprint["project_id"]], principal=ctx.principal).get(sprint["project_id"], (None, None))
        company = deals_service.company_names(ctx.db, [company_id]).get(company_id) \
            if company_id and _sees_deals(ctx) else None
        summary = {key: sprint[key] for key in ("id", "name", "start_date", "end_date", "status", "project_id")}
        summary.update(project_name=project_name, company_name=company)
        boards = _board_tasks(ctx, sprint_tasks + backlog_tasks, sprint["project_id"])
        sprint_tasks, backlog_tasks = boards[:len(sprint_tasks)], boards[len(sprint_tasks):]
    today = org_today()  # one day for the list and the counts
    return {"action_items": list_items(ctx, list_query, today)["action_items"], "counts": counts(ctx, today),
            "preferences": prefs,
            # no preferences: the role default shows the board; otherwise any module asking for it shows it
            "show_work_board": not prefs or any(pref["show_work_board"] for pref in prefs),
            "current_sprint": summary, "sprint_tasks": sprint_tasks, "backlog_tasks": backlog_tasks,
            "sprint_adjacent": {"previous": previous, "next": following}}


# ---------------------------------------------------------------- items other areas raise

def create_sourced_items(ctx, items: list[dict], *, source_module: str, source_type: str) -> int:
    """Items raised by another area (for example the meetings sync), in one INSERT: each `{title,
    assigned_to, source_id}` (description, project_id, company_id optional). Answers how many."""
    from chalicelib.core.locks import insert_rows

    rows = [{"title": item["title"][:500], "description": item.get("description"), "assigned_to": item["assigned_to"],
             "project_id": item.get("project_id"), "company_id": item.get("company_id"), "created_by": None,
             "source_module": source_module, "source_type": source_type, "source_id": item["source_id"],
             "urgency": "normal", "urgency_on": org_today(), "is_completed": False} for item in items]
    insert_rows(ctx.db, ActionItem, rows)
    return len(rows)


def set_sourced_completed(ctx, *, source_module: str, source_ids: list[str], completed: bool) -> None:
    """Complete (or reopen) the items another area raised for these source records: one UPDATE."""
    from sqlalchemy import update

    if source_ids:
        ctx.db.execute(update(ActionItem).where(ActionItem.source_module == source_module,
                                                ActionItem.source_id.in_(source_ids))
                       .values(is_completed=completed).execution_options(synchronize_session=False))
