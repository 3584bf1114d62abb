"""Client requests and the client questionnaire. A request becomes a task in a project of the company (SLA
assigned by the tasks area through the SLA area when the project has a policy) and notifies the delivery
manager; the questionnaire stores the client's answers, replaces the goals it created before, and notifies
the delivery manager on its first completion only."""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import delete, func, select

from chalicelib.core.errors import BadRequest, bad_field
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_rows, lock_key
from chalicelib.core.models import ConfigList, ConfigListItem
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.serialize import clipped, row_dict

from .models import ClientGoal, ClientQuestionnaire
from .queries import QUESTIONNAIRE_FIELDS, company_contact, goal_record, submitted_just_now


def _priority_id(db, value: str | None) -> str | None:
    if not value:
        return None
    # a value in any letter case, as a list's values are unique (config_lists, session 32); the exact one first where
    # a list made before holds two spellings
    value = value.strip()
    item = db.scalar(select(ConfigListItem.id).join(ConfigList, ConfigList.id == ConfigListItem.list_id)
                     .where(ConfigList.key == "task_priority", func.lower(ConfigListItem.value) == value.lower())
                     .order_by(ConfigListItem.value != value, ConfigListItem.position, ConfigListItem.id).limit(1))
    if item is None:
        raise bad_field("priority", "must be a task priority value")
    return item


def _delivery_manager(ctx, project: dict | None = None, *, watches: bool = False) -> str | None:
    """Who watches a client's request and hears of it (and of the questionnaire), one statement: in a project, the
    manager the projects area derives for its requests (`request_manager`: the first ACTIVE of the project's
    delivery manager, the client profile's, the project's owner, the company's owner), the one its breach and
    re-derived watches follow; else the company's (queries.company_contact). A manager deactivated since being
    named no longer leaves the request unwatched and untold (session 25), nor does a project or client with no
    active manager (session 25, audit "events that reach nobody"). Session 26: one chain, the projects area's,
    where the portal had written the same one again."""
    from chalicelib.areas.projects import service as projects_service  # another area: imported lazily

    if project:
        return projects_service.request_manager(ctx.db, project["id"])
    if watches:  # a request in no project: its company's half of the same chain (session 26)
        return projects_service.company_request_manager(ctx.db, ctx.portal.company_id)
    return company_contact(ctx.db, ctx.portal.company_id)


def _filed_just_now(ctx, requester: str | None, project: dict | None, data) -> str | None:
    """The task of a request identical to this one (same title and description, same project, or none) that the
    same portal user of the company filed within DOUBLE_SUBMIT, or None (queries.submitted_just_now)."""
    from chalicelib.areas.tasks import service as tasks_service  # another area: imported lazily

    Task = tasks_service.Task
    resource = ("project", project["id"]) if project else ("company", ctx.portal.company_id)
    return submitted_just_now(ctx, requester, "task", Task, Task.resource_type == resource[0],
                              Task.resource_id == resource[1], Task.title == data.title,
                              Task.description.is_not_distinct_from(data.description))


def create_request(ctx, *, data) -> str:
    from chalicelib.core.allowance import allow
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    from chalicelib.areas.projects import service as projects_service
    from chalicelib.areas.tasks import service as tasks_service

    project = None
    if data.projectId:  # optional (document 3): without it the task is the company's, no project's
        # share-locked (as a staff task create's link_project): a request filed while staff delete the project waits
        # for the delete and finds the project missing, instead of leaving a task on a deleted project (session 24)
        project = projects_service.portal_project_to_name(ctx.db, [ctx.portal.company_id], data.projectId)
        if project is None:
            raise bad_field("projectId", "must be a project of the company")
    priority_id = _priority_id(ctx.db, data.priority)
    requester = ctx.portal.user_id or data.portalUserId  # the header (set by the portal from its session) wins
    # a double submit (the same request by the same portal user within DOUBLE_SUBMIT) answers the task already made
    # and writes and tells nothing (session 27); under the company's lock, so that two at once are one after the other
    lock_key(ctx.db, "portal-request", ctx.portal.company_id)
    filed = _filed_just_now(ctx, requester, project, data)
    if filed:
        return filed
    # each request is a new task and its manager told by e-mail and chat: 30 an hour per company, 429 past it,
    # counted before the write (session 26); a double submit answered above counts nothing (session 27)
    allow(ctx, "portal_request", ctx.portal.company_id)
    manager = _delivery_manager(ctx, project, watches=True)
    # the delivery manager watches the task: the notice's link opens it for them (tasks scoping: a watched task)
    task_id = tasks_service.create_request_task(
        ctx, project_id=project["id"] if project else None, company_id=ctx.portal.company_id, title=data.title,
        description=data.description, priority_id=priority_id,
        sla_policy_id=project.get("sla_policy_id") if project else None,
        actor_label=f"portal:{requester}" if requester else "portal", watcher_id=manager)
    from .service_notifications import record_submission

    record_submission(ctx, record_type="task", record_id=task_id, portal_user_id=requester)
    if manager:
        # the request's text and link: the manager is an active reader of tasks (the chain passes over any other,
        # session 26) and watches the task, so it is in their scope and the link opens for them
        notify(ctx, user_id=manager, type="portal_request", title=f"Client request: {data.title}",
               body=clipped(data.description or "", 500) or None, resource_type="task", resource_id=task_id,
               action_url=f"/tasks/{task_id}")
    return task_id


# ---------------------------------------------------------------- questionnaire

def get_questionnaire(ctx) -> dict:
    """The client's answers (nulls before the first completion) and its client goals."""
    row = ctx.db.get(ClientQuestionnaire, ctx.portal.company_id)
    answers = row_dict(row, QUESTIONNAIRE_FIELDS) if row else {field: None for field in QUESTIONNAIRE_FIELDS}
    # all of them: a client holds at most LIST_LIMIT (500; session 26), and the read stopped at 200 unsaid
    goals = ctx.db.scalars(select(ClientGoal).where(ClientGoal.company_id == ctx.portal.company_id)
                           .order_by(ClientGoal.created_at, ClientGoal.id).limit(LIST_LIMIT))
    return {"company_id": ctx.portal.company_id, **answers, "completed": 1 if row and row.completed_at else 0,
            "goals": [goal_record(g) for g in goals]}


PCT_FIELDS = ("channel_online_pct", "channel_instore_pct", "channel_wholesale_pct")
TEXT_FIELDS = ("financial_year_start", "financial_year_end", "key_trading_periods", "celebration_vision",
               "growth_priorities_text", "company_direction_text")


def _check_percentages(values: dict, row: ClientQuestionnaire | None) -> None:
    """The channel percentages as they will be stored: those sent, and the answers kept that were not sent."""
    kept = {name: getattr(row, name) for name in PCT_FIELDS if row is not None and name not in values}
    given = {name: value for name, value in {**values, **kept}.items()
             if name in PCT_FIELDS and value is not None}
    total = sum(given.values(), Decimal(0))
    if len(given) == len(PCT_FIELDS) and total != 100:
        raise _percentages_refused(values, "the three channel percentages must add up to 100")
    if total > 100:
        raise _percentages_refused(values, "the channel percentages must not add up to more than 100")


def _percentages_refused(values: dict, message: str) -> BadRequest:
    """The 400 of percentages that do not add up, one detail for each percentage the request sent with a value: the
    fields the client can change (session 32: it named channel_online_pct whatever was sent). A sum only fails when
    one of them was sent with a value; the three are named should the stored answers alone not add up."""
    sent = [name for name in PCT_FIELDS if values.get(name) is not None] or list(PCT_FIELDS)
    return BadRequest(message[0].upper() + message[1:], details=[{"field": name, "message": message} for name in sent])


def submit_questionnaire(ctx, *, data) -> None:
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    company_id = ctx.portal.company_id
    values = data.changes()
    lock_key(ctx.db, "portal-questionnaire", company_id)
    if data.goals is not None:  # the company's other goals and the new ones: at most 500 (session 26)
        from .service_qbrs import check_goal_room

        check_goal_room(ctx.db, company_id, len(data.goals), ClientGoal.source != "questionnaire")
    row = ctx.db.get(ClientQuestionnaire, company_id)
    _check_percentages(values, row)
    first = row is None or row.completed_at is None
    if row is None:
        row = ClientQuestionnaire(company_id=company_id)
        ctx.db.add(row)
    for name in (*TEXT_FIELDS, *PCT_FIELDS):
        if name in values:
            setattr(row, name, values[name])
    row.completed_by = ctx.portal.user_id or data.portalUserId or row.completed_by
    row.completed_at = row.completed_at or utcnow()
    row.updated_at = utcnow()
    ctx.db.flush()
    if data.goals is not None:  # the questionnaire's goals replace those it created before (one DELETE, one INSERT)
        ctx.db.execute(delete(ClientGoal).where(ClientGoal.company_id == company_id,
                                                ClientGoal.source == "questionnaire"))
        insert_rows(ctx.db, ClientGoal, [
            {"company_id": company_id, "metric": goal.metric, "metric_key": goal.metric_key,
             "metric_label": goal.metric_label, "target": goal.target, "unit": goal.unit, "period": goal.period,
             "source": "questionnaire", "created_by": row.completed_by} for goal in data.goals])
    manager = _delivery_manager(ctx) if first else None  # read only when it is told: the first completion
    if manager:
        from .service_connection_notices import company_readers

        # the company's link only to one who may open it (session 26, as a connection's notice: the company's owner
        # or the profile's manager may hold deals at none, and the link answered them 403)
        named = manager in company_readers(ctx.db, {company_id: {manager}}).get(company_id, ())
        notify(ctx, user_id=manager, type="portal_questionnaire", title="A client completed the questionnaire",
               resource_type="company", resource_id=company_id,
               action_url=f"/companies/{company_id}" if named else None)

