"""Session 29, code no test ran in the team-chat adapters (Slack Web API, `responses`): a message with blocks,
a lookup or auth.test failing otherwise than the handled codes, and the off mode and a connection-less channel."""
import json

import pytest
import responses

from chalicelib.core.errors import BadGateway, ServiceUnavailable
from chalicelib.providers.chat import chat_for_token, default_channel
from chalicelib.providers.chat.live import SlackChat
from tests.providers.test_slack_live import LOOKUP, POST, POSTED

AUTH = "https://slack.com/api/auth.test"


@responses.activate
def test_blocks_are_sent_with_the_text():
    responses.post(POST, json=POSTED)
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "*Hello*"}}]
    SlackChat(token="xoxb-t").post_message(channel="C1", text="Hello", blocks=blocks)
    assert json.loads(responses.calls[0].request.body)["blocks"] == blocks


@responses.activate
def test_a_lookup_or_auth_test_failing_otherwise_is_the_providers_502():
    # https://api.slack.com/methods/users.lookupByEmail and auth.test: {"ok": false, "error": ...}
    responses.get(LOOKUP, json={"ok": False, "error": "ratelimited"})
    with pytest.raises(BadGateway, match="refused users.lookupByEmail: ratelimited"):
        SlackChat(token="xoxb-t").lookup_user_by_email("a@b.test")
    responses.post(AUTH, json={"ok": False, "error": "fatal_error"})
    with pytest.raises(BadGateway, match="refused auth.test: fatal_error"):
        SlackChat(token="xoxb-t").auth_test()


def test_off_and_no_session(set_env):
    set_env(CHAT_MODE="off")
    with pytest.raises(ServiceUnavailable, match="not configured"):
        chat_for_token("xoxb-t")
    assert default_channel(None) is None
