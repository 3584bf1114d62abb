"""Companies, contacts and deals (tool `deals`: view reads, update creates and edits, manage deletes)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, one, paged

from . import service, service_deals, service_enrichment
from .schemas import (CompanyCreate, CompanyDetail, CompanyListQuery, CompanyPage, CompanyRead, CompanyUpdate,
                      ContactCreate, ContactDetail, ContactListQuery, ContactPage, ContactRead, ContactUpdate,
                      DealCreate, DealListQuery, DealRead, DealUpdate, EnrichQuery, EnrichResult)

bp = Blueprint(__name__)


# ---- companies ----

@bp.route("/api/deals/companies", methods=["GET"])
@endpoint(tool="deals", level="view", query=CompanyListQuery, response=CompanyPage)
def list_companies(ctx, query: CompanyListQuery):
    """List companies (search by name or domain; 50 per page)"""
    companies, total = service.list_companies(ctx, search=query.search, page=query.page)
    return {"companies": companies, "total": total, "page": query.page}


@bp.route("/api/deals/companies", methods=["POST"])
@endpoint(tool="deals", level="update", body=CompanyCreate, status=201, response=one("company", CompanyRead))
def create_company(ctx, body: CompanyCreate):
    """Create a company"""
    return {"company": service.create_company(ctx, data=body)}


@bp.route("/api/deals/companies/{company_id}", methods=["GET"])
@endpoint(tool="deals", level="view", errors=(404,), response=CompanyDetail)
def get_company(ctx, company_id: str):
    """A company with its contacts and deals (a company holds at most 500 of each)"""
    company, contacts, deals = service.get_company(ctx, company_id=company_id)
    return {"company": company, "contacts": contacts, "deals": deals}


@bp.route("/api/deals/companies/{company_id}", methods=["PUT"])
@endpoint(tool="deals", level="update", body=CompanyUpdate, errors=(404,), response=one("company", CompanyRead))
def update_company(ctx, company_id: str, body: CompanyUpdate):
    """Update a company"""
    return {"company": service.update_company(ctx, company_id=company_id, data=body)}


@bp.route("/api/deals/companies/{company_id}", methods=["DELETE"])
@endpoint(tool="deals", level="manage", errors=(404, 409), response=OkResponse)
def delete_company(ctx, company_id: str):
    """Delete a company (409 while deals reference it; its contacts are detached)"""
    service.delete_company(ctx, company_id=company_id)
    return {"ok": True}


# ---- contacts ----

@bp.route("/api/deals/contacts", methods=["GET"])
@endpoint(tool="deals", level="view", query=ContactListQuery, response=ContactPage)
def list_contacts(ctx, query: ContactListQuery):
    """List contacts (search by name or email, filter by company; 50 per page)"""
    contacts, total = service.list_contacts(ctx, search=query.search, company_id=query.company_id, page=query.page)
    return {"contacts": contacts, "total": total, "page": query.page}


@bp.route("/api/deals/contacts", methods=["POST"])
@endpoint(tool="deals", level="update", body=ContactCreate, status=201, errors=(409,),
          response=one("contact", ContactRead))
def create_contact(ctx, body: ContactCreate):
    """Create a contact"""
    return {"contact": service.create_contact(ctx, data=body)}


@bp.route("/api/deals/contacts/{contact_id}", methods=["GET"])
@endpoint(tool="deals", level="view", errors=(404,), response=ContactDetail)
def get_contact(ctx, contact_id: str):
    """A contact with its deals (a contact holds at most 500)"""
    contact, deals = service.get_contact(ctx, contact_id=contact_id)
    return {"contact": contact, "deals": deals}


@bp.route("/api/deals/contacts/{contact_id}", methods=["PUT"])
@endpoint(tool="deals", level="update", body=ContactUpdate, errors=(404, 409), response=one("contact", ContactRead))
def update_contact(ctx, contact_id: str, body: ContactUpdate):
    """Update a contact"""
    return {"contact": service.update_contact(ctx, contact_id=contact_id, data=body)}


@bp.route("/api/deals/contacts/{contact_id}", methods=["DELETE"])
@endpoint(tool="deals", level="manage", errors=(404,), response=OkResponse)
def delete_contact(ctx, contact_id: str):
    """Delete a contact (its deals keep going without a contact)"""
    service.delete_contact(ctx, contact_id=contact_id)
    return {"ok": True}


# ---- deals ----

@bp.route("/api/deals/deals", methods=["GET"])
@endpoint(tool="deals", level="view", query=DealListQuery, response=paged("deals", DealRead))
def list_deals(ctx, query: DealListQuery):
    """List deals (filters: stage_id, status, owner_id, company_id, contact_id, search; `limit` at most 500
    and `offset`, with `total`)"""
    return service_deals.list_deals(ctx, query=query).body("deals")


@bp.route("/api/deals/deals", methods=["POST"])
@endpoint(tool="deals", level="update", body=DealCreate, status=201, errors=(409,), response=one("deal", DealRead))
def create_deal(ctx, body: DealCreate):
    """Create a deal"""
    return {"deal": service_deals.create_deal(ctx, data=body)}


@bp.route("/api/deals/deals/{deal_id}", methods=["GET"])
@endpoint(tool="deals", level="view", errors=(404,), response=one("deal", DealRead))
def get_deal(ctx, deal_id: str):
    """A deal"""
    return {"deal": service_deals.get_deal(ctx, deal_id=deal_id)}


@bp.route("/api/deals/deals/{deal_id}", methods=["PUT"])
@endpoint(tool="deals", level="update", body=DealUpdate, errors=(404, 409), response=one("deal", DealRead))
def update_deal(ctx, deal_id: str, body: DealUpdate):
    """Update a deal"""
    return {"deal": service_deals.update_deal(ctx, deal_id=deal_id, data=body)}


@bp.route("/api/deals/deals/{deal_id}", methods=["DELETE"])
@endpoint(tool="deals", level="manage", errors=(404,), response=OkResponse)
def delete_deal(ctx, deal_id: str):
    """Delete a deal"""
    service_deals.delete_deal(ctx, deal_id=deal_id)
    return {"ok": True}


# ---- enrichment (People Data Labs) ----

@bp.route("/api/deals/companies/{company_id}/enrich", methods=["POST"])
@endpoint(tool="deals", level="update", query=EnrichQuery, errors=(400, 404, 409, 429, 502, 503, 504),
          response=EnrichResult)
def enrich_company(ctx, company_id: str, query: EnrichQuery):
    """Enrich a company from the professional-network data provider (once per 24 hours unless force=true)"""
    return service_enrichment.enrich_company(ctx, company_id=company_id, force=bool(query.force))


@bp.route("/api/deals/contacts/{contact_id}/enrich", methods=["POST"])
@endpoint(tool="deals", level="update", query=EnrichQuery, errors=(400, 404, 409, 429, 502, 503, 504),
          response=EnrichResult)
def enrich_contact(ctx, contact_id: str, query: EnrichQuery):
    """Enrich a contact by profile URL, or by a person search on name, e-mail and company"""
    return service_enrichment.enrich_contact(ctx, contact_id=contact_id, force=bool(query.force))
