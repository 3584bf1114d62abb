"""The People Data Labs live adapter against PDL's documented v5 request and answer shapes (`responses`)."""
import json

import pytest
import requests
import responses

from chalicelib.core.errors import BadGateway, GatewayTimeout, ServiceUnavailable
from chalicelib.providers.enrichment import get_enrichment
from chalicelib.providers.enrichment.base import normalise_person
from chalicelib.providers.enrichment.live import PeopleDataLabs

BASE = "https://api.peopledatalabs.com/v5"
NOT_FOUND = {"status": 404, "error": {"type": "not_found", "message": "No records were found matching your request"}}
PERSON = {"id": "qEnOZ5Oh0poWnQ1luFBfVw_0000", "full_name": "sean thorne", "first_name": "sean",
          "last_name": "thorne", "job_title": "co-founder and chief executive officer",
          "job_company_name": "people data labs", "job_company_website": "peopledatalabs.com",
          "location_name": "san francisco, california, united states", "industry": "computer software",
          "linkedin_url": "linkedin.com/in/seanthorne", "skills": ["entrepreneurship"], "experience": []}


def _pdl():
    return PeopleDataLabs(api_key="pdl-key")


@responses.activate
def test_company_enrich():
    record = {"status": 200, "name": "google", "website": "google.com", "size": "10001+", "likelihood": 6}
    responses.get(f"{BASE}/company/enrich", json=record)
    assert _pdl().enrich_company(name="Google", website="google.com") == record
    call = responses.calls[0].request
    assert call.headers["X-Api-Key"] == "pdl-key"
    assert call.params == {"name": "Google", "website": "google.com"}


@responses.activate
def test_person_enrich_and_search():
    responses.get(f"{BASE}/person/enrich", json={"status": 200, "likelihood": 9, "data": PERSON})
    found = _pdl().enrich_person(profile_url="https://linkedin.com/in/seanthorne")
    assert found["full_name"] == "sean thorne" and found["likelihood"] == 9
    assert responses.calls[0].request.params == {"profile": "https://linkedin.com/in/seanthorne"}
    responses.post(f"{BASE}/person/search", json={"status": 200, "data": [PERSON], "total": 1,
                                                   "scroll_token": "1117$12.17"})
    assert _pdl().search_person(name="Sean Thorne", email="Sean@PDL.com", company="People Data Labs")["id"] == PERSON["id"]
    sent = json.loads(responses.calls[1].request.body)
    assert sent["size"] == 1
    assert {"term": {"emails.address": "sean@pdl.com"}} in sent["query"]["bool"]["must"]
    # PDL's person fields are lower-case keyword fields (https://docs.peopledatalabs.com/docs/elasticsearch-mapping)
    assert {"term": {"full_name": "sean thorne"}} in sent["query"]["bool"]["must"]
    assert {"term": {"job_company_name": "people data labs"}} in sent["query"]["bool"]["must"]
    normalised = normalise_person({**PERSON, "likelihood": 9})
    assert normalised["profile_url"] == "https://linkedin.com/in/seanthorne" and normalised["likelihood"] == 9


@responses.activate
def test_no_data_is_none():
    responses.get(f"{BASE}/company/enrich", json=NOT_FOUND, status=404)
    responses.get(f"{BASE}/person/enrich", json=NOT_FOUND, status=404)
    responses.post(f"{BASE}/person/search", json=NOT_FOUND, status=404)
    assert _pdl().enrich_company(name="x", website=None) is None
    assert _pdl().enrich_person(profile_url="linkedin.com/in/x") is None
    assert _pdl().search_person(name="x", email=None, company=None) is None


# PDL's error body and types: https://docs.peopledatalabs.com/docs/errors
@pytest.mark.parametrize("status,kind,headers,error,text", [
    (402, "payment_required", {}, ServiceUnavailable, "credits are exhausted"),
    (429, "rate_limit_error", {"x-ratelimit-reset": "2026-11-23T10:01:00Z"}, ServiceUnavailable, "rate limit"),
    (429, "rate_limit_error", {"Retry-After": "60"}, ServiceUnavailable, "retry after 60"),
    (401, "authentication_error", {}, BadGateway, "API key"),
    (400, "invalid_request_error", {}, BadGateway, "HTTP 400"),
    (500, "api_error", {}, BadGateway, "HTTP 500"),
])
@responses.activate
def test_errors_are_mapped(status, kind, headers, error, text):
    responses.get(f"{BASE}/company/enrich", json={"status": status, "error": {"type": kind, "message": "m"}},
                  status=status, headers=headers)
    with pytest.raises(error) as raised:
        _pdl().enrich_company(name="Google", website=None)
    assert text in raised.value.message


@responses.activate
def test_timeout_and_unreachable():
    responses.get(f"{BASE}/company/enrich", body=requests.Timeout("slow"))
    with pytest.raises(GatewayTimeout) as raised:
        _pdl().enrich_company(name="x", website=None)
    assert raised.value.status == 504
    responses.replace(responses.GET, f"{BASE}/company/enrich", body=requests.ConnectionError("down"))
    with pytest.raises(BadGateway):
        _pdl().enrich_company(name="x", website=None)


@responses.activate
def test_live_through_the_route(api, db, employee, set_env):
    from tests.areas.deals.factories import make_company

    set_env(ENRICHMENT_MODE="live", PDL_API_KEY="pdl-key")
    assert isinstance(get_enrichment(), PeopleDataLabs)
    record = {"status": 200, "name": "acme", "website": "acme.com", "likelihood": 7}
    responses.get(f"{BASE}/company/enrich", json=record)
    company = make_company(db, name="Acme", domain="acme.com")
    answer = api.post(f"/api/deals/companies/{company.id}/enrich", as_=employee)
    assert answer.status == 200 and answer.json["network_data"] == record
    responses.replace(responses.GET, f"{BASE}/company/enrich", status=402, json={
        "status": 402, "error": {"type": "payment_required", "message": "You have hit your account maximum for "
                                 "company enrichment (all matches used)"}})
    busy = api.post(f"/api/deals/companies/{company.id}/enrich?force=true", as_=employee)
    assert busy.status == 503 and "credits" in busy.json["error"]
