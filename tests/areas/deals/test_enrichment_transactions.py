"""Enrichment and the request's transaction: the provider is called with no transaction open, and a provider
failure answers its status (502, 504) with nothing written."""
import pytest

from chalicelib.core.errors import BadGateway, GatewayTimeout
from chalicelib.providers.enrichment.sandbox import SandboxEnrichment
from tests.areas.deals.factories import make_company, make_contact
from tests.factories import app_in_transaction


@pytest.mark.parametrize("error, status", [(BadGateway("The enrichment provider refused the key"), 502),
                                           (GatewayTimeout("The enrichment provider did not answer"), 504)])
def test_a_failing_provider_writes_nothing(api, db, employee, monkeypatch, error, status):
    company = make_company(db, name="Acme", domain="acme.test")
    contact = make_contact(db, first_name="Ana", last_name="Lee", email="ana@acme.test", company_id=company.id)
    open_during_call = []

    def failing(self, **kwargs):
        open_during_call.append(app_in_transaction(db))
        raise error

    for name in ("enrich_company", "enrich_person", "search_person"):
        monkeypatch.setattr(SandboxEnrichment, name, failing)
    for path in (f"/api/deals/companies/{company.id}/enrich", f"/api/deals/contacts/{contact.id}/enrich"):
        answer = api.post(path, as_=employee)
        assert answer.status == status and answer.json["error"] == error.message, answer
    assert open_during_call == [False, False]
    db.refresh(company)
    db.refresh(contact)
    assert (company.network_data, company.network_enriched_at) == (None, None)
    assert (contact.network_data, contact.network_enriched_at, contact.network_url) == (None, None, None)
