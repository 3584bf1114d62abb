"""Client onboarding templates (document 2: base /api/admin, tool `templates`: view reads, update writes,
manage deletes) and client onboarding progress per company (tool `deals`, like client profiles; paths in
docs/decisions/onboarding.md)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, many, one

from . import service, service_progress
from .schemas import (DeleteResponse, MilestoneCreate, MilestoneRead, MilestoneUpdate, ProgressResponse, ReorderBody,
                      StageCreate, StageRead, StageUpdate, StartBody, TemplateChangeBody, TemplateCreate,
                      TemplateDetailResponse, TemplateRead, TemplateUpdate)

bp = Blueprint(__name__)
BASE = "/api/admin/onboarding-templates/client"


@bp.route(BASE, methods=["GET"])
@endpoint(tool="templates", level="view", response=many("templates", TemplateRead))
def list_onboarding_templates(ctx):
    """Client onboarding templates with stage, milestone and client counts (the default first)"""
    return {"templates": service.list_templates(ctx)}


@bp.route(BASE + "/{template_id}", methods=["GET"])
@endpoint(tool="templates", level="view", errors=(404,), response=TemplateDetailResponse)
def get_onboarding_template(ctx, template_id: str):
    """A template with its stages and their milestones, and how many clients use it"""
    return service.get_template(ctx, template_id=template_id)


@bp.route(BASE, methods=["POST"])
@endpoint(tool="templates", level="update", body=TemplateCreate, status=201, response=one("template", TemplateRead))
def create_onboarding_template(ctx, body: TemplateCreate):
    """Create a client onboarding template"""
    return {"template": service.create_template(ctx, data=body)}


@bp.route(BASE + "/{template_id}", methods=["PATCH"])
@endpoint(tool="templates", level="update", body=TemplateUpdate, errors=(404,), response=one("template", TemplateRead))
def update_onboarding_template(ctx, template_id: str, body: TemplateUpdate):
    """Update a template; is_default clears the other defaults"""
    return {"template": service.update_template(ctx, template_id=template_id, data=body)}


@bp.route(BASE + "/{template_id}", methods=["DELETE"])
@endpoint(tool="templates", level="manage", errors=(404,), response=DeleteResponse)
def delete_onboarding_template(ctx, template_id: str):
    """Delete a template with its stages and milestones; soft-disable it while clients use it"""
    if service.delete_template(ctx, template_id=template_id):
        return {"ok": True, "soft_disabled": True}
    return {"ok": True}


@bp.route(BASE + "/{template_id}/duplicate", methods=["POST"])
@endpoint(tool="templates", level="update", status=201, errors=(404,), response=one("template", TemplateRead))
def duplicate_onboarding_template(ctx, template_id: str):
    """Copy a template with its stages and milestones, named with " (Copy)\""""
    return {"template": service.duplicate_template(ctx, template_id=template_id)}


@bp.route(BASE + "/{template_id}/reorder", methods=["PATCH"])
@endpoint(tool="templates", level="update", body=ReorderBody, errors=(404,), response=OkResponse)
def reorder_onboarding_template(ctx, template_id: str, body: ReorderBody):
    """Reorder stages and milestones (milestones may move between stages), atomically"""
    service.reorder(ctx, template_id=template_id, data=body)
    return {"ok": True}


@bp.route(BASE + "/{template_id}/stages", methods=["POST"])
@endpoint(tool="templates", level="update", body=StageCreate, status=201, errors=(404, 409),
          response=one("stage", StageRead))
def create_onboarding_stage(ctx, template_id: str, body: StageCreate):
    """Add a stage at the end of the template"""
    return {"stage": service.create_stage(ctx, template_id=template_id, data=body)}


@bp.route(BASE + "/{template_id}/stages/{stage_id}", methods=["PATCH"])
@endpoint(tool="templates", level="update", body=StageUpdate, errors=(404,), response=one("stage", StageRead))
def update_onboarding_stage(ctx, template_id: str, stage_id: str, body: StageUpdate):
    """Update a stage"""
    return {"stage": service.update_stage(ctx, template_id=template_id, stage_id=stage_id, data=body)}


@bp.route(BASE + "/{template_id}/stages/{stage_id}", methods=["DELETE"])
@endpoint(tool="templates", level="manage", errors=(404,), response=OkResponse)
def delete_onboarding_stage(ctx, template_id: str, stage_id: str):
    """Delete a stage with its milestones"""
    service.delete_stage(ctx, template_id=template_id, stage_id=stage_id)
    return {"ok": True}


@bp.route(BASE + "/stages/{stage_id}/milestones", methods=["POST"])
@endpoint(tool="templates", level="update", body=MilestoneCreate, status=201, errors=(404, 409),
          response=one("milestone", MilestoneRead))
def create_onboarding_milestone(ctx, stage_id: str, body: MilestoneCreate):
    """Add a milestone at the end of a stage (is_required defaults to true)"""
    return {"milestone": service.create_milestone(ctx, stage_id=stage_id, data=body)}


@bp.route(BASE + "/milestones/{milestone_id}", methods=["PATCH"])
@endpoint(tool="templates", level="update", body=MilestoneUpdate, errors=(404,),
          response=one("milestone", MilestoneRead))
def update_onboarding_milestone(ctx, milestone_id: str, body: MilestoneUpdate):
    """Update a milestone"""
    return {"milestone": service.update_milestone(ctx, milestone_id=milestone_id, data=body)}


@bp.route(BASE + "/milestones/{milestone_id}", methods=["DELETE"])
@endpoint(tool="templates", level="manage", errors=(404,), response=OkResponse)
def delete_onboarding_milestone(ctx, milestone_id: str):
    """Delete a milestone"""
    service.delete_milestone(ctx, milestone_id=milestone_id)
    return {"ok": True}


# ---------------------------------------------------------------- progress per company

@bp.route("/api/clients/{company_id}/onboarding", methods=["GET"])
@endpoint(tool="deals", level="view", errors=(404,), response=ProgressResponse)
def get_client_onboarding(ctx, company_id: str):
    """A company's onboarding progress (null before it starts): percentage, current stage, milestones"""
    return {"onboarding": service_progress.get_progress(ctx, company_id=company_id)}


@bp.route("/api/clients/{company_id}/onboarding", methods=["POST"])
@endpoint(tool="deals", level="update", body=StartBody, status=201, errors=(404, 409),
          response=ProgressResponse)
def start_client_onboarding(ctx, company_id: str, body: StartBody):
    """Start a company's onboarding from template_id, its profile's template, or the default one"""
    return {"onboarding": service_progress.start(ctx, company_id=company_id, template_id=body.template_id)}


@bp.route("/api/clients/{company_id}/onboarding", methods=["PUT"])
@endpoint(tool="deals", level="update", body=TemplateChangeBody, errors=(404,), response=ProgressResponse)
def change_client_onboarding_template(ctx, company_id: str, body: TemplateChangeBody):
    """Move a started onboarding to another active template (the template in use: no change)"""
    return {"onboarding": service_progress.change_template(ctx, company_id=company_id, template_id=body.template_id)}


@bp.route("/api/clients/{company_id}/onboarding/milestones/{milestone_id}/complete", methods=["POST"])
@endpoint(tool="deals", level="update", errors=(404,), response=ProgressResponse)
def complete_client_milestone(ctx, company_id: str, milestone_id: str):
    """Mark a milestone of the company's onboarding complete (again: no change)"""
    return {"onboarding": service_progress.set_milestone(ctx, company_id=company_id, milestone_id=milestone_id,
                                                         done=True)}


@bp.route("/api/clients/{company_id}/onboarding/milestones/{milestone_id}/complete", methods=["DELETE"])
@endpoint(tool="deals", level="update", errors=(404,), response=ProgressResponse)
def reopen_client_milestone(ctx, company_id: str, milestone_id: str):
    """Mark a milestone of the company's onboarding not complete"""
    return {"onboarding": service_progress.set_milestone(ctx, company_id=company_id, milestone_id=milestone_id,
                                                         done=False)}
