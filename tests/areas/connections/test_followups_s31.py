"""Session 31 (2026-11-29), decided follow-ups of the invariants audit.

1. User mappings name one organisation's people: a ledger connected again to ANOTHER tenant (a planner to another
   organisation) clears every user's `ledger_id` (`planner_id`) in the same transaction; the same organisation
   keeps them, and so does a disconnect (the next connect compares with the organisation disconnected).
2. A ledger token refresh stores its rotated pair only into the connection it refreshed: an admin who disconnected
   and connected another organisation while the refresh was under way keeps the new organisation's tokens."""
import json
import time

import responses
from sqlalchemy import select

from chalicelib.areas.connections.models import Connection, UserMapping
from chalicelib.core import crypto
from chalicelib.core.ids import utcnow
from chalicelib.core.models import HistoryEntry
from chalicelib.providers.ledger.live import PAYROLL, TOKEN_URL
from tests.factories import make_user

from .test_connections import authorize

BASE = "/api/admin/connections"


def connect_ledger(api, user, code):
    made = api.post(f"{BASE}/ledger/callback", as_=user, json={"code": code, "state": authorize(api, user)})
    assert made.status == 200, made
    return made


def mapped(api, user, people):
    """Sets `{user: (ledger_id, planner_id)}` by hand; answers the list of mappings by user id."""
    for person, (ledger_id, planner_id) in people.items():
        assert api.put(f"{BASE}/user-mappings/{person.id}", as_=user,
                       json={"ledger_id": ledger_id, "planner_id": planner_id}).status == 200
    return ids(api, user)


def ids(api, user):
    return {m["user_id"]: (m["ledger_id"], m["planner_id"]) for m in api.get(f"{BASE}/user-mappings", as_=user).json["mappings"]}


def tenant(db):
    db.expire_all()
    return db.get(Connection, "ledger").external_id


def history(db, provider):
    return [(entry.action, entry.changes) for entry in db.scalars(
        select(HistoryEntry).where(HistoryEntry.entity_type == "connection", HistoryEntry.entity_id == provider)
        .order_by(HistoryEntry.created_at, HistoryEntry.id))]


# ---------------------------------------------------------------- 1. another organisation clears the ids

def test_a_ledger_connected_to_another_tenant_clears_every_ledger_id(api, db, exec_user):
    alice, bob, carol = (make_user(db) for _ in range(3))
    connect_ledger(api, exec_user, "code-of-tenant-a")
    first = tenant(db)
    before = mapped(api, exec_user, {alice: ("EMP-A1", "P-1"), bob: ("EMP-A2", None), carol: (None, "P-3")})
    assert before[alice.id] == ("EMP-A1", "P-1")
    connect_ledger(api, exec_user, "code-of-tenant-b")
    assert tenant(db) != first
    after = ids(api, exec_user)
    # the ledger ids named tenant A's employees: gone; the planner's are another provider's and stay
    assert (after[alice.id], after[bob.id], after[carol.id]) == ((None, "P-1"), (None, None), (None, "P-3")), after
    assert history(db, "ledger")[-1] == ("connected", {"external_id": {"from": first, "to": tenant(db)},
                                                       "mappings_cleared": 2})


def test_the_same_tenant_again_keeps_the_ledger_ids(api, db, exec_user):
    """Guard: a reconnect of the organisation already connected (a new code, the same tenant) is the common case."""
    alice = make_user(db)
    connect_ledger(api, exec_user, "code-of-tenant-a")
    mapped(api, exec_user, {alice: ("EMP-A1", "P-1")})
    connect_ledger(api, exec_user, "code-of-tenant-a")
    assert ids(api, exec_user)[alice.id] == ("EMP-A1", "P-1")
    assert history(db, "ledger")[-1][1]["mappings_cleared"] == 0


def test_a_planner_saved_for_another_organisation_clears_every_planner_id(api, db, exec_user, monkeypatch):
    from chalicelib.providers.planner.sandbox import SandboxPlanner

    alice = make_user(db)
    assert api.put(f"{BASE}/planner", as_=exec_user, json={"api_token": "pl-token-one"}).status == 200
    mapped(api, exec_user, {alice: ("EMP-A1", "P-1")})
    assert api.put(f"{BASE}/planner", as_=exec_user, json={"api_token": "pl-token-two"}).status == 200
    assert ids(api, exec_user)[alice.id] == ("EMP-A1", "P-1")  # the same organisation (1000): kept
    monkeypatch.setattr(SandboxPlanner, "verify", lambda self: {"organization_id": "2000", "org_name": "Other"})
    assert api.put(f"{BASE}/planner", as_=exec_user, json={"api_token": "pl-token-three"}).status == 200
    assert ids(api, exec_user)[alice.id] == ("EMP-A1", None)
    assert history(db, "planner")[-1] == ("connected", {"external_id": {"from": "1000", "to": "2000"},
                                                        "mappings_cleared": 1})


def test_a_disconnect_keeps_the_ids_and_the_next_connect_compares_with_the_organisation_disconnected(api, db,
                                                                                                      exec_user):
    alice = make_user(db)
    connect_ledger(api, exec_user, "code-of-tenant-a")
    first = tenant(db)
    mapped(api, exec_user, {alice: ("EMP-A1", "P-1")})
    assert api.delete(f"{BASE}/ledger", as_=exec_user).json == {"ok": True}
    assert ids(api, exec_user)[alice.id] == ("EMP-A1", "P-1")  # a disconnect alone keeps them
    connect_ledger(api, exec_user, "code-of-tenant-a")  # the same organisation back
    assert ids(api, exec_user)[alice.id] == ("EMP-A1", "P-1")
    assert api.delete(f"{BASE}/ledger", as_=exec_user).json == {"ok": True}
    assert api.delete(f"{BASE}/ledger", as_=exec_user).json == {"ok": True}  # nothing stored: nothing recorded
    connect_ledger(api, exec_user, "code-of-tenant-b")  # another organisation after the disconnect
    assert ids(api, exec_user)[alice.id] == (None, "P-1")
    actions = history(db, "ledger")
    assert [action for action, _ in actions] == ["connected", "disconnected", "connected", "disconnected",
                                                 "connected"]
    assert actions[3][1] == {"external_id": {"from": first, "to": None}}
    assert actions[4][1] == {"external_id": {"from": first, "to": tenant(db)}, "mappings_cleared": 1}


def test_a_first_connection_keeps_ids_set_before_it(api, db, exec_user):
    """Guard: ids typed (or synced against the sandbox) before any connection was stored name no organisation that
    can be compared: kept."""
    alice = make_user(db)
    mapped(api, exec_user, {alice: ("EMP-A1", "P-1")})
    connect_ledger(api, exec_user, "code-of-tenant-a")
    assert api.put(f"{BASE}/planner", as_=exec_user, json={"api_token": "pl-token-one"}).status == 200
    assert ids(api, exec_user)[alice.id] == ("EMP-A1", "P-1")


def test_a_refused_reconnect_clears_nothing(api, db, exec_user):
    """Guard: the provider is asked before anything is written; a refused code leaves the ids."""
    alice = make_user(db)
    connect_ledger(api, exec_user, "code-of-tenant-a")
    mapped(api, exec_user, {alice: ("EMP-A1", "P-1")})
    refused = api.post(f"{BASE}/ledger/callback", as_=exec_user,
                       json={"code": "invalid-code", "state": authorize(api, exec_user)})
    assert refused.status == 400
    assert ids(api, exec_user)[alice.id] == ("EMP-A1", "P-1")


# ---------------------------------------------------------------- 2. a refresh racing a reconnect

def live_ledger(db, set_env, *, tenant_id="tenant-a", refresh_token="RT-A1"):
    set_env(LEDGER_MODE="live", LEDGER_CLIENT_ID="CLIENT", LEDGER_CLIENT_SECRET="SECRET",
            LEDGER_REDIRECT_URI="https://wms.example/cb")
    db.add(Connection(provider="ledger", external_id=tenant_id, org_name="Org A", connected_at=utcnow(),
                      secret=crypto.encrypt(json.dumps({"access_token": "AT-A1", "refresh_token": refresh_token,
                                                        "expires_at": time.time() - 10}))))
    db.flush()


def stored(db):
    db.expire_all()
    row = db.get(Connection, "ledger")
    return row.external_id, json.loads(crypto.decrypt(row.secret))


@responses.activate
def test_a_refresh_stores_the_rotated_pair(api, db, exec_user, set_env):
    """Guard: Xero rotates the refresh token; the new pair is stored at once (the old one no longer works)."""
    live_ledger(db, set_env)
    responses.post(TOKEN_URL, json={"access_token": "AT-A2", "refresh_token": "RT-A2", "expires_in": 1800})
    responses.get(f"{PAYROLL}/Employees", json={"Employees": []})
    synced = api.post(f"{BASE}/user-mappings/sync", as_=exec_user)
    assert synced.status == 200 and synced.json["errors"] == [], synced
    external_id, secret = stored(db)
    assert (external_id, secret["access_token"], secret["refresh_token"]) == ("tenant-a", "AT-A2", "RT-A2")


@responses.activate
def test_a_refresh_racing_a_reconnect_to_another_tenant_keeps_the_new_tokens(api, db, exec_user, set_env, caplog):
    """The sync read the stored connection (tenant A), then refreshed its expired token; while Xero answered, an
    executive disconnected and connected tenant B. The rotated pair of tenant A went into tenant B's connection
    (its requests then carried A's token with B's tenant id: refused, and B's refresh token was lost)."""
    live_ledger(db, set_env)

    def reconnected_meanwhile(request):
        db.execute(Connection.__table__.delete().where(Connection.provider == "ledger"))
        db.add(Connection(provider="ledger", external_id="tenant-b", org_name="Org B", connected_at=utcnow(),
                          connected_by=exec_user.id, secret=crypto.encrypt(json.dumps(
                              {"access_token": "AT-B1", "refresh_token": "RT-B1", "expires_at": time.time() + 1800}))))
        db.flush()
        return 200, {}, json.dumps({"access_token": "AT-A2", "refresh_token": "RT-A2", "expires_in": 1800})

    responses.add_callback(responses.POST, TOKEN_URL, callback=reconnected_meanwhile)
    responses.get(f"{PAYROLL}/Employees", json={"Employees": []})
    with caplog.at_level("WARNING", logger="wms.connections"):
        synced = api.post(f"{BASE}/user-mappings/sync", as_=exec_user)
    assert synced.status == 200, synced
    external_id, secret = stored(db)
    assert (external_id, secret["access_token"], secret["refresh_token"]) == ("tenant-b", "AT-B1", "RT-B1"), secret
    assert any("dropped" in record.getMessage() for record in caplog.records)
    assert not any("RT-A2" in record.getMessage() or "AT-A2" in record.getMessage() for record in caplog.records)


def test_a_sync_whose_ledger_was_connected_to_another_tenant_meanwhile_writes_none_of_its_ids(api, db, exec_user,
                                                                                                monkeypatch):
    """The sync listed tenant A's employees; before it wrote, an executive connected tenant B (which cleared the
    ledger ids). A's ids were then written over the clearing: dropped, and the ledger named in `errors`; the
    planner's matches are written as before."""
    from chalicelib.providers.ledger.sandbox import SandboxLedger

    alice = make_user(db, email="alice-s31@agency.test")
    connect_ledger(api, exec_user, "code-of-tenant-a")
    listed = SandboxLedger.list_employees

    def reconnected_meanwhile(self):
        people = listed(self)
        db.execute(Connection.__table__.update().where(Connection.provider == "ledger").values(external_id="tenant-b"))
        db.execute(UserMapping.__table__.update().values(ledger_id=None))
        return people

    monkeypatch.setattr(SandboxLedger, "list_employees", reconnected_meanwhile)
    synced = api.post(f"{BASE}/user-mappings/sync", as_=exec_user)
    assert synced.status == 200, synced
    body = synced.json
    mine = {m["user_id"]: m for m in body["mappings"]}[alice.id]
    assert mine["ledger_id"] is None and mine["planner_id"], mine
    assert body["ledger_matched"] == 0 and body["planner_matched"] >= 1
    assert [error.split(":")[0] for error in body["errors"]] == ["ledger"], body["errors"]


def test_a_sync_after_a_disconnect_and_the_same_tenant_again_matches(api, db, exec_user, monkeypatch):
    """Guard: the sync compares the organisation, not the row: connected, disconnected and connected again to the
    same tenant, and the row written again while the people are listed (another connected_at, the same tenant), it
    matches and names no error."""
    from chalicelib.providers.ledger.sandbox import SandboxLedger

    alice = make_user(db, email="alice-s31b@agency.test")
    connect_ledger(api, exec_user, "code-of-tenant-a")
    assert api.delete(f"{BASE}/ledger", as_=exec_user).status == 200
    connect_ledger(api, exec_user, "code-of-tenant-a")
    listed = SandboxLedger.list_employees

    def saved_again_meanwhile(self):
        people = listed(self)
        db.execute(Connection.__table__.update().where(Connection.provider == "ledger").values(connected_at=utcnow()))
        return people

    monkeypatch.setattr(SandboxLedger, "list_employees", saved_again_meanwhile)
    synced = api.post(f"{BASE}/user-mappings/sync", as_=exec_user)
    assert synced.status == 200 and synced.json["errors"] == [], synced
    assert {m["user_id"]: m for m in synced.json["mappings"]}[alice.id]["ledger_id"].startswith("EMP-")
