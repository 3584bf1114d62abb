"""Research briefs (tool `deals`: view reads, update runs); base /api/research."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import many, one

from . import service
from .schemas import BriefRead, ResearchRun

bp = Blueprint(__name__)


@bp.route("/api/research/run", methods=["POST"])
@endpoint(tool="deals", level="update", body=ResearchRun, status=201, errors=(404, 422, 429),
          response=one("brief", BriefRead))
def run_research(ctx, body: ResearchRun):
    """Research a deal's or company's website into a pre-call brief (a failed fetch or AI call stores a
    failed brief)"""
    return {"brief": service.run_research(ctx, data=body)}


@bp.route("/api/research/deals/{deal_id}/briefs", methods=["GET"])
@endpoint(tool="deals", level="view", errors=(404,), response=many("briefs", BriefRead))
def list_deal_briefs(ctx, deal_id: str):
    """A deal's briefs, newest first (at most 500)"""
    return {"briefs": service.deal_briefs(ctx, deal_id=deal_id)}


@bp.route("/api/research/companies/{company_id}/briefs", methods=["GET"])
@endpoint(tool="deals", level="view", errors=(404,), response=many("briefs", BriefRead))
def list_company_briefs(ctx, company_id: str):
    """A company's briefs and its deals' briefs, newest first (at most 500)"""
    return {"briefs": service.company_briefs(ctx, company_id=company_id)}


@bp.route("/api/research/{brief_id}", methods=["GET"])
@endpoint(tool="deals", level="view", errors=(404,), response=one("brief", BriefRead))
def get_brief(ctx, brief_id: str):
    """A research brief"""
    return {"brief": service.get_brief(ctx, brief_id=brief_id)}


@bp.route("/api/research/{brief_id}/refresh", methods=["POST"])
@endpoint(tool="deals", level="update", status=201, errors=(404, 422, 429), response=one("brief", BriefRead))
def refresh_brief(ctx, brief_id: str):
    """Research the same entity and URL again into a new brief (the old one is kept)"""
    return {"brief": service.refresh_brief(ctx, brief_id=brief_id)}
