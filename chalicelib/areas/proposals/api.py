"""Proposals (decisions.md section 5; tool `proposals`: view reads, update writes, manage deletes) and the
public viewer under /api/proposals/public/{share_token} (no token: the share token addresses the proposal)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, paged

from . import service, service_pricing, service_templates
from .schemas import (ApproveBody, CreatedProposal, DuplicateResponse, IdResponse, PricingReplace, PricingResponse,
                      ProposalCreate, ProposalDetail, ProposalListQuery, ProposalRead, ProposalUpdate,
                      RequestChangesBody, TemplateCreate, TemplateDetail, TemplateListQuery, TemplateRead,
                      TemplateUpdate)
from chalicelib.core.schemas import one

bp = Blueprint(__name__)


# ---------------------------------------------------------------- templates

@bp.route("/api/proposals/templates", methods=["GET"])
@endpoint(tool="proposals", level="view", query=TemplateListQuery, response=paged("templates", TemplateRead))
def list_proposal_templates(ctx, query: TemplateListQuery):
    """List the active proposal templates by name (filter: category)"""
    return service_templates.list_templates(ctx, query).body("templates")


@bp.route("/api/proposals/templates", methods=["POST"])
@endpoint(tool="proposals", level="update", body=TemplateCreate, status=201, response=IdResponse)
def create_proposal_template(ctx, body: TemplateCreate):
    """Create a proposal template"""
    return {"id": service_templates.create_template(ctx, data=body)}


@bp.route("/api/proposals/templates/{template_id}", methods=["GET"])
@endpoint(tool="proposals", level="view", errors=(404,), response=one("template", TemplateDetail))
def get_proposal_template(ctx, template_id: str):
    """A proposal template with its content and configuration"""
    return {"template": service_templates.get_template(ctx, template_id=template_id)}


@bp.route("/api/proposals/templates/{template_id}", methods=["PUT"])
@endpoint(tool="proposals", level="update", body=TemplateUpdate, errors=(404,), response=OkResponse)
def update_proposal_template(ctx, template_id: str, body: TemplateUpdate):
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
@endpoint(tool="proposals", level="view", query=ProposalListQuery, response=paged("proposals", ProposalRead))
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
@endpoint(tool="proposals", level="manage", errors=(404,), response=OkResponse)
def delete_proposal(ctx, proposal_id: str):
    """Delete a proposal and its content page"""
    service.delete_proposal(ctx, proposal_id=proposal_id)
    return {"ok": True}


@bp.route("/api/proposals/{proposal_id}/duplicate", methods=["POST"])
@endpoint(tool="proposals", level="update", errors=(404,), response=DuplicateResponse)
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
@endpoint(tool="proposals", level="update", errors=(404, 409), response=OkResponse)
def delete_proposal_pricing_section(ctx, proposal_id: str, section_id: str):
    """Delete a pricing section and its items"""
    service_pricing.delete_section(ctx, proposal_id=proposal_id, section_id=section_id)
    return {"ok": True}
