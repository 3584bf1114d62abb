"""Session 30, People Data Labs answers outside their documented v5 shapes (docs.peopledatalabs.com: an error is
`{"status", "error": {"type", "message"}}`; a person search answers `data` a list of person records; a person's
`experience` is a list of objects and `skills` a list of strings) are never a 500 on the enrich routes: an `error`
that is no object names no message (`.get` on a string was a 500, even on a 401); a search's `data` that is no list is
a 502 (`records[0]` of an object was a KeyError); an `experience` or `skills` that is no list reads as none
(`experience[0]` of an object, `list(5)`). Through POST /api/deals/{companies,contacts}/{id}/enrich, as
tests/areas/deals/test_enrichment.py."""
import pytest
import responses

from tests.areas.deals.factories import make_company, make_contact
from tests.areas.deals.test_enrichment_live import BASE, PERSON


@pytest.fixture
def pdl(set_env):
    set_env(ENRICHMENT_MODE="live", PDL_API_KEY="pdl-key")
    with responses.RequestsMock() as mock:
        yield mock


@pytest.mark.parametrize("status, error, expected", [
    (401, "Invalid API key", 502), (400, ["bad"], 502), (500, "Server error", 502), (200, "odd", 200)])
def test_an_error_that_is_no_object_names_no_message(api, db, employee, pdl, status, error, expected):
    company = make_company(db, name="Acme Homewares", domain="acme.com.au")
    pdl.get(f"{BASE}/company/enrich", status=status, json={"status": status, "error": error, "name": "acme"})
    answer = api.post(f"/api/deals/companies/{company.id}/enrich", as_=employee)
    assert answer.status == expected, answer.json


def test_a_search_whose_data_is_no_list_is_a_502(api, db, employee, pdl):
    contact = make_contact(db, first_name="Sean", last_name="Thorne", email="sean@pdl.test")
    pdl.post(f"{BASE}/person/search", json={"status": 200, "total": 1, "data": PERSON})
    answer = api.post(f"/api/deals/contacts/{contact.id}/enrich", as_=employee)
    assert answer.status == 502, answer.json
    assert answer.json["error"] == "The enrichment provider answered records that are not a list"


@pytest.mark.parametrize("change", [{"experience": {"title": {"name": "ceo"}}}, {"skills": 5},
                                    {"skills": {"python": 1}}])
def test_experience_or_skills_that_are_no_list_read_as_none(api, db, employee, pdl, change):
    contact = make_contact(db, first_name="Sean", last_name="Thorne", email="sean@pdl.test")
    pdl.post(f"{BASE}/person/search", json={"status": 200, "total": 1, "data": [{**PERSON, **change}]})
    answer = api.post(f"/api/deals/contacts/{contact.id}/enrich", as_=employee)
    assert answer.status == 200, answer.json
    data = answer.json["network_data"]
    assert data["full_name"] == "sean thorne" and data["job_title"] == PERSON["job_title"]
    assert data["skills"] == (PERSON["skills"] if "skills" not in change else [])
