"""Connections (executive only; document 3 and decisions.md section 5) against the sandbox providers: every
operation, the encryption of stored secrets, and that no answer and no log line carries a secret."""
import json
import logging
from urllib.parse import parse_qs, urlparse

import pytest
import responses
from sqlalchemy import func, select

from chalicelib.areas.connections.models import Connection, OAuthState, UserMapping
from chalicelib.core import crypto
from chalicelib.core.models import User
from tests.factories import make_user

BASE = "/api/admin/connections"


@pytest.fixture
def raw_log():
    """Every record the `wms` loggers emit during the test, unformatted and unredacted (message, arguments
    and extra fields): a secret must not reach a log call at all."""
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(f"{record.getMessage()} {record.__dict__!r}")

    handler = Keep(level=logging.DEBUG)
    target = logging.getLogger("wms")
    old_level = target.level
    target.setLevel(logging.DEBUG)
    target.addHandler(handler)
    yield records
    target.removeHandler(handler)
    target.setLevel(old_level)


def authorize(api, user):
    answer = api.get(f"{BASE}/ledger/authorize-url", as_=user)
    assert answer.status == 200, answer
    return parse_qs(urlparse(answer.json["url"]).query)["state"][0]


def test_only_executives(api, db, exec_user):
    head = make_user(db, access_level="head")
    for method, path, body in (("GET", BASE, None), ("GET", f"{BASE}/ledger/authorize-url", None),
                               ("PUT", f"{BASE}/chat", {"bot_token": "xoxb-1", "channel_id": "C1"}),
                               ("PUT", f"{BASE}/planner", {"api_token": "t"}), ("DELETE", f"{BASE}/ledger", None),
                               ("GET", f"{BASE}/user-mappings", None), ("POST", f"{BASE}/user-mappings/sync", None),
                               ("GET", f"{BASE}/calendar/status", None)):
        assert api.request(method, path, as_=head, json=body).status == 403, (method, path)
    assert api.get(BASE, as_=exec_user).json == {"connections": []}


def test_every_other_route_is_executive_only_too(api, db, exec_user):
    """Document 3: connections endpoints need the executive access level, whatever the caller's tool levels
    (a head holds admin:update, a manager update on most tools)."""
    for level in ("head", "manager", "employee"):
        user = make_user(db, access_level=level)
        for method, path, body in (("POST", f"{BASE}/ledger/callback", {"code": "c", "state": "s"}),
                                   ("DELETE", f"{BASE}/planner", None), ("DELETE", f"{BASE}/chat", None),
                                   ("PUT", f"{BASE}/user-mappings/{user.id}", {"ledger_id": "EMP-1"})):
            assert api.request(method, path, as_=user, json=body).status == 403, (level, method, path)
    db.expire_all()
    assert db.get(UserMapping, user.id) is None


def test_ledger_oauth_flow_with_a_one_use_state(api, db, exec_user, raw_log):
    state = authorize(api, exec_user)
    other_exec = make_user(db, access_level="executive")
    assert api.post(f"{BASE}/ledger/callback", as_=other_exec, json={"code": "c", "state": state}).status == 400
    spent = api.post(f"{BASE}/ledger/callback", as_=exec_user, json={"code": "good-code", "state": state})
    assert spent.status == 400  # a state is spent by any attempt, another executive's too
    state = authorize(api, exec_user)
    assert api.post(f"{BASE}/ledger/callback", as_=exec_user, json={"code": "c"}).status == 400  # state required
    refused = api.post(f"{BASE}/ledger/callback", as_=exec_user, json={"code": "invalid-code", "state": state})
    assert refused.status == 400 and "invalid_grant" in refused.json["error"]
    state = authorize(api, exec_user)
    made = api.post(f"{BASE}/ledger/callback", as_=exec_user, json={"code": "good-code", "state": state})
    assert made.status == 200, made
    connection = made.json["connection"]
    assert connection["provider"] == "ledger" and connection["org_name"] == "Sandbox Organisation"
    assert connection["connected_by"] == exec_user.id and connection["token_expires_at"]
    assert api.post(f"{BASE}/ledger/callback", as_=exec_user,
                    json={"code": "good-code", "state": state}).status == 400  # used once
    row = db.get(Connection, "ledger")
    stored = json.loads(crypto.decrypt(row.secret))
    assert stored["access_token"].startswith("sandbox-access-") and stored["refresh_token"]
    assert stored["access_token"] not in row.secret and row.external_id  # encrypted at rest; tenant kept
    listed = api.get(BASE, as_=exec_user)
    assert [c["provider"] for c in listed.json["connections"]] == ["ledger"]
    for secret in (stored["access_token"], stored["refresh_token"]):
        assert secret not in listed.body.decode() and secret not in made.body.decode()
        assert not any(secret in line for line in raw_log)
    assert api.delete(f"{BASE}/ledger", as_=exec_user).json == {"ok": True}
    assert api.get(BASE, as_=exec_user).json == {"connections": []}


def test_expired_state_is_refused(api, db, exec_user):
    from datetime import timedelta

    from chalicelib.core.ids import utcnow

    state = authorize(api, exec_user)
    db.get(OAuthState, state).expires_at = utcnow() - timedelta(seconds=1)
    db.flush()
    assert api.post(f"{BASE}/ledger/callback", as_=exec_user, json={"code": "c", "state": state}).status == 400


def test_planner_token_is_verified_then_stored_encrypted(api, db, exec_user, raw_log):
    refused = api.put(f"{BASE}/planner", as_=exec_user, json={"api_token": "invalid-token"})
    assert refused.status == 400 and "Invalid authentication token" in refused.json["error"]
    assert db.get(Connection, "planner") is None
    token = "pl-secret-token-123456"
    made = api.put(f"{BASE}/planner", as_=exec_user, json={"api_token": token})
    assert made.status == 200 and made.json["connection"]["org_name"] == "Sandbox Agency"
    assert token not in made.body.decode() and not any(token in line for line in raw_log)
    row = db.get(Connection, "planner")
    assert token not in row.secret and json.loads(crypto.decrypt(row.secret)) == {"api_token": token}
    assert api.put(f"{BASE}/planner", as_=exec_user, json={}).status == 400
    assert api.delete(f"{BASE}/planner", as_=exec_user).json == {"ok": True}
    db.expire_all()
    assert db.get(Connection, "planner") is None


def test_chat_token_and_channel(api, db, exec_user, raw_log):
    assert api.put(f"{BASE}/chat", as_=exec_user, json={"bot_token": "xoxb-1"}).status == 400  # channel required
    refused = api.put(f"{BASE}/chat", as_=exec_user, json={"bot_token": "xoxb-invalid", "channel_id": "C1"})
    assert refused.status == 400 and "invalid_auth" in refused.json["error"]
    token = "xoxb-chat-secret-987654"
    made = api.put(f"{BASE}/chat", as_=exec_user, json={"bot_token": token, "channel_id": "C123"})
    assert made.status == 200 and made.json["connection"]["org_name"] == "Sandbox Workspace"
    assert token not in made.body.decode() and not any(token in line for line in raw_log)
    from chalicelib.areas.connections import service

    assert service.credentials(db, "chat") == {"bot_token": token, "channel_id": "C123"}
    assert api.delete(f"{BASE}/chat", as_=exec_user).json == {"ok": True}


@responses.activate
def test_live_chat_reads_its_token_from_the_connection_first(api, db, exec_user, set_env):
    set_env(CHAT_MODE="live", CHAT_BOT_TOKEN="xoxb-from-settings")
    responses.post("https://slack.com/api/auth.test", json={"ok": True, "team": "Agency", "team_id": "T1",
                                                            "user_id": "U1", "bot_id": "B1"})
    responses.post("https://slack.com/api/chat.postMessage", json={"ok": True, "channel": "C9", "ts": "1.2"})
    from chalicelib.providers.chat import get_chat

    get_chat(db).post_message(channel="C9", text="hi")
    assert responses.calls[-1].request.headers["Authorization"] == "Bearer xoxb-from-settings"
    made = api.put(f"{BASE}/chat", as_=exec_user, json={"bot_token": "xoxb-stored", "channel_id": "C9"})
    assert made.status == 200 and made.json["connection"]["org_name"] == "Agency"
    assert responses.calls[-1].request.headers["Authorization"] == "Bearer xoxb-stored"  # auth.test
    get_chat(db).post_message(channel="C9", text="hi")
    assert responses.calls[-1].request.headers["Authorization"] == "Bearer xoxb-stored"
    responses.post("https://slack.com/api/auth.test", json={"ok": False, "error": "invalid_auth"})
    refused = api.put(f"{BASE}/chat", as_=exec_user, json={"bot_token": "xoxb-bad", "channel_id": "C9"})
    assert refused.status == 400 and "invalid_auth" in refused.json["error"]


def test_a_secret_unreadable_with_the_key_counts_as_not_connected(db, exec_user):
    from chalicelib.areas.connections import service
    from chalicelib.core.ids import utcnow

    db.add(Connection(provider="planner", secret="not-a-fernet-token", connected_at=utcnow()))
    db.flush()
    assert service.credentials(db, "planner") is None


def test_a_connection_unreadable_with_the_key_is_not_listed_as_connected(api, db, exec_user):
    """docs/decisions/connections.md: a stored value the current key cannot decrypt counts as "not connected",
    in the list too (the providers answer "not connected" for it)."""
    from chalicelib.core.ids import utcnow

    assert api.put(f"{BASE}/chat", as_=exec_user, json={"bot_token": "xoxb-1", "channel_id": "C1"}).status == 200
    db.add(Connection(provider="planner", secret="not-a-fernet-token", connected_at=utcnow()))
    db.flush()
    listed = api.get(BASE, as_=exec_user)
    assert listed.status == 200 and [c["provider"] for c in listed.json["connections"]] == ["chat"]


def test_calendar_status(api, exec_user, set_env):
    assert api.get(f"{BASE}/calendar/status", as_=exec_user).json == {"configured": True}  # sandbox
    set_env(CALENDAR_MODE="live")
    assert api.get(f"{BASE}/calendar/status", as_=exec_user).json == {"configured": False}
    set_env(CALENDAR_SERVICE_ACCOUNT_EMAIL="svc@project.iam.gserviceaccount.com", CALENDAR_PRIVATE_KEY="pem")
    assert api.get(f"{BASE}/calendar/status", as_=exec_user).json == {"configured": True}
    set_env(CALENDAR_MODE="off")
    assert api.get(f"{BASE}/calendar/status", as_=exec_user).json == {"configured": False}


def test_user_mappings_by_hand_and_by_sync(api, db, exec_user):
    alice = make_user(db, name="Alice", email="Alice@Agency.test")
    nobody = make_user(db, name="Bob", email="bob@nopayroll.test")
    listed = {m["user_id"]: m for m in api.get(f"{BASE}/user-mappings", as_=exec_user).json["mappings"]}
    assert listed[alice.id] == {"id": alice.id, "user_id": alice.id, "user_name": "Alice",
                                "user_email": "Alice@Agency.test", "ledger_id": None, "planner_id": None}
    path = f"{BASE}/user-mappings/{nobody.id}"
    set_ = api.put(path, as_=exec_user, json={"ledger_id": "EMP-manual"})
    assert set_.status == 200 and set_.json["mapping"]["ledger_id"] == "EMP-manual"
    assert api.put(path, as_=exec_user, json={"planner_id": "77"}).json["mapping"] == {
        **set_.json["mapping"], "planner_id": "77"}
    assert api.put(path, as_=exec_user, json={}).status == 400
    assert api.put(f"{BASE}/user-mappings/nope", as_=exec_user, json={"ledger_id": "x"}).status == 404

    synced = api.post(f"{BASE}/user-mappings/sync", as_=exec_user)
    assert synced.status == 200, synced
    body = synced.json
    assert body["errors"] == [] and body["ledger_matched"] >= 2 and body["planner_matched"] >= 3
    by_user = {m["user_id"]: m for m in body["mappings"]}
    assert by_user[alice.id]["ledger_id"].startswith("EMP-") and by_user[alice.id]["planner_id"]
    assert by_user[nobody.id]["ledger_id"] == "EMP-manual"  # no payroll match: the manual id stays
    assert by_user[nobody.id]["planner_id"] != "77"  # the planner knows bob: the sync sets it
    assert db.get(UserMapping, alice.id) is not None
    again = api.post(f"{BASE}/user-mappings/sync", as_=exec_user).json
    assert {m["user_id"]: m for m in again["mappings"]} == by_user  # run twice, one effect


def test_sync_names_a_provider_that_cannot_be_read(api, db, exec_user, set_env):
    set_env(PLANNER_MODE="off")
    body = api.post(f"{BASE}/user-mappings/sync", as_=exec_user).json
    assert body["planner_matched"] == 0 and body["ledger_matched"] >= 1
    assert body["errors"] == ["planner: The resource planner is not configured"]


def test_mapping_list_and_sync_cost_constant_statements(api, db, exec_user, count_queries):
    """The user-mapping list and the sync (sandbox ledger and planner) cost the same statements at 5 and at
    100 active users: one read of the users with their mappings, one upsert per kind of row."""
    costs = {}
    for total in (5, 100):
        while db.query(User).filter(User.is_active.is_(True)).count() < total:
            make_user(db)
        with count_queries() as listing:
            listed = api.get(f"{BASE}/user-mappings", as_=exec_user)
        assert listed.status == 200 and len(listed.json["mappings"]) == total
        with count_queries() as syncing:
            synced = api.post(f"{BASE}/user-mappings/sync", as_=exec_user)
        assert synced.status == 200 and synced.json["ledger_matched"] == total
        costs[total] = (listing.count, syncing.count)
    assert costs[5] == costs[100], costs


def test_a_provider_failure_stores_nothing(api, db, exec_user, monkeypatch):
    """Each token is checked with no transaction open, before anything is written: a refusal is 400 and an
    unreachable provider 502 `{error}`, and no connection is stored. The ledger's one-use state is spent by the
    attempt (decisions: spent either way), and nothing else is kept."""
    from chalicelib.core.errors import BadGateway
    from chalicelib.providers.chat.sandbox import SandboxChat
    from chalicelib.providers.ledger.sandbox import SandboxLedgerAuth
    from chalicelib.providers.planner.sandbox import SandboxPlanner

    assert api.put(f"{BASE}/chat", as_=exec_user, json={"bot_token": "xoxb-invalid", "channel_id": "C1"}).status == 400
    assert db.get(Connection, "chat") is None

    def unreachable(self, *args, **kwargs):
        raise BadGateway("The provider could not be reached")

    for cls, name in ((SandboxPlanner, "verify"), (SandboxChat, "auth_test"), (SandboxLedgerAuth, "exchange_code")):
        monkeypatch.setattr(cls, name, unreachable)
    for path, body in ((f"{BASE}/planner", {"api_token": "pl-token"}),
                       (f"{BASE}/chat", {"bot_token": "xoxb-token", "channel_id": "C1"})):
        failed = api.put(path, as_=exec_user, json=body)
        assert failed.status == 502 and failed.json == {"error": "The provider could not be reached"}, path
    state = authorize(api, exec_user)
    failed = api.post(f"{BASE}/ledger/callback", as_=exec_user, json={"code": "good-code", "state": state})
    assert failed.status == 502 and failed.json == {"error": "The provider could not be reached"}
    db.expire_all()
    assert db.scalar(select(func.count()).select_from(Connection)) == 0
    assert db.scalar(select(func.count()).select_from(OAuthState).where(OAuthState.state == state)) == 0
