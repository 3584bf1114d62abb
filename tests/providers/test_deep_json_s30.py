"""Session 30: a provider body nested deeper than json.loads reads raised RecursionError, which the adapters' readers
(catching ValueError, as for a body that is not JSON) let through: a 500. `providers.http.read_json` (every adapter's
reader) and People Data Labs' own reader turn it into the ValueError of a body that cannot be read."""
import pytest
import responses

from chalicelib.core.errors import DomainError
from chalicelib.providers import http
from chalicelib.providers.enrichment.live import DEFAULT_BASE_URL, PeopleDataLabs

DEEP = "[" * 200_000 + "]" * 200_000


@responses.activate
def test_read_json_of_a_body_nested_too_deep_is_a_value_error():
    responses.get("https://provider.example.test/deep", body=DEEP, content_type="application/json")
    import requests

    with pytest.raises(ValueError):
        http.read_json(requests.get("https://provider.example.test/deep"))
    responses.get("https://provider.example.test/deep2", body=DEEP, content_type="application/json")
    with pytest.raises(DomainError) as raised:
        http.json_body(requests.get("https://provider.example.test/deep2"), "The thing")
    assert raised.value.status == 502


@responses.activate
def test_people_data_labs_body_nested_too_deep_is_no_500():
    responses.get(f"{DEFAULT_BASE_URL}/company/enrich", body=DEEP, status=500, content_type="application/json")
    with pytest.raises(DomainError):
        PeopleDataLabs(api_key="k").enrich_company(name="Acme", website="acme.test")
