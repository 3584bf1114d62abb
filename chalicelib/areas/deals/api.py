"""Companies, contacts and deals (tool `deals`: view reads, update creates and edits, manage deletes)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint

from . import service, service_deals
from .schemas import (CompanyCreate, CompanyQuery, CompanyUpdate, ContactCreate, ContactQuery, ContactUpdate,
                      DealCreate, DealQuery, DealUpdate)

bp = Blueprint(__name__)


# ---- companies ----

@bp.route("/api/deals/companies", methods=["GET"])
@endpoint(tool="deals", level="view", query=CompanyQuery)
def list_companies(ctx, query: CompanyQuery):
    """List companies (search by name or domain; 50 per page)"""
    return service.list_companies(ctx, search=query.search, page=query.page)


@bp.route("/api/deals/companies", methods=["POST"])
@endpoint(tool="deals", level="update", body=CompanyCreate, status=201)
def create_company(ctx, body: CompanyCreate):
    """Create a company"""
    return {"company": service.create_company(ctx, data=body)}


@bp.route("/api/deals/companies/{company_id}", methods=["GET"])
@endpoint(tool="deals", level="view")
def get_company(ctx, company_id: str):
    """A company with its contacts and deals"""
    return service.get_company(ctx, company_id=company_id)


@bp.route("/api/deals/companies/{company_id}", methods=["PUT"])
@endpoint(tool="deals", level="update", body=CompanyUpdate)
def update_company(ctx, company_id: str, body: CompanyUpdate):
    """Update a company"""
    return {"company": service.update_company(ctx, company_id=company_id, data=body)}


@bp.route("/api/deals/companies/{company_id}", methods=["DELETE"])
@endpoint(tool="deals", level="manage", errors=(409,))
def delete_company(ctx, company_id: str):
    """Delete a company (409 while deals reference it; its contacts are detached)"""
    return service.delete_company(ctx, company_id=company_id)


# ---- contacts ----

@bp.route("/api/deals/contacts", methods=["GET"])
@endpoint(tool="deals", level="view", query=ContactQuery)
def list_contacts(ctx, query: ContactQuery):
    """List contacts (search by name or email, filter by company; 50 per page)"""
    return service.list_contacts(ctx, search=query.search, company_id=query.company_id, page=query.page)


@bp.route("/api/deals/contacts", methods=["POST"])
@endpoint(tool="deals", level="update", body=ContactCreate, status=201)
def create_contact(ctx, body: ContactCreate):
    """Create a contact"""
    return {"contact": service.create_contact(ctx, data=body)}


@bp.route("/api/deals/contacts/{contact_id}", methods=["GET"])
@endpoint(tool="deals", level="view")
def get_contact(ctx, contact_id: str):
    """A contact with its deals"""
    return service.get_contact(ctx, contact_id=contact_id)


@bp.route("/api/deals/contacts/{contact_id}", methods=["PUT"])
@endpoint(tool="deals", level="update", body=ContactUpdate)
def update_contact(ctx, contact_id: str, body: ContactUpdate):
    """Update a contact"""
    return {"contact": service.update_contact(ctx, contact_id=contact_id, data=body)}


@bp.route("/api/deals/contacts/{contact_id}", methods=["DELETE"])
@endpoint(tool="deals", level="manage")
def delete_contact(ctx, contact_id: str):
    """Delete a contact (its deals keep going without a contact)"""
    return service.delete_contact(ctx, contact_id=contact_id)


# ---- deals ----

@bp.route("/api/deals/deals", methods=["GET"])
@endpoint(tool="deals", level="view", query=DealQuery)
def list_deals(ctx, query: DealQuery):
    """List deals (filters: stage_id, status, owner_id, company_id, contact_id, search)"""
    return service_deals.list_deals(ctx, query=query)


@bp.route("/api/deals/deals", methods=["POST"])
@endpoint(tool="deals", level="update", body=DealCreate, status=201)
def create_deal(ctx, body: DealCreate):
    """Create a deal"""
    return service_deals.create_deal(ctx, data=body)


@bp.route("/api/deals/deals/{deal_id}", methods=["GET"])
@endpoint(tool="deals", level="view")
def get_deal(ctx, deal_id: str):
    """A deal"""
    return service_deals.get_deal(ctx, deal_id=deal_id)


@bp.route("/api/deals/deals/{deal_id}", methods=["PUT"])
@endpoint(tool="deals", level="update", body=DealUpdate)
def update_deal(ctx, deal_id: str, body: DealUpdate):
    """Update a deal"""
    return service_deals.update_deal(ctx, deal_id=deal_id, data=body)


@bp.route("/api/deals/deals/{deal_id}", methods=["DELETE"])
@endpoint(tool="deals", level="manage")
def delete_deal(ctx, deal_id: str):
    """Delete a deal"""
    return service_deals.delete_deal(ctx, deal_id=deal_id)
