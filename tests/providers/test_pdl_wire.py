"""People Data Labs v5 wire format (`responses`, no network): the person search query must use PDL's field
names with the values as PDL stores them. The Elasticsearch mapping
(https://docs.peopledatalabs.com/docs/elasticsearch-mapping) makes `full_name` and `job_company_name` `keyword`
fields, and the person data is lower-case, so a value typed as "Sean Thorne" must be sent as "sean thorne"."""
import json
import time
from datetime import datetime, timedelta, timezone

import pytest
import responses

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.providers.enrichment.live import PeopleDataLabs

SEARCH = "https://api.peopledatalabs.com/v5/person/search"
# https://docs.peopledatalabs.com/docs/output-response-person-search-api: {status, data: [...], total, scroll_token}
FOUND = {"status": 200, "total": 1, "scroll_token": "1117$12.17",
         "data": [{"id": "qEnOZ5Oh0poWnQ1luFBfVw_0000", "full_name": "sean thorne",
                   "job_company_name": "people data labs", "linkedin_url": "linkedin.com/in/seanthorne"}]}


@responses.activate
def test_person_search_sends_lower_case_keyword_terms():
    responses.post(SEARCH, json=FOUND)
    found = PeopleDataLabs(api_key="pdl-key").search_person(name="  Sean   Thorne ", email="Sean@PeopleDataLabs.com",
                                                            company="People Data Labs")
    assert found["id"] == "qEnOZ5Oh0poWnQ1luFBfVw_0000"
    request = responses.calls[0].request
    assert request.headers["X-Api-Key"] == "pdl-key"
    sent = json.loads(request.body)
    assert sent == {"size": 1, "query": {"bool": {"must": [
        {"term": {"emails.address": "sean@peopledatalabs.com"}},
        {"term": {"full_name": "sean thorne"}},
        {"term": {"job_company_name": "people data labs"}}]}}}


# --- 429: `x-ratelimit-reset` is when the window resets (UTC), not seconds ----------------------------------------
# https://docs.peopledatalabs.com/docs/usage-limits: x-ratelimit-reset, "The UTC timestamp that indicates when the
# rate limit will reset", e.g. "2022-02-23T20:19:55Z"; support/troubleshooting/rate-limit-errors: "Read the
# x-ratelimit-reset header to see when the window resets, in UTC". Before July 2022: "UTC epoch seconds".

ENRICH = "https://api.peopledatalabs.com/v5/company/enrich"
RATE_LIMITED = {"status": 429, "error": {"type": "rate_limit_error", "message": "Rate limit exceeded"}}


def _rate_limited(headers):
    responses.get(ENRICH, json=RATE_LIMITED, status=429, headers=headers)
    with pytest.raises(ServiceUnavailable) as raised:
        PeopleDataLabs(api_key="pdl-key").enrich_company(name="Google", website=None)
    return raised.value


def _in(seconds: int) -> str:
    return (datetime.now(timezone.utc) + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


@responses.activate
def test_a_reset_time_in_utc_is_read_as_whole_seconds_from_now():
    error = _rate_limited({"x-ratelimit-reset": _in(42)})
    assert 40 <= error.extra["retry_after"] <= 42 and isinstance(error.extra["retry_after"], int)
    assert f"retry after {error.extra['retry_after']} s" in error.message
    assert "T" not in error.message.split("retry after", 1)[1]  # no timestamp passed on as the wait


@responses.activate
def test_a_reset_in_epoch_seconds_is_read_too_and_a_past_one_is_one_second():
    assert 28 <= _rate_limited({"x-ratelimit-reset": str(int(time.time()) + 30)}).extra["retry_after"] <= 30
    responses.reset()
    assert _rate_limited({"x-ratelimit-reset": "2026-01-01T00:00:00Z"}).extra["retry_after"] == 1


@responses.activate
def test_an_unreadable_reset_falls_back_to_retry_after_then_one_second():
    assert _rate_limited({"x-ratelimit-reset": "soon", "Retry-After": "17"}).extra["retry_after"] == 17
    responses.reset()
    assert _rate_limited({"Retry-After": "17"}).extra["retry_after"] == 17
    responses.reset()
    error = _rate_limited({})
    assert error.extra["retry_after"] == 1 and "retry after 1 s" in error.message
