"""Client profiles (decisions.md section 6; tool `deals`: view reads, update edits)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import one

from . import service
from .schemas import ClientProfileRead, ClientProfileUpdate

bp = Blueprint(__name__)


@bp.route("/api/clients/{company_id}/profile", methods=["GET"])
@endpoint(tool="deals", level="view", errors=(404,), response=one("profile", ClientProfileRead))
def get_client_profile(ctx, company_id: str):
    """A client company's profile (404 when the company is not a client)"""
    return {"profile": service.get_profile(ctx, company_id=company_id)}


@bp.route("/api/clients/{company_id}/profile", methods=["PUT"])
@endpoint(tool="deals", level="update", body=ClientProfileUpdate, errors=(404,),
          response=one("profile", ClientProfileRead))
def update_client_profile(ctx, company_id: str, body: ClientProfileUpdate):
    """Edit a client company's profile"""
    return {"profile": service.update_profile(ctx, company_id=company_id, data=body)}
