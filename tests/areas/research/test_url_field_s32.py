"""Session 32, audit "error bodies that name the wrong field": a refused URL is a 422 naming `store_url` only when it
is the `store_url` the request sent. A URL the run took from the deal's or company's website, or a refresh took from
the brief (a route with no body), was answered naming `store_url`, a field the request had not sent (or that the
route does not take); now the error alone says whose URL it is."""
from tests.areas.deals.factories import make_company, make_deal
from tests.conftest import RESOLVES


def test_a_refused_url_names_store_url_only_when_it_was_sent(api, db, employee):
    company = make_company(db, website="https://moving.example.com")
    deal = make_deal(db, company_id=company.id, owner_id=employee.id, title="Moving")
    first = api.post("/api/research/run", as_=employee, json={"entity_type": "deal", "entity_id": deal.id})
    assert first.status == 201, first.json
    RESOLVES["moving.example.com"] = ["10.0.0.1"]  # the site's name now points inside
    refreshed = api.post(f"/api/research/{first.json['brief']['id']}/refresh", as_=employee)
    assert refreshed.status == 422 and "details" not in refreshed.json, refreshed.json
    assert "https://moving.example.com" in refreshed.json["error"], refreshed.json
    stored = api.post("/api/research/run", as_=employee, json={"entity_type": "deal", "entity_id": deal.id})
    assert stored.status == 422 and "details" not in stored.json, stored.json
    assert "website" in stored.json["error"], stored.json
    sent = api.post("/api/research/run", as_=employee, json={"entity_type": "deal", "entity_id": deal.id,
                                                             "store_url": "http://moving.example.com/"})
    assert sent.status == 422 and [d["field"] for d in sent.json["details"]] == ["store_url"], sent.json
