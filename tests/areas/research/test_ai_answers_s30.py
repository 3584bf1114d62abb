"""Session 30, research briefs (POST /api/research/run) with the live AI provider answering outside the asked shape
(`responses`, the OpenAI chat-completions bodies of tests/providers/test_ai_wire.py). A provider failure stores a
`failed` brief naming why, never a 500 (docs/decisions/research.md "The fetch"): its error text is the provider's
own words, which may carry a NUL or a lone surrogate the database refuses."""
import json

import pytest
import responses

from tests.areas.deals.factories import make_company
from tests.providers.test_ai_wire import URL, completion, live  # noqa: F401 - live: the fixture

def _run(api, employee, db):
    company = make_company(db, website="https://www.acme-homewares.com.au")
    return api.post("/api/research/run", as_=employee, json={"entity_type": "company", "entity_id": company.id})


@pytest.mark.parametrize("answer, error", [
    # NUL: the brief's insert failed (22021), answered as the caller's 400 "A value is out of range or malformed"
    ({"json": completion(None, refusal="I can\u0000not help")},
     "The AI provider failed: AI provider refused: I cannot help"),
    # a lone surrogate: the insert's UTF-8 encoding failed, a 500
    ({"json": completion(None, refusal="I can\ud800not help")},
     "The AI provider failed: AI provider refused: I can\ufffdnot help"),
    ({"status": 500, "json": {"error": {"message": "overloaded\u0000", "type": "server_error"}}},
     "The AI provider failed: AI provider answered 500: overloaded"),
    # json.loads' RecursionError: a 500
    ({"json": completion("[" * 5000 + "]" * 5000)},
     "The AI provider failed: AI research brief failed: the answer was not JSON"),
    # the HTTP body itself nested past what requests' json() reads
    ({"body": "[" * 5000 + "]" * 5000, "content_type": "application/json"},
     "The AI provider failed: AI provider answer could not be read"),
])
def test_a_provider_failure_in_words_the_database_refuses_stores_a_failed_brief(api, db, employee, live, answer,
                                                                                 error):
    live.add(responses.POST, URL, **answer)
    ran = _run(api, employee, db)
    assert ran.status == 201, ran.json
    brief = ran.json["brief"]
    assert (brief["status"], brief["error"], brief["brief_content"]) == ("failed", error, None)


def test_a_brief_text_with_a_lone_surrogate_is_kept_cleaned(api, db, employee, live):
    """pydantic refuses a lone surrogate in a str: the whole brief was stored `failed` ("did not match the brief
    schema") for one character the model escaped badly."""
    live.add(responses.POST, URL, json=completion(json.dumps({
        "company_summary": "Acme sells homewares \ud800", "talking_points": ["Ask about\u0000 growth"]})))
    ran = _run(api, employee, db)
    assert ran.status == 201, ran.json
    brief = ran.json["brief"]
    assert brief["status"] == "completed", brief["error"]
    assert (brief["brief_content"]["company_summary"], brief["brief_content"]["talking_points"]) == (
        "Acme sells homewares \ufffd", ["Ask about growth"])

