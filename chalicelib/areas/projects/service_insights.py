"""Project views built from other areas: top-level tasks, AI summary, linked deal."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import BadGateway, BadRequest, GatewayTimeout, ServiceUnavailable, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row
from chalicelib.core.serialize import value_out

from chalicelib.core.schemas import PageQuery

from .models import Project, ProjectAISummary, ProjectDealLink
from .queries import goal_records, load_project, member_records, project_record


def project_tasks(ctx, *, project_id: str, query):
    from chalicelib.areas.tasks import service as tasks_service

    load_project(ctx, project_id)
    return tasks_service.project_tasks(ctx.db, project_id, query, visible_to=ctx.principal)


# ---------------------------------------------------------------- AI summary

def _summary_record(summary: ProjectAISummary | None) -> dict | None:
    if summary is None:
        return None
    return {"id": summary.id, "project_id": summary.project_id, "summary_text": summary.summary_text,
            "recommendations": list(summary.recommendations or []), "generated_at": value_out(summary.generated_at)}


def get_summary(ctx, *, project_id: str) -> dict | None:
    load_project(ctx, project_id)
    return _summary_record(ctx.db.scalar(select(ProjectAISummary).where(ProjectAISummary.project_id == project_id)))


def summary_facts(ctx, project_id: str) -> dict:
    """What the AI provider is told: the project's details, members, top-level tasks and goals."""
    from chalicelib.areas.tasks import service as tasks_service

    project = project_record(ctx, project_id)
    # the AI reads the first 500 of the tasks the caller may see, never a private one: the stored summary is also
    # shown to the client in the portal, which never shows a private task (security audit S4)
    tasks = tasks_service.project_tasks(ctx.db, project_id, PageQuery(), visible_to=ctx.principal,
                                        public_only=True).items
    return {
        "name": project["name"], "description": project["description"], "status": project["status"],
        "type": project["type_label"], "company": project["company_name"], "squad": project["squad"],
        "owner": project["owner_name"], "delivery_manager": project["delivery_manager_name"],
        "start_date": project["start_date"], "end_date": project["end_date"],
        "members": [{"name": m["name"], "role": m["role"], "job_title": m["job_title"]}
                    for m in member_records(ctx.db, project_id=project_id)],
        "tasks": [{"title": t.get("title"), "status_value": t.get("status_value"), "status": t.get("status_label"),
                   "priority": t.get("priority_label"), "due_date": value_out(t.get("due_date")),
                   "assignee": t.get("assignee_name")} for t in tasks],
        "goals": [{"title": g["title"], "status": g["status"], "due_date": g["due_date"]}
                  for g in goal_records(ctx.db, project_id=project_id)],
    }


def generate_summary(ctx, *, project_id: str) -> dict:
    """Generates and stores the project's summary, replacing the previous one (503 off, 502 failed: also a provider
    that timed out or kept rate limiting)."""
    from chalicelib.providers.ai import get_ai

    from chalicelib.core.allowance import allow

    load_project(ctx, project_id)
    ai = get_ai()
    allow(ctx, "ai_summary")  # 429 past the caller's hourly allowance (docs/decisions/projects.md)
    facts = summary_facts(ctx, project_id)
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
    if lock_row(ctx.db, Project, project_id) is None:
        raise not_found("Project")
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

    deal = deals_service.deal_brief(ctx.db, link.deal_id) or {}
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

    if deals_service.deal_brief(ctx.db, data.deal_id) is None:
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
