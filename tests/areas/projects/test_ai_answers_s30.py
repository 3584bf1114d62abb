"""Session 30, the project AI summary (POST /api/projects/:id/ai-summary) with the live AI provider answering
outside the asked shape (`responses`, the OpenAI chat-completions bodies of tests/providers/test_ai_wire.py): a
text the database cannot store is kept cleaned, an answer that cannot be read is the documented 502 (a failed
generation, docs/decisions/projects.md "AI summary"), never a 400 blaming the caller nor a 500."""
import json

import pytest
import responses

from tests.areas.projects.factories import make_project
from tests.factories import make_user
from tests.providers.test_ai_wire import URL, completion, live  # noqa: F401 - live: the fixture

@pytest.mark.parametrize("answer, summary, recommendations", [
    # NUL: Postgres refused the text (22021), answered as the caller's "A value is out of range or malformed" (400)
    ({"summary": "Atlas is on\u0000 track. Two tasks are open. One goal is done.", "recommendations": ["Ship", "Test"]},
     "Atlas is on track. Two tasks are open. One goal is done.", ["Ship", "Test"]),
    # a lone surrogate: the write's UTF-8 encoding failed, a 500 (in the summary and in a recommendation)
    ({"summary": "Atlas is on track \ud800. Two tasks are open. One goal is done.", "recommendations": ["Ship", "Test"]},
     "Atlas is on track \ufffd. Two tasks are open. One goal is done.", ["Ship", "Test"]),
    ({"summary": "Atlas is on track. Two tasks are open. One goal is done.", "recommendations": ["Ship \udfff", "Test"]},
     "Atlas is on track. Two tasks are open. One goal is done.", ["Ship \ufffd", "Test"]),
])
def test_a_summary_text_the_database_refuses_is_stored_cleaned(api, db, live, answer, summary, recommendations):
    boss = make_user(db, access_level="executive")
    project = make_project(db, name="Atlas")
    live.add(responses.POST, URL, json=completion(json.dumps(answer)))
    generated = api.post(f"/api/projects/{project.id}/ai-summary", as_=boss)
    assert generated.status == 200, generated.json
    stored = api.get(f"/api/projects/{project.id}/ai-summary", as_=boss).json["summary"]
    assert (stored["summary_text"], stored["recommendations"]) == (summary, recommendations)


def test_an_answer_nested_too_deep_for_json_loads_is_a_failed_generation(api, db, live):
    boss = make_user(db, access_level="executive")
    project = make_project(db, name="Atlas")
    live.add(responses.POST, URL, json=completion("[" * 5000 + "]" * 5000))  # json.loads' RecursionError: a 500
    generated = api.post(f"/api/projects/{project.id}/ai-summary", as_=boss)
    assert (generated.status, generated.json["error"]) == (502, "AI summary generation failed: the answer was not JSON")
    assert api.get(f"/api/projects/{project.id}/ai-summary", as_=boss).json == {"summary": None}
