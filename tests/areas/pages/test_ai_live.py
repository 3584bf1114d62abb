"""The live AI adapter (OpenAI-compatible chat completions) behind the pages AI routes, against
recorded provider answers (`responses`): the request it sends and how it reads answers and errors."""
import json

import pytest
import requests
import responses

from tests.factories import make_user

URL = "https://ai.provider.test/v1/chat/completions"
DOC = [{"type": "p", "children": [{"text": "We ship on Friday."}]}]


def completion(text: str) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}}


@pytest.fixture
def live(set_env):
    set_env(AI_MODE="live", AI_API_KEY="sk-test-key", AI_BASE_URL="https://ai.provider.test/v1", AI_MODEL="test-model")
    with responses.RequestsMock() as mock:
        yield mock


@pytest.fixture
def user(db):
    return make_user(db)


def sent(mock) -> dict:
    assert len(mock.calls) == 1
    call = mock.calls[0]
    assert call.request.url == URL
    assert call.request.headers["Authorization"] == "Bearer sk-test-key"
    return json.loads(call.request.body)


def test_copilot_sends_prompt_with_max_completion_tokens_50(api, user, live):
    live.add(responses.POST, URL, json=completion(" and we celebrate after."))
    response = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "We ship on Friday", "system": "Go on."})
    assert response.status == 200
    assert response.json["text"] == " and we celebrate after."
    payload = sent(live)
    # https://platform.openai.com/docs/api-reference/chat/create: `max_tokens` is deprecated in favour of
    # `max_completion_tokens` (and refused by reasoning models).
    assert payload["model"] == "test-model" and payload["max_completion_tokens"] == 50 and "max_tokens" not in payload
    assert payload["messages"][0]["role"] == "system"
    assert payload["messages"][-1] == {"role": "user", "content": "We ship on Friday"}


def test_edit_command_sends_instruction_selection_and_context(api, user, live):
    live.add(responses.POST, URL, json=completion("We ship on Monday."))
    selection = {"anchor": {"path": [0, 0], "offset": 0}, "focus": {"path": [0, 0], "offset": 18}}
    response = api.post("/api/pages/ai/command", as_=user, json={
        "ctx": {"children": DOC, "selection": selection, "toolName": "edit"},
        "messages": [{"role": "user", "parts": [{"type": "text", "text": "Change the day to Monday"}]}]})
    assert response.status == 200
    body = response.body.decode()
    assert '"type":"data-toolName","data":"edit"' in body
    deltas = [json.loads(line[6:]) for line in body.split("\n\n") if line.startswith("data: {")]
    assert "".join(p["delta"] for p in deltas if p["type"] == "text-delta") == "We ship on Monday."
    payload = sent(live)
    assert payload["model"] == "test-model" and "max_tokens" not in payload and "max_completion_tokens" not in payload
    system, user_message = payload["messages"]
    assert system["role"] == "system" and "Edit the selected text" in system["content"]
    assert "Instruction: Change the day to Monday" in user_message["content"]
    assert "Selected text:\nWe ship on Friday." in user_message["content"]
    assert "Document context:\nWe ship on Friday." in user_message["content"]


def test_generate_command_uses_the_generate_prompt(api, user, live):
    live.add(responses.POST, URL, json=completion("A new paragraph."))
    response = api.post("/api/pages/ai/command", as_=user, json={
        "ctx": {"children": DOC, "selection": None},
        "messages": [{"role": "user", "parts": [{"type": "text", "text": "Add a closing line"}]}]})
    assert response.status == 200 and '"data":"generate"' in response.body.decode()
    system, user_message = sent(live)["messages"]
    assert "Write new text" in system["content"] and "Selected text" not in user_message["content"]


@pytest.mark.parametrize("answer", [
    {"status": 500, "json": {"error": {"message": "The server had an error while processing your request.",
                                       "type": "server_error", "param": None, "code": None}}},
    # https://platform.openai.com/docs/guides/error-codes: a quota refusal (billing; retrying cannot help).
    {"status": 429, "json": {"error": {"message": "You exceeded your current quota, please check your plan and "
                                                  "billing details.", "type": "insufficient_quota", "param": None,
                                       "code": "insufficient_quota"}}},
    {"status": 200, "body": "not json"},
    {"status": 200, "json": {"choices": []}},
    {"status": 200, "json": {"choices": [{"message": {"content": None}}]}},
    {"body": requests.ConnectionError("refused")},
])
def test_provider_failures_are_502(api, user, live, answer):
    live.add(responses.POST, URL, **answer)
    response = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hello"})
    assert response.status == 502 and "error" in response.json
    live.add(responses.POST, URL, **answer)
    command = api.post("/api/pages/ai/command", as_=user, json={
        "ctx": {"children": DOC, "selection": None},
        "messages": [{"role": "user", "parts": [{"type": "text", "text": "Write"}]}]})
    assert command.status == 502


def test_live_without_key_is_503(api, user, set_env):
    set_env(AI_MODE="live", AI_API_KEY=None)
    assert api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hello"}).status == 503


def test_copilot_bounds_the_provider_call_by_the_client_deadline(api, user, live):
    live.add(responses.POST, URL, json=completion(" soon"))
    response = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"},
                        headers={"X-Request-Timeout-Ms": "2000"})
    assert response.status == 200
    assert live.calls[0].request.req_kwargs["timeout"] == pytest.approx(2.0)


def test_copilot_provider_timeout_past_the_deadline_is_408(api, user, live, monkeypatch):
    import chalicelib.areas.pages.service_ai as service_ai

    clock = iter([100.0, 100.5])  # the provider call "took" 0.5 s against a 0.2 s deadline
    monkeypatch.setattr(service_ai, "_clock", lambda: next(clock))
    live.add(responses.POST, URL, body=requests.ReadTimeout("timed out"))
    response = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"},
                        headers={"X-Request-Timeout-Ms": "200"})
    assert response.status == 408


def _no_sleep(monkeypatch):
    from chalicelib.providers import http as provider_http

    slept = []
    monkeypatch.setattr(provider_http, "sleep", slept.append)
    return slept


def test_a_429_waits_its_retry_after_and_retries_once(api, user, live, monkeypatch):
    slept = _no_sleep(monkeypatch)
    limited = {"error": {"message": "Rate limit reached for requests", "type": "requests", "param": None,
                         "code": "rate_limit_exceeded"}}
    live.add(responses.POST, URL, status=429, json=limited, headers={"Retry-After": "2"})
    live.add(responses.POST, URL, json=completion(" later"))
    response = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"})
    assert response.status == 200 and response.json["text"] == " later"
    assert slept == [2.0] and len(live.calls) == 2


def test_a_429_twice_or_with_a_long_retry_after_is_503(api, user, live, monkeypatch):
    slept = _no_sleep(monkeypatch)
    limited = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
    live.add(responses.POST, URL, status=429, json=limited, headers={"Retry-After": "1"})
    live.add(responses.POST, URL, status=429, json=limited, headers={"Retry-After": "1"})
    response = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"})
    assert response.status == 503 and response.json["retry_after"] == 1 and slept == [1.0]
    live.add(responses.POST, URL, status=429, json=limited, headers={"Retry-After": "120"})
    response = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"})
    assert response.status == 503 and response.json["retry_after"] == 120 and slept == [1.0]


def test_a_provider_timeout_within_the_deadline_is_504_and_errors_carry_the_message(api, user, live):
    live.add(responses.POST, URL, body=requests.ReadTimeout("timed out"))
    assert api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"}).status == 504
    live.add(responses.POST, URL, status=500, json={"error": {"message": "The server had an error while processing "
                                                              "your request.", "type": "server_error"}})
    response = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"})
    assert response.status == 502 and "The server had an error" in response.json["error"]
    live.add(responses.POST, URL, status=401, json={"error": {"message": "Incorrect API key provided: sk-test-key",
                                                              "type": "invalid_request_error"}})
    response = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"})
    assert response.status == 502 and "sk-test-key" not in response.json["error"]
