"""Session 30, Slack answers outside the documented shapes of auth.test (`team`, `team_id`: strings,
https://docs.slack.dev/reference/methods/auth.test) and users.lookupByEmail (`user`: a User object whose `id` is a
string, https://docs.slack.dev/reference/methods/users.lookupByEmail): the team's name is a label (one that is no
string is none), an id that cannot be read is the provider's 502, never an AttributeError (a 500 on the connection
route, a delivery failed with the exception's type) nor a value past `connections.external_id` (a 400 for a
working token)."""
import pytest
import responses

from chalicelib.areas.connections.models import Connection
from chalicelib.core.errors import BadGateway
from chalicelib.providers.chat.live import SlackChat
from tests.providers.test_slack_live import LOOKUP

AUTH = "https://slack.com/api/auth.test"
BASE = "/api/admin/connections/chat"


@pytest.mark.parametrize("team", [7, ["Agency"], {"name": "Agency"}, True])
@responses.activate
def test_a_team_name_that_is_no_string_is_none_and_the_token_connects(api, db, exec_user, set_env, team):
    set_env(CHAT_MODE="live")
    responses.post(AUTH, json={"ok": True, "team": team, "team_id": "T1", "user_id": "U1"})
    made = api.put(BASE, as_=exec_user, json={"bot_token": "xoxb-t", "channel_id": "C9"})
    assert made.status == 200, made.json
    assert made.json["connection"]["org_name"] is None


@pytest.mark.parametrize("team_id", [7, ["T1"], {"id": "T1"}, "T" * 101])
@responses.activate
def test_a_team_id_that_cannot_be_read_is_a_502_and_nothing_is_stored(api, db, exec_user, set_env, team_id):
    set_env(CHAT_MODE="live")
    responses.post(AUTH, json={"ok": True, "team": "Agency", "team_id": team_id, "user_id": "U1"})
    answer = api.put(BASE, as_=exec_user, json={"bot_token": "xoxb-t", "channel_id": "C9"})
    assert answer.status == 502, answer.json
    assert answer.json == {"error": "Team chat answered auth.test with a team_id that cannot be read"}
    db.expire_all()
    assert db.get(Connection, "chat") is None


@pytest.mark.parametrize("user", ["U1", ["U1"], 5, {"id": 5}, {"id": ["U1"]}])
@responses.activate
def test_a_lookup_whose_user_cannot_be_read_is_a_502(user):
    responses.get(LOOKUP, json={"ok": True, "user": user})
    with pytest.raises(BadGateway, match="users.lookupByEmail with a user that cannot be read"):
        SlackChat(token="xoxb-t").lookup_user_by_email("a@b.test")


@responses.activate
def test_a_lookup_answered_as_documented_names_the_member():
    responses.get(LOOKUP, json={"ok": True, "user": {"id": "W012A3CDE", "name": "spengler"}})
    assert SlackChat(token="xoxb-t").lookup_user_by_email("a@b.test") == "W012A3CDE"
