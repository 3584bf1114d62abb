"""Session 29, a Slack Web API answer that is not a JSON object (every method answers `{"ok": ...}`,
https://docs.slack.dev/apis/web-api/#responses) is the provider's failure, a 502 naming it, never a 500: through
the connection route that calls auth.test (as tests/areas/connections/test_connections.py) and the adapter's
other calls."""
import pytest
import responses

from chalicelib.core.errors import BadGateway
from chalicelib.providers.chat.live import SlackChat
from tests.providers.test_slack_live import LOOKUP, POST

AUTH = "https://slack.com/api/auth.test"


@pytest.mark.parametrize("body", [[{"ok": True}], "ok", 1])
@responses.activate
def test_connecting_a_bot_whose_auth_test_answer_is_not_an_object_is_a_502(api, exec_user, set_env, body):
    """Session 29: `data.get("ok")` on a JSON list, string or number raised AttributeError, a 500."""
    set_env(CHAT_MODE="live")
    responses.post(AUTH, json=body)
    answer = api.put("/api/admin/connections/chat", as_=exec_user, json={"bot_token": "xoxb-t", "channel_id": "C9"})
    assert answer.status == 502, answer.json
    assert answer.json == {"error": "Team chat answered auth.test with a body that is not a JSON object"}


@responses.activate
def test_a_post_or_a_lookup_answered_with_a_list_is_a_502():
    responses.post(POST, json=[{"ok": True, "ts": "1.2"}])
    with pytest.raises(BadGateway, match="chat.postMessage with a body that is not a JSON object"):
        SlackChat(token="xoxb-t").post_message(channel="C1", text="Hello")
    responses.get(LOOKUP, json=["U1"])
    with pytest.raises(BadGateway, match="users.lookupByEmail with a body that is not a JSON object"):
        SlackChat(token="xoxb-t").lookup_user_by_email("a@b.test")
