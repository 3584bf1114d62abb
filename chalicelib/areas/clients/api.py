"""Client profiles and contracts (decisions.md section 6; tool `deals`: view reads, update creates and edits)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import one, paged

from . import service, service_contracts
from .schemas import (ClientProfileCreate, ClientProfileListQuery, ClientProfileListRead, ClientProfileRead,
                      ClientProfileUpdate, ContractCreate, ContractListQuery, ContractRead, ContractUpdate)

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


@bp.route("/api/clients", methods=["GET"])
@endpoint(tool="deals", level="view", query=ClientProfileListQuery, response=paged("profiles", ClientProfileListRead))
def list_client_profiles(ctx, query: ClientProfileListQuery):
    """Client profiles with company and delivery manager names, by company name (filters: client_group,
    delivery_manager_id, dashboard_enabled; `limit` at most 500 and `offset`, with `total`)"""
    return service.list_profiles(ctx, query).body("profiles")


@bp.route("/api/clients/{company_id}/profile", methods=["POST"])
@endpoint(tool="deals", level="update", body=ClientProfileCreate, status=201, errors=(404, 409),
          response=one("profile", ClientProfileRead))
def create_client_profile(ctx, company_id: str, body: ClientProfileCreate):
    """Make a company a client with this profile (409 when it is a client already: edit the profile with PUT; a
    former client, a prospect again, is made a client again)"""
    return {"profile": service.create_profile(ctx, company_id=company_id, data=body)}


@bp.route("/api/contracts", methods=["GET"])
@endpoint(tool="deals", level="view", query=ContractListQuery, response=paged("contracts", ContractRead))
def list_contracts(ctx, query: ContractListQuery):
    """Contracts, newest first (filters: company_id, proposal_id, status; `limit` at most 500 and `offset`)"""
    return service_contracts.list_contracts(ctx, query).body("contracts")


@bp.route("/api/contracts", methods=["POST"])
@endpoint(tool="deals", level="update", body=ContractCreate, status=201, response=one("contract", ContractRead))
def create_contract(ctx, body: ContractCreate):
    """Create a contract (title, company, proposal, status, signers with name, email and signed_at, document URL)"""
    return {"contract": service_contracts.create_contract(ctx, data=body)}


@bp.route("/api/contracts/{contract_id}", methods=["GET"])
@endpoint(tool="deals", level="view", errors=(404,), response=one("contract", ContractRead))
def get_contract(ctx, contract_id: str):
    """A contract"""
    return {"contract": service_contracts.get_contract(ctx, contract_id=contract_id)}


@bp.route("/api/contracts/{contract_id}", methods=["PUT"])
@endpoint(tool="deals", level="update", body=ContractUpdate, errors=(404,), response=one("contract", ContractRead))
def update_contract(ctx, contract_id: str, body: ContractUpdate):
    """Edit a contract; `signers`, when given, replaces the list"""
    return {"contract": service_contracts.update_contract(ctx, contract_id=contract_id, data=body)}
