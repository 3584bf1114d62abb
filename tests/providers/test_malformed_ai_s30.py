"""Session 30, the live AI adapter's answers outside the asked shape through the pages AI routes (`responses`, the
OpenAI chat-completions bodies of tests/providers/test_ai_wire.py): a text answer carrying a lone surrogate is
answered with U+FFFD in its place, a body nested too deep to read is the provider's 502, never a 500."""
import pytest
import responses

from tests.factories import make_user
from tests.providers.test_ai_wire import URL, command, completion, copilot, live  # noqa: F401 - live: the fixture


def test_a_copilot_answer_with_a_lone_surrogate_or_a_nul_is_answered_cleaned(api, db, live):
    """The JSON answer carried `\\ud800`, which a strict reader (the service's own response check) refuses: a 500."""
    user = make_user(db)
    live.add(responses.POST, URL, json=completion(" and we\u0000 ship \ud800"))
    answered = copilot(api, user)
    assert answered.status == 200, answered.json
    assert answered.json == {"text": " and we ship \ufffd", "content": [{"type": "text", "text": " and we ship \ufffd"}]}


@pytest.mark.parametrize("route", [copilot, command])
def test_a_body_nested_too_deep_to_read_is_502(api, db, live, route):
    """requests' `json()` raised RecursionError, which the adapter did not catch: a 500."""
    live.add(responses.POST, URL, body="[" * 5000 + "]" * 5000, content_type="application/json")
    answered = route(api, make_user(db))
    assert (answered.status, answered.json["error"]) == (502, "AI provider answer could not be read")


@pytest.mark.parametrize("status", [429, 500])
def test_an_error_body_nested_too_deep_to_read_names_only_the_status(api, db, live, waits, status):
    """`_message` and `_quota_refused` read the error body too: their RecursionError was a 500."""
    for _ in range(2 if status == 429 else 1):  # a rate limit is tried once more
        live.add(responses.POST, URL, status=status, body="[" * 5000 + "]" * 5000, content_type="application/json")
    answered = copilot(api, make_user(db))
    assert answered.status == (503 if status == 429 else 502), answered.json
    if status == 500:
        assert answered.json["error"] == "AI provider answered 500"
