"""The live team chat (Slack Web API) adapter with `responses`: 429 with Retry-After (a short wait waited and
the call made once more, a long one or a second 429 a failure to retry later), timeouts 504."""
import json

import pytest
import requests
import responses

from chalicelib.core.errors import BadGateway, GatewayTimeout
from chalicelib.providers.chat.live import SlackChat

POST = "https://slack.com/api/chat.postMessage"
LOOKUP = "https://slack.com/api/users.lookupByEmail"
POSTED = {"ok": True, "channel": "C123ABC456", "ts": "1503435956.000247",
          "message": {"text": "Hello", "username": "ecto1", "bot_id": "B123ABC456", "type": "message",
                      "subtype": "bot_message", "ts": "1503435956.000247"}}


@responses.activate
def test_a_short_retry_after_is_waited_and_the_call_made_once_more(waits):
    responses.post(POST, status=429, headers={"Retry-After": "3"})
    responses.post(POST, json=POSTED)
    chat = SlackChat(token="xoxb-test-token")
    assert chat.post_message(channel="C123ABC456", text="Hello") == {"channel": "C123ABC456",
                                                                      "ts": "1503435956.000247"}
    assert waits == [3.0] and len(responses.calls) == 2
    assert json.loads(responses.calls[1].request.body)["channel"] == "C123ABC456"
    assert responses.calls[1].request.headers["Authorization"] == "Bearer xoxb-test-token"
    responses.get(LOOKUP, status=429, headers={"Retry-After": "1"})
    responses.get(LOOKUP, json={"ok": True, "user": {"id": "W012A3CDE", "team_id": "T012AB3C4"}})
    assert chat.lookup_user_by_email("spengler@ghostbusters.example.com") == "W012A3CDE"
    assert waits == [3.0, 1.0]


@responses.activate
def test_a_long_retry_after_or_a_second_429_is_a_failure_to_retry_later(waits):
    chat = SlackChat(token="xoxb-test-token")
    responses.post(POST, status=429, headers={"Retry-After": "30"})
    with pytest.raises(BadGateway, match="retry after 30 s"):
        chat.post_message(channel="C1", text="x")
    assert waits == [] and len(responses.calls) == 1
    responses.replace(responses.POST, POST, status=429, headers={"Retry-After": "2"})
    with pytest.raises(BadGateway, match="retry after 2 s"):
        chat.post_message(channel="C1", text="x")
    assert waits == [2.0] and len(responses.calls) == 3


@responses.activate
def test_a_timeout_is_504_and_an_unreachable_slack_502():
    chat = SlackChat(token="xoxb-test-token")
    responses.post(POST, body=requests.ReadTimeout("slow"))
    with pytest.raises(GatewayTimeout):
        chat.post_message(channel="C1", text="x")
    responses.replace(responses.POST, POST, body=requests.ConnectionError("refused"))
    with pytest.raises(BadGateway, match="unreachable"):
        chat.post_message(channel="C1", text="x")
