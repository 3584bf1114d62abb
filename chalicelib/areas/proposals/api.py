"""Proposals (decisions.md section 5; tool `proposals`: view reads, update writes, manage deletes) and the
public viewer under /api/proposals/public/{share_token} (no token: the share token addresses the proposal)."""
from chalice import Blueprint, Rate

from chalicelib.core.http import endpoint, json_response
from chalicelib.core.schemas import OkResponse, one, paged

from . import jobs, service, service_pricing, service_public, service_templates
from .schemas import (AnalyticsResponse, ApproveBody, CreatedProposal, DeclineBody, DuplicateResponse, ProposalTemplateCreated,
                      PricingReplace, PricingResponse, ProposalCreate, ProposalDetail, ProposalListItem, ProposalListQuery,
                      ProposalUpdate, PublicContent, RequestChangesBody, RespondBody, ShareBody, ShareResponse,
                      ProposalAnswerResponse, ProposalTemplateCreate, ProposalTemplateDetail, ProposalTemplateListItem, ProposalTemplateListQuery, ProposalTemplateUpdate,
                      TrackBody, VerifyBody)

bp = Blueprint(__name__)


# ---------------------------------------------------------------- templates

@bp.route("/api/proposals/templates", methods=["GET"])
@endpoint(tool="proposals", level="view", query=ProposalTemplateListQuery, response=paged("templates", ProposalTemplateListItem))
def list_proposal_templates(ctx, query: ProposalTemplateListQuery):
    """List the active proposal templates by name (filter: category)"""
    return service_templates.list_templates(ctx, query).body("templates")


@bp.route("/api/proposals/templates", methods=["POST"])
@endpoint(tool="proposals", level="update", body=ProposalTemplateCreate, status=201, response=ProposalTemplateCreated)
def create_proposal_template(ctx, body: ProposalTemplateCreate):
    """Create a proposal template"""
    return {"id": service_templates.create_template(ctx, data=body)}


@bp.route("/api/proposals/templates/{template_id}", methods=["GET"])
@endpoint(tool="proposals", level="view", errors=(404,), response=one("template", ProposalTemplateDetail))
def get_proposal_template(ctx, template_id: str):
    """A proposal template with its content and configuration"""
    return {"template": service_templates.get_template(ctx, template_id=template_id)}


@bp.route("/api/proposals/templates/{template_id}", methods=["PUT"])
@endpoint(tool="proposals", level="update", body=ProposalTemplateUpdate, errors=(404,), response=OkResponse)
def update_proposal_template(ctx, template_id: str, body: ProposalTemplateUpdate):
    """Update any of a proposal template's fields"""
    service_templates.update_template(ctx, template_id=template_id, data=body)
    return {"ok": True}


@bp.route("/api/proposals/templates/{template_id}", methods=["DELETE"])
@endpoint(tool="proposals", level="manage", errors=(404,), response=OkResponse)
def delete_proposal_template(ctx, template_id: str):
    """Soft-delete a proposal template (is_active 0); proposals made from it are unaffected"""
    service_templates.delete_template(ctx, template_id=template_id)
    return {"ok": True}


# ---------------------------------------------------------------- proposals

@bp.route("/api/proposals", methods=["GET"])
@endpoint(tool="proposals", level="view", query=ProposalListQuery, response=paged("proposals", ProposalListItem))
def list_proposals(ctx, query: ProposalListQuery):
    """List the proposals the caller may see, newest first (filters: status, deal_id, owner_id, company_id)"""
    return service.list_proposals(ctx, query).body("proposals")


@bp.route("/api/proposals", methods=["POST"])
@endpoint(tool="proposals", level="update", body=ProposalCreate, status=201, errors=(404,),
          response=CreatedProposal)
def create_proposal(ctx, body: ProposalCreate):
    """Create a proposal in draft; with template_id its content is cloned from the template, variables resolved"""
    return service.create_proposal(ctx, data=body)


@bp.route("/api/proposals/{proposal_id}", methods=["GET"])
@endpoint(tool="proposals", level="view", errors=(404,), response=one("proposal", ProposalDetail))
def get_proposal(ctx, proposal_id: str):
    """A proposal with its company, contact, deal and owner names and its approvals"""
    return {"proposal": service.get_proposal(ctx, proposal_id=proposal_id)}


@bp.route("/api/proposals/{proposal_id}", methods=["PUT"])
@endpoint(tool="proposals", level="update", body=ProposalUpdate, errors=(404, 409), response=OkResponse)
def update_proposal(ctx, proposal_id: str, body: ProposalUpdate):
    """Update a proposal's fields (409 once accepted, declined or expired)"""
    service.update_proposal(ctx, proposal_id=proposal_id, data=body)
    return {"ok": True}


@bp.route("/api/proposals/{proposal_id}", methods=["DELETE"])
@endpoint(tool="proposals", level="manage", errors=(404, 409), response=OkResponse)
def delete_proposal(ctx, proposal_id: str):
    """Delete a proposal and its content page (not an accepted one: 409)"""
    service.delete_proposal(ctx, proposal_id=proposal_id)
    return {"ok": True}


@bp.route("/api/proposals/{proposal_id}/duplicate", methods=["POST"])
@endpoint(tool="proposals", level="update", status=201, errors=(404,), response=DuplicateResponse)
def duplicate_proposal(ctx, proposal_id: str):
    """Copy a proposal (page content and pricing) into a new draft"""
    return {"proposal": {"id": service.duplicate_proposal(ctx, proposal_id=proposal_id)}}


@bp.route("/api/proposals/{proposal_id}/submit", methods=["POST"])
@endpoint(tool="proposals", level="update", errors=(404, 409), response=OkResponse)
def submit_proposal(ctx, proposal_id: str):
    """Submit for approval: draft (or changes_requested) to review"""
    service.submit(ctx, proposal_id=proposal_id)
    return {"ok": True}


@bp.route("/api/proposals/{proposal_id}/approve", methods=["POST"])
@endpoint(tool="proposals", level="update", body=ApproveBody, errors=(403, 404, 409), response=OkResponse)
def approve_proposal(ctx, proposal_id: str, body: ApproveBody):
    """Approve (a listed approver, once; or a proposals:manage holder when none is listed); approved when all have"""
    service.approve(ctx, proposal_id=proposal_id, comments=body.comments)
    return {"ok": True}


@bp.route("/api/proposals/{proposal_id}/request-changes", methods=["POST"])
@endpoint(tool="proposals", level="update", body=RequestChangesBody, errors=(403, 404, 409), response=OkResponse)
def request_proposal_changes(ctx, proposal_id: str, body: RequestChangesBody):
    """Request changes (comments required): review to changes_requested"""
    service.request_changes(ctx, proposal_id=proposal_id, comments=body.comments)
    return {"ok": True}


@bp.route("/api/proposals/{proposal_id}/mark-sent", methods=["POST"])
@endpoint(tool="proposals", level="update", errors=(404, 409), response=OkResponse)
def mark_proposal_sent(ctx, proposal_id: str):
    """Mark an approved proposal sent (sets sent_at)"""
    service.mark_sent(ctx, proposal_id=proposal_id)
    return {"ok": True}


# ---------------------------------------------------------------- pricing

@bp.route("/api/proposals/{proposal_id}/pricing", methods=["GET"])
@endpoint(tool="proposals", level="view", errors=(404,), response=PricingResponse)
def get_proposal_pricing(ctx, proposal_id: str):
    """The proposal's pricing sections with their items, and its total"""
    return service_pricing.get_pricing(ctx, proposal_id=proposal_id)


@bp.route("/api/proposals/{proposal_id}/pricing", methods=["PUT"])
@endpoint(tool="proposals", level="update", body=PricingReplace, errors=(404, 409), response=OkResponse)
def replace_proposal_pricing(ctx, proposal_id: str, body: PricingReplace):
    """Replace every pricing section and item (amount = quantity x unit_price)"""
    service_pricing.replace_pricing(ctx, proposal_id=proposal_id, sections=body.sections)
    return {"ok": True}


@bp.route("/api/proposals/{proposal_id}/pricing/{section_id}", methods=["DELETE"])
@endpoint(tool="proposals", level="manage", errors=(404, 409), response=OkResponse)
def delete_proposal_pricing_section(ctx, proposal_id: str, section_id: str):
    """Delete a pricing section and its items"""
    service_pricing.delete_section(ctx, proposal_id=proposal_id, section_id=section_id)
    return {"ok": True}


# ---------------------------------------------------------------- sharing and analytics

@bp.route("/api/proposals/{proposal_id}/share", methods=["PUT"])
@endpoint(tool="proposals", level="update", body=ShareBody, errors=(404,), response=ShareResponse)
def share_proposal(ctx, proposal_id: str, body: ShareBody):
    """Turn public sharing on or off; an optional password (empty clears it) is stored only as a hash"""
    return {"share_token": service_public.configure_sharing(ctx, proposal_id=proposal_id, data=body)}


@bp.route("/api/proposals/{proposal_id}/analytics", methods=["GET"])
@endpoint(tool="proposals", level="view", errors=(404,), response=AnalyticsResponse)
def proposal_analytics(ctx, proposal_id: str):
    """Public view analytics: per slide (`analytics`) and per session (`sessions`), with totals"""
    return service_public.analytics(ctx, proposal_id=proposal_id)


# ---------------------------------------------------------------- the public viewer (no token)

@bp.route("/api/proposals/public/{share_token}", methods=["GET"])
@endpoint(auth="public", errors=(404,), response=PublicContent)
def public_proposal(ctx, share_token: str):
    """A shared proposal's content, pricing and brand; `{ password_required: true }` without a session"""
    return service_public.public_content(ctx, share_token=share_token, cookie=ctx.header("Cookie"))


@bp.route("/api/proposals/public/{share_token}/verify", methods=["POST"])
@endpoint(auth="public", body=VerifyBody, errors=(401, 404, 429), response=OkResponse)
def verify_proposal_password(ctx, share_token: str, body: VerifyBody):
    """Check the password: sets the proposal_session cookie for 24 hours; a wrong one answers 401 { error }"""
    cookie = service_public.verify(ctx, share_token=share_token, password=body.password)
    if cookie is None:  # answered (not raised) so that the recorded attempt is committed
        return json_response({"error": "Wrong password"}, 401)
    return json_response({"ok": True}, 200, headers={"Set-Cookie": cookie, "Cache-Control": "no-store"})


@bp.route("/api/proposals/public/{share_token}/track", methods=["POST"])
@endpoint(auth="public", body=TrackBody, errors=(401, 404), response=OkResponse)
def track_proposal_view(ctx, share_token: str, body: TrackBody):
    """Record time spent on a slide by a viewer session"""
    service_public.track(ctx, share_token=share_token, data=body, cookie=ctx.header("Cookie"))
    return {"ok": True}


@bp.route("/api/proposals/public/{share_token}/accept", methods=["POST"])
@endpoint(auth="public", body=RespondBody, errors=(401, 404, 409), response=ProposalAnswerResponse)
def accept_proposal(ctx, share_token: str, body: RespondBody):
    """Accept: creates the project, budget, invoice and contract, wins the deal (all or nothing)"""
    service_public.accept(ctx, share_token=share_token, name=body.name, email=body.email,
                          cookie=ctx.header("Cookie"))
    return {"success": True}


@bp.route("/api/proposals/public/{share_token}/decline", methods=["POST"])
@endpoint(auth="public", body=DeclineBody, errors=(401, 404, 409), response=ProposalAnswerResponse)
def decline_proposal(ctx, share_token: str, body: DeclineBody):
    """Decline, with an optional reason"""
    service_public.decline(ctx, share_token=share_token, name=body.name, email=body.email, reason=body.reason,
                           cookie=ctx.header("Cookie"))
    return {"success": True}


@bp.schedule(Rate(1, unit=Rate.HOURS))
def proposal_expiry(event):
    """Hourly: proposals past valid_until in review, approved, sent or viewed become expired (within the hour after
    the organisation's midnight; a daily rate ran at whatever hour the rule was made, a day late at worst)."""
    return jobs.proposal_expiry()


@bp.schedule(Rate(1, unit=Rate.DAYS))
def proposal_attempts_purge(event):
    """Daily: delete wrong-password attempts older than a day (the throttle counts the last 15 minutes)."""
    return jobs.proposal_attempts_purge()
