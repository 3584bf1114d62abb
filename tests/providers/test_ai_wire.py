"""The live AI adapter's wire format (OpenAI Chat Completions) through the pages AI routes, with `responses`:
bodies and headers follow the provider's documents, cited at each test.

- request and answer: https://platform.openai.com/docs/api-reference/chat/create and the SDK's types
  (openai/openai-python src/openai/types/chat/completion_create_params.py, chat_completion.py,
  chat_completion_message.py);
- errors and 429s: https://platform.openai.com/docs/guides/error-codes and
  https://platform.openai.com/docs/guides/rate-limits (x-ratelimit-* headers), the SDK's retry delay
  (openai/openai-python src/openai/_base_client.py `_parse_retry_after_header`: retry-after-ms, then retry-after).
"""
import json

import pytest
import responses

from tests.factories import make_user

URL = "https://ai.provider.test/v1/chat/completions"
DOC = [{"type": "p", "children": [{"text": "We ship on Friday."}]}]

# https://platform.openai.com/docs/guides/rate-limits: the headers of an answer (and of a 429).
RATE_HEADERS = {"x-ratelimit-limit-requests": "60", "x-ratelimit-limit-tokens": "150000",
                "x-ratelimit-remaining-requests": "0", "x-ratelimit-remaining-tokens": "149984",
                "x-ratelimit-reset-requests": "2s", "x-ratelimit-reset-tokens": "6m0s"}
# https://platform.openai.com/docs/guides/error-codes ("429 - Rate limit reached for requests").
RATE_LIMITED = {"error": {"message": "Rate limit reached for gpt-4o-mini in organization org-abc on requests per min "
                                     "(RPM): Limit 60, Used 60, Requested 1. Please try again in 2s.",
                          "type": "requests", "param": None, "code": "rate_limit_exceeded"}}
# Same guide ("429 - You exceeded your current quota, please check your plan and billing details").
QUOTA = {"error": {"message": "You exceeded your current quota, please check your plan and billing details. For more "
                              "information on this error, read the docs: "
                              "https://platform.openai.com/docs/guides/error-codes/api-errors.",
                   "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}


def completion(content, *, finish_reason="stop", refusal=None) -> dict:
    """A chat.completion object (the create answer of the API reference)."""
    return {"id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", "object": "chat.completion", "created": 1741569952,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "refusal": refusal,
                                                 "annotations": []},
                         "logprobs": None, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29},
            "service_tier": "default", "system_fingerprint": "fp_06737a9306"}


@pytest.fixture
def live(set_env):
    set_env(AI_MODE="live", AI_API_KEY="sk-test-key", AI_BASE_URL="https://ai.provider.test/v1", AI_MODEL="gpt-4o-mini")
    with responses.RequestsMock() as mock:
        yield mock


@pytest.fixture
def user(db):
    return make_user(db)


def copilot(api, user, prompt="We ship on Friday"):
    return api.post("/api/pages/ai/copilot", as_=user, json={"prompt": prompt})


def command(api, user, instruction="Add a closing line"):
    return api.post("/api/pages/ai/command", as_=user, json={
        "ctx": {"children": DOC, "selection": None},
        "messages": [{"role": "user", "parts": [{"type": "text", "text": instruction}]}]})


def test_a_length_cap_is_sent_as_max_completion_tokens(api, user, live):
    # API reference: `max_tokens` is "deprecated in favor of max_completion_tokens, and is not compatible with
    # o-series models".
    live.add(responses.POST, URL, json=completion(" and we celebrate after."))
    assert copilot(api, user).status == 200
    sent = json.loads(live.calls[0].request.body)
    assert sent["max_completion_tokens"] == 50 and "max_tokens" not in sent
    assert sent["model"] == "gpt-4o-mini" and sent["temperature"] == 0.3


def test_a_rate_limit_without_retry_after_waits_the_exhausted_limits_reset(api, user, live, waits):
    # A rate-limit 429 carries the x-ratelimit-* headers; the requests limit (remaining 0) resets in 2s.
    live.add(responses.POST, URL, status=429, json=RATE_LIMITED, headers=RATE_HEADERS)
    live.add(responses.POST, URL, json=completion(" later"))
    response = copilot(api, user)
    assert response.status == 200 and response.json["text"] == " later"
    assert waits == [2.0] and len(live.calls) == 2


def test_retry_after_ms_is_read_before_retry_after(api, user, live, waits):
    live.add(responses.POST, URL, status=429, json=RATE_LIMITED,
             headers={"retry-after-ms": "1500", "Retry-After": "2"})
    live.add(responses.POST, URL, json=completion(" later"))
    assert copilot(api, user).status == 200
    assert waits == [1.5]


def test_a_rate_limit_resetting_too_late_is_503_naming_the_wait(api, user, live, waits):
    headers = {**RATE_HEADERS, "x-ratelimit-remaining-requests": "59", "x-ratelimit-remaining-tokens": "0"}
    limited = {"error": {**RATE_LIMITED["error"], "type": "tokens"}}
    live.add(responses.POST, URL, status=429, json=limited, headers=headers)
    response = copilot(api, user)
    assert response.status == 503 and response.json["retry_after"] == 360
    assert waits == [] and len(live.calls) == 1


def test_insufficient_quota_is_502_at_once_whatever_its_headers(api, user, live, waits):
    live.add(responses.POST, URL, status=429, json=QUOTA, headers={"Retry-After": "1"})
    response = copilot(api, user)
    assert response.status == 502 and "exceeded your current quota" in response.json["error"]
    assert waits == [] and len(live.calls) == 1


def test_a_refusal_is_502_naming_it(api, user, live):
    # chat_completion_message.py: `refusal: Optional[str]` "The refusal message generated by the model".
    live.add(responses.POST, URL, json=completion(None, refusal="I'm sorry, I can't help with that request."))
    response = command(api, user)
    assert response.status == 502 and "I can't help with that request" in response.json["error"]


def test_a_content_filtered_answer_is_502(api, user, live):
    # chat_completion.py: finish_reason `content_filter` "if content was omitted due to a flag from our
    # content filters".
    live.add(responses.POST, URL, json=completion("", finish_reason="content_filter"))
    response = copilot(api, user)
    assert response.status == 502 and "content filter" in response.json["error"]


def test_an_answer_cut_off_without_a_cap_is_502_and_a_capped_one_is_the_answer(api, user, live):
    # finish_reason `length`: "the maximum number of tokens specified in the request was reached" (or the
    # context length). The edit command asks for no cap: its text is cut short.
    live.add(responses.POST, URL, json=completion("A closing line that stops in the", finish_reason="length"))
    response = command(api, user)
    assert response.status == 502 and "cut off" in response.json["error"]
    live.add(responses.POST, URL, json=completion(" and we celebrate after the", finish_reason="length"))
    response = copilot(api, user)
    assert response.status == 200 and response.json["text"] == " and we celebrate after the"
