"""Session 30, the writes after a side effect: each People Data Labs match spends a credit, and the record it answers
is stored whole in `network_data` (a JSON column). Python's JSON reader takes `NaN` and `Infinity` (and reads 1e400 as
infinity), which are no JSON (RFC 8259) and which Postgres refuses in a JSON column: the store failed after the credit
was spent (a 400 blaming the request), the 24-hour guard was not set, and each retry spent another credit and failed
again. A number that is not finite cannot be read: it is stored as null, and the rest of the record is kept."""
import responses

from tests.areas.deals.factories import make_company, make_contact

BASE = "https://api.peopledatalabs.com/v5"


def _live(set_env):
    set_env(ENRICHMENT_MODE="live", PDL_API_KEY="pdl-key")


def test_a_company_record_with_a_number_that_is_not_finite_is_kept(api, db, employee, set_env):
    _live(set_env)
    company = make_company(db, name="Acme", domain="acme.test")
    with responses.RequestsMock() as pdl:
        pdl.get(f"{BASE}/company/enrich", content_type="application/json",
                body='{"status": 200, "name": "acme", "website": "acme.test", "likelihood": NaN, '
                     '"employee_count": Infinity, "inferred_revenue": 1e400}')
        answer = api.post(f"/api/deals/companies/{company.id}/enrich", as_=employee)
    assert answer.status == 200, answer
    assert answer.json["network_data"] == {"status": 200, "name": "acme", "website": "acme.test", "likelihood": None,
                                           "employee_count": None, "inferred_revenue": None}
    db.refresh(company)
    assert company.network_data["name"] == "acme" and company.network_enriched_at is not None


def test_a_person_record_with_a_likelihood_that_is_not_finite_is_kept(api, db, employee, set_env):
    _live(set_env)
    contact = make_contact(db, first_name="Sean", network_url="https://linkedin.com/in/seanthorne")
    with responses.RequestsMock() as pdl:
        pdl.get(f"{BASE}/person/enrich", content_type="application/json",
                body='{"status": 200, "likelihood": -Infinity, "data": {"full_name": "sean thorne"}}')
        answer = api.post(f"/api/deals/contacts/{contact.id}/enrich", as_=employee)
    assert answer.status == 200, answer
    assert (answer.json["network_data"]["full_name"], answer.json["network_data"]["likelihood"]) == ("sean thorne",
                                                                                                    None)
    db.refresh(contact)
    assert contact.network_data["full_name"] == "sean thorne" and contact.network_enriched_at is not None
