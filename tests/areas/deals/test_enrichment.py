"""Enrichment at POST /api/deals/companies/{id}/enrich and /contacts/{id}/enrich (sandbox provider)."""
from datetime import timedelta

import pytest

from chalicelib.core.ids import utcnow
from tests.areas.deals.factories import make_company, make_contact
from tests.factories import grant


@pytest.mark.smoke
def test_company_enrichment_and_the_24_hour_guard(api, db, employee):
    company = make_company(db, name="Acme Homewares", domain="acme.com.au")
    path = f"/api/deals/companies/{company.id}/enrich"
    first = api.post(path, as_=employee)
    assert first.status == 200, first
    assert first.json["success"] is True and first.json["network_data"]["website"] == "acme.com.au"
    detail = api.get(f"/api/deals/companies/{company.id}", as_=employee).json["company"]
    assert detail["network_data"] == first.json["network_data"] and detail["network_enriched_at"]
    again = api.post(path, as_=employee)
    assert again.status == 409 and "24 hours" in again.json["error"]
    assert api.post(f"{path}?force=true", as_=employee).status == 200
    assert api.post(f"{path}?force=maybe", as_=employee).status == 400
    company.network_enriched_at = utcnow() - timedelta(hours=25)
    db.flush()
    assert api.post(path, as_=employee).status == 200
    assert api.post("/api/deals/companies/missing/enrich", as_=employee).status == 404
    nodata = make_company(db, name="Nodata Pty Ltd")
    refused = api.post(f"/api/deals/companies/{nodata.id}/enrich", as_=employee)
    assert refused.status == 400 and "No data" in refused.json["error"]
    db.refresh(nodata)
    assert nodata.network_data is None and nodata.network_enriched_at is None
    grant(db, employee, "deals", "view")
    assert api.post(path, as_=employee).status == 403


def test_contact_enrichment_by_search_saves_the_profile_url(api, db, employee):
    company = make_company(db, name="Acme")
    contact = make_contact(db, first_name="Ana", last_name="Lee", email="ana@acme.test", company_id=company.id)
    answer = api.post(f"/api/deals/contacts/{contact.id}/enrich", as_=employee)
    assert answer.status == 200, answer
    data = answer.json["network_data"]
    assert (data["full_name"], data["job_company_name"], data["profile_url"]) == (
        "ana lee", "acme", "https://linkedin.com/in/ana-lee")
    detail = api.get(f"/api/deals/contacts/{contact.id}", as_=employee).json["contact"]
    assert detail["network_url"] == "https://linkedin.com/in/ana-lee" and detail["network_data"] == data
    assert api.post(f"/api/deals/contacts/{contact.id}/enrich", as_=employee).status == 409
    # with a profile URL the profile lookup is used, and the URL kept
    by_profile = make_contact(db, first_name="X", network_url="https://www.linkedin.com/in/sam-tan-123")
    found = api.post(f"/api/deals/contacts/{by_profile.id}/enrich", as_=employee).json["network_data"]
    assert found["full_name"] == "sam tan"
    db.refresh(by_profile)
    assert by_profile.network_url == "https://www.linkedin.com/in/sam-tan-123"
    nodata = make_contact(db, first_name="Nodata")
    assert api.post(f"/api/deals/contacts/{nodata.id}/enrich", as_=employee).status == 400
    assert api.post("/api/deals/contacts/missing/enrich", as_=employee).status == 404


def test_provider_off_is_503(api, db, employee, set_env):
    company = make_company(db)
    set_env(ENRICHMENT_MODE="off")
    assert api.post(f"/api/deals/companies/{company.id}/enrich", as_=employee).status == 503
    set_env(ENRICHMENT_MODE="live", PDL_API_KEY=None)
    assert api.post(f"/api/deals/companies/{company.id}/enrich", as_=employee).status == 503


def test_contact_enrichment_guard_is_24_hours_unless_forced(api, db, employee):
    """Document 2, Limits: one enrichment per 24 hours unless force=true (the contact route as the company's)."""
    contact = make_contact(db, first_name="Ana", last_name="Lee", email="ana@acme.test")
    path = f"/api/deals/contacts/{contact.id}/enrich"
    first = api.post(path, as_=employee)
    assert first.status == 200, first
    again = api.post(path, as_=employee)
    assert again.status == 409 and "24 hours" in again.json["error"]
    forced = api.post(f"{path}?force=true", as_=employee)
    assert forced.status == 200 and forced.json["success"] is True
    contact.network_enriched_at = utcnow() - timedelta(hours=25)
    db.flush()
    assert api.post(path, as_=employee).status == 200
