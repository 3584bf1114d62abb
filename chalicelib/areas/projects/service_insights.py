"""Project views built from other areas: top-level tasks, AI summary, linked deal."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import BadGateway, BadRequest, Conflict, GatewayTimeout, ServiceUnavailable, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row
from chalicelib.core.query import Page
from chalicelib.core.serialize import value_out

from chalicelib.core.schemas import PageQuery

from .models import Project, ProjectAISummary, ProjectDealLink
from .queries import goal_select, load_project, member_select, project_record


def project_tasks(ctx, *, project_id: str, query):
    from chalicelib.areas.tasks import service as tasks_service

    load_project(ctx, project_id)
    if not ctx.can("tasks", "view"):
        # a task is seen with `tasks:view` and inside the caller's task scope (session 29: a head whose tasks
        # permission is none read every task of the project here, through the row scope alone): none to list
        return Page(items=[], total=0, limit=query.limit, offset=query.offset)
    return tasks_service.project_tasks(ctx.db, project_id, query, visible_to=ctx.principal)


# ---------------------------------------------------------------- AI summary

def _summary_record(summary: ProjectAISummary) -> dict:
    return {"id": summary.id, "project_id": summary.project_id, "summary_text": summary.summary_text,
            "recommendations": list(summary.recommendations or []), "generated_at": value_out(summary.generated_at)}


def get_summary(ctx, *, project_id: str) -> dict | None:
    """The stored summary, when the caller sees every task it may have been built from (`_reads_what_it_told`);
    null otherwise, as when none is stored."""
    project = load_project(ctx, project_id)
    summary = ctx.db.scalar(select(ProjectAISummary).where(ProjectAISummary.project_id == project_id))
    if summary is None or not _reads_what_it_told(ctx, project, summary.generated_by):
        return None
    return _summary_record(summary)


def _client(company_id: str | None) -> list[str]:
    """The companies whose requests the project's summary may be built from (tasks' `_filed_for`): its client's; a
    project with no company, none (a request filed while it had one is not its fact)."""
    return [company_id] if company_id else []


def _reads_what_it_told(ctx, project: Project, generated_by: str | None) -> bool:
    """Whether the caller sees every task the stored summary may have been built from: the project's top-level,
    non-private tasks of its client (`summary_facts`) inside its generator's task scope (session 28: an executive's
    summary quoted to an employee member tasks that answer them 404). Nothing to ask of a caller who sees every task
    or generated it; otherwise the generator's principal (none when deactivated or removed: then every such task of
    the project counts) and one grouped statement of those tasks outside the caller's scope."""
    from chalicelib.core import scoping

    # a caller without `tasks:view` reads no task (session 29): only a summary that may have been built from none
    reads_tasks = ctx.can("tasks", "view")
    if reads_tasks and (scoping.sees_all(ctx.principal) or generated_by == ctx.user_id):
        return True
    from chalicelib.areas.tasks import service as tasks_service
    from chalicelib.core.auth import principals_of

    generator = principals_of(ctx.db, [generated_by]).get(generated_by) if generated_by else None
    client = _client(project.company_id)
    hidden = tasks_service.portal_task_counts_select([project.id], lambda column: column.in_(client),
                                                     visible_to=generator,
                                                     hidden_from=ctx.principal if reads_tasks else None)
    return ctx.db.execute(hidden).first() is None


def summary_facts(ctx, project: Project) -> dict:
    """What the AI provider is told: today's date, the project's details, active members, top-level tasks and goals.
    The stored summary is shown to the client in the portal too, so it is built from what the portal shows (session
    28): no private task (security audit S4), no request of another client (tasks' `_filed_for`, session 24), no
    former staff named (owner, delivery manager, members or assignees deactivated: null or left out, as the portal
    does, session 25); and from the caller's task scope (its readers: `_reads_what_it_told`). Three statements: the
    project with its members, goals and active leads; the tasks (a page and its count)."""
    from sqlalchemy import or_

    from chalicelib.areas.tasks import service as tasks_service
    from chalicelib.core.models import User
    from chalicelib.core.timeutil import org_today, org_zone

    active_leads = (select(User.id).join(Project, or_(Project.owner_id == User.id,
                                                      Project.delivery_manager_id == User.id))
                    .where(Project.id == project.id, User.is_active.is_(True)))
    record, sets = project_record(ctx, project.id, also={
        "members": member_select(project.id, active_only=True), "goals": goal_select(project.id),
        "active": active_leads})
    active = {row["id"] for row in sets["active"]}
    # the AI reads the first 500 of them
    # none to a caller without `tasks:view`, who reads no task (session 29)
    tasks = tasks_service.portal_tasks(ctx.db, project.id, PageQuery(), companies=_client(project.company_id),
                                       top_level=True, visible_to=ctx.principal).items \
        if ctx.can("tasks", "view") else []
    return {
        "today": org_today().isoformat(), "time_zone": org_zone().key,
        "name": record["name"], "description": record["description"], "status": record["status"],
        "type": record["type_label"], "company": record["company_name"], "squad": record["squad"],
        "owner": record["owner_name"] if record["owner_id"] in active else None,
        "delivery_manager": record["delivery_manager_name"] if record["delivery_manager_id"] in active else None,
        "start_date": record["start_date"], "end_date": record["end_date"],
        "members": [{"name": m["name"], "role": m["role"], "job_title": m["job_title"]} for m in sets["members"]],
        "tasks": [{"title": t.get("title"), "status_value": t.get("status_value"), "status": t.get("status_label"),
                   "priority": t.get("priority_label"), "due_date": value_out(t.get("due_date")),
                   "assignee": t.get("assignee_name")} for t in tasks],
        "goals": [{"title": g["title"], "status": g["status"], "due_date": g["due_date"]} for g in sets["goals"]],
    }


def generate_summary(ctx, *, project_id: str) -> dict:
    """Generates and stores the project's summary, replacing the previous one (503 off, 502 failed: also a provider
    that timed out or kept rate limiting)."""
    from chalicelib.providers.ai import get_ai

    from chalicelib.core.allowance import allow

    project = load_project(ctx, project_id)
    ai = get_ai()
    allow(ctx, "ai_summary")  # 429 past the caller's hourly allowance (docs/decisions/projects.md)
    company_id = project.company_id
    facts = summary_facts(ctx, project)
    ctx.release_connection()  # no transaction is held open while the provider answers
    try:
        result = ai.project_summary(facts)
    except (GatewayTimeout, ServiceUnavailable) as exc:
        # the provider is configured (resolved above): a timeout or a rate limit it kept up is a failed generation,
        # 502 as document 1 says ("503 if the AI capability is not configured; 502 if generation fails"); a rate
        # limit keeps its `retry_after`
        raise BadGateway(f"AI summary generation failed: {exc.message}", extra=exc.extra) from exc
    # the project's row is locked before the stored summary is read: concurrent first summaries take turns, the
    # later one replacing the earlier's (not a 409 from the unique project_id); a project deleted meanwhile is 404
    project = lock_row(ctx.db, Project, project_id)
    if project is None:
        raise not_found("Project")
    if project.company_id != company_id:
        # moved to another client while the provider answered: the facts named the first client's requests, and the
        # move dropped that client's summary (session 28); nothing is stored
        raise Conflict("The project moved to another client while its summary was generated: generate it again")
    summary = ctx.db.scalar(select(ProjectAISummary).where(ProjectAISummary.project_id == project_id))
    if summary is None:
        summary = ProjectAISummary(project_id=project_id)
        ctx.db.add(summary)
    summary.summary_text = result["summary"]
    summary.recommendations = list(result["recommendations"])
    summary.generated_by = ctx.user_id
    summary.generated_at = utcnow()
    ctx.db.flush()
    return _summary_record(summary)


# ---------------------------------------------------------------- linked deal

def _link_record(ctx, link: ProjectDealLink | None) -> dict | None:
    if link is None:
        return None
    from chalicelib.areas.deals import service as deals_service

    # the deal's title and status only to a caller who may view deals (session 29, as meetings' names, session 28)
    deal = (deals_service.deal_brief(ctx.db, link.deal_id) or {}) if ctx.can("deals", "view") else {}
    return {"id": link.id, "project_id": link.project_id, "deal_id": link.deal_id,
            "deal_title": deal.get("title"), "deal_status": deal.get("status"),
            "linked_by": link.linked_by, "created_at": value_out(link.created_at)}


def get_deal_link(ctx, *, project_id: str) -> dict | None:
    load_project(ctx, project_id)
    return _link_record(ctx, ctx.db.scalar(select(ProjectDealLink).where(ProjectDealLink.project_id == project_id)))


def set_deal_link(ctx, *, project_id: str, data) -> dict | None:
    """`{deal_id}` links (replacing any previous link), `{deal_id: null}` unlinks."""
    load_project(ctx, project_id)
    if "deal_id" not in data.model_fields_set:
        raise BadRequest("deal_id is required (null to unlink)",
                         details=[{"field": "deal_id", "message": "Field required"}])
    # one link change at a time per project (its row locked before the link is read): concurrent first links
    # replace each other instead of both inserting (a 409 from the unique project_id)
    if lock_row(ctx.db, Project, project_id) is None:
        raise not_found("Project")
    link = ctx.db.scalar(select(ProjectDealLink).where(ProjectDealLink.project_id == project_id))
    if data.deal_id is None:
        if link is not None:
            ctx.db.delete(link)
            ctx.db.flush()
        return None
    from chalicelib.areas.deals import service as deals_service

    # a deal the caller can see: `deals:view` and an existing deal (session 29), else the answer of a missing one
    if not deals_service.deal_seen(ctx, data.deal_id):
        raise BadRequest("deal_id does not match a deal", details=[{"field": "deal_id", "message": "no deal has this id"}])
    if link is None:
        link = ProjectDealLink(project_id=project_id, deal_id=data.deal_id, linked_by=ctx.user_id)
        ctx.db.add(link)
    elif link.deal_id != data.deal_id:
        link.deal_id = data.deal_id
        link.linked_by = ctx.user_id
        link.created_at = utcnow()
    ctx.db.flush()
    return _link_record(ctx, link)
