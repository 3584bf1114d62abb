"""The portal's contracts (by signer e-mail, group-aware) and the client's onboarding progress, read through
the clients, deals and onboarding areas' services."""
from __future__ import annotations

from chalicelib.core.query import LIST_LIMIT


def contracts(ctx) -> list[dict]:
    """Contracts (drafts aside) of which any signer's e-mail is the e-mail of a contact of the company or of
    its honoured group companies, compared without case, and that are the company's (or its group's) or no
    company's."""
    from chalicelib.areas.clients import service as clients_service
    from chalicelib.areas.deals import service as deals_service

    emails = deals_service.company_contact_emails(ctx.portal.company_ids)
    return clients_service.portal_contracts(ctx.db, emails, LIST_LIMIT, company_ids=ctx.portal.company_ids)


EMPTY_ONBOARDING = {"template": None, "stages": [], "total_milestones": 0, "completed_milestones": 0,
                    "completion_percentage": 0, "current_stage_type": None, "started_at": None, "completed_at": None}


def onboarding(ctx) -> dict:
    """The company's onboarding progress in the portal's shape; the empty shape (nulls and zeros) before the
    agency starts it (a read never starts it). completion_percentage is the staff view's percent_complete
    (required milestones, all when none is required); the milestone counts count every milestone. No staff
    user ids or auto sources."""
    from chalicelib.areas.onboarding import service as onboarding_service

    progress = onboarding_service.company_progress(ctx, company_id=ctx.portal.company_id)
    if progress is None:
        return dict(EMPTY_ONBOARDING)
    stages, total, done = [], 0, 0
    for stage in progress["stages"]:
        milestones = [{key: m[key] for key in ("id", "title", "description", "is_required", "sort_order",
                                               "completed_at")} for m in stage["milestones"]]
        total += len(milestones)
        done += sum(1 for m in milestones if m["completed_at"])
        stages.append({**{key: stage[key] for key in ("id", "name", "stage_type", "color", "sort_order")},
                       "milestones": milestones})
    current = progress["current_stage"]
    return {"template": {"id": progress["template_id"], "name": progress["template_name"]}, "stages": stages,
            "total_milestones": total, "completed_milestones": done,
            "completion_percentage": progress["percent_complete"],
            "current_stage_type": current["stage_type"] if current else None,
            "started_at": progress["started_at"], "completed_at": progress["completed_at"]}
