"""Session 30 (limits audit): the name a provider gives its organisation is shown, and stored in `org_name`
(String(255)); a live Slack `auth.test` answering a longer team name made the connect a 400 ("A value is out of range
or malformed", no field) for a token that works. The name is a label: it is kept to its first 255 characters."""
import responses

from chalicelib.areas.connections.models import Connection

BASE = "/api/admin/connections"


@responses.activate
def test_a_team_name_past_255_characters_is_cut_and_the_token_connects(api, db, exec_user, set_env):
    set_env(CHAT_MODE="live")
    name = "Agency " + "x" * 300
    responses.post("https://slack.com/api/auth.test", json={"ok": True, "team": name, "team_id": "T1",
                                                            "user_id": "U1", "bot_id": "B1"})
    made = api.put(f"{BASE}/chat", as_=exec_user, json={"bot_token": "xoxb-stored", "channel_id": "C9"})
    assert made.status == 200, made
    assert made.json["connection"]["org_name"] == name[:255]
    db.expire_all()
    assert db.get(Connection, "chat").org_name == name[:255]
