"""People Data Labs v5 wire format (`responses`, no network): the person search query must use PDL's field
names with the values as PDL stores them. The Elasticsearch mapping
(https://docs.peopledatalabs.com/docs/elasticsearch-mapping) makes `full_name` and `job_company_name` `keyword`
fields, and the person data is lower-case, so a value typed as "Sean Thorne" must be sent as "sean thorne"."""
import json

import responses

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
