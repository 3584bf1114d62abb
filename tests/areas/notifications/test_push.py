"""Web push: public key, subscriptions (own only)."""
import pytest
from sqlalchemy import select

from chalicelib.core.notify_models import PushSubscription
from chalicelib.providers.push import SANDBOX_PUBLIC_KEY
from tests.factories import make_user

from .factories import AUTH, P256DH, make_subscription

ENDPOINT = "https://fcm.googleapis.com/fcm/send/abc123"


def test_public_key_in_sandbox_without_keys(api, db):
    response = api.get("/api/notifications/push/public-key", as_=make_user(db))
    assert response.status == 200
    assert response.json == {"vapidPublicKey": SANDBOX_PUBLIC_KEY}


def test_public_key_is_the_configured_one(api, db, set_env):
    set_env(PUSH_MODE="live", VAPID_PUBLIC_KEY="BPublicKey", VAPID_PRIVATE_KEY="private")
    response = api.get("/api/notifications/push/public-key", as_=make_user(db))
    assert response.status == 200
    assert response.json == {"vapidPublicKey": "BPublicKey"}


@pytest.mark.parametrize("env", [{"PUSH_MODE": "off"}, {"PUSH_MODE": "live", "VAPID_PUBLIC_KEY": None,
                                                        "VAPID_PRIVATE_KEY": None}])
def test_public_key_is_503_when_push_is_not_configured(api, db, set_env, env):
    set_env(**env)
    response = api.get("/api/notifications/push/public-key", as_=make_user(db))
    assert response.status == 503
    assert response.json == {"error": "Web push is not configured"}


def test_subscribe_list_and_unsubscribe(api, db):
    user = make_user(db)
    response = api.post("/api/notifications/push/subscribe", as_=user, headers={"User-Agent": "Firefox/130"},
                        json={"endpoint": ENDPOINT, "keys": {"p256dh": P256DH, "auth": AUTH}})
    assert response.status == 200 and response.json == {"success": True}
    # subscribing again refreshes, does not duplicate
    assert api.post("/api/notifications/push/subscribe", as_=user,
                    json={"endpoint": ENDPOINT, "keys": {"p256dh": P256DH, "auth": AUTH}}).status == 200
    listed = api.get("/api/notifications/push/subscriptions", as_=user).json["subscriptions"]
    assert len(listed) == 1
    assert listed[0]["endpoint"] == ENDPOINT and listed[0]["id"] and listed[0]["created_at"].endswith("Z")
    assert "p256dh" not in listed[0] and "auth" not in listed[0]
    assert api.get("/api/notifications/push/subscriptions", as_=make_user(db)).json == {"subscriptions": []}

    response = api.post("/api/notifications/push/unsubscribe", as_=user, json={"endpoint": ENDPOINT})
    assert response.status == 200 and response.json == {"success": True}
    assert api.get("/api/notifications/push/subscriptions", as_=user).json == {"subscriptions": []}


def test_unsubscribe_leaves_other_users_subscriptions(api, db):
    owner, other = make_user(db), make_user(db)
    make_subscription(db, owner, endpoint=ENDPOINT)
    response = api.post("/api/notifications/push/unsubscribe", as_=other, json={"endpoint": ENDPOINT})
    assert response.status == 200
    db.expire_all()
    assert db.scalar(select(PushSubscription).where(PushSubscription.endpoint == ENDPOINT)).user_id == owner.id


def test_an_endpoint_subscribed_by_another_user_moves_to_the_caller(api, db):
    first, second = make_user(db), make_user(db)
    make_subscription(db, first, endpoint=ENDPOINT)
    response = api.post("/api/notifications/push/subscribe", as_=second,
                        json={"endpoint": ENDPOINT, "keys": {"p256dh": P256DH, "auth": AUTH}})
    assert response.status == 200
    assert api.get("/api/notifications/push/subscriptions", as_=first).json == {"subscriptions": []}
    assert len(api.get("/api/notifications/push/subscriptions", as_=second).json["subscriptions"]) == 1


@pytest.mark.parametrize("body", [
    {},
    {"endpoint": ENDPOINT},
    {"endpoint": "http://insecure.test/push", "keys": {"p256dh": P256DH, "auth": AUTH}},
    {"endpoint": ENDPOINT, "keys": {"p256dh": "not-a-key", "auth": AUTH}},
    {"endpoint": ENDPOINT, "keys": {"p256dh": P256DH, "auth": "dG9vLXNob3J0"}},
    {"endpoint": ENDPOINT, "keys": {"p256dh": P256DH, "auth": "!!!"}},
])
def test_subscribe_rejects_bad_input(api, db, body):
    response = api.post("/api/notifications/push/subscribe", as_=make_user(db), json=body)
    assert response.status == 400
    assert "details" in response.json


def test_unsubscribe_requires_endpoint(api, db):
    response = api.post("/api/notifications/push/unsubscribe", as_=make_user(db), json={})
    assert response.status == 400


def test_subscriptions_per_user_are_capped_oldest_dropped(api, db):
    from chalicelib.areas.notifications.service import MAX_PUSH_SUBSCRIPTIONS

    user = make_user(db)
    for n in range(MAX_PUSH_SUBSCRIPTIONS):
        make_subscription(db, user, endpoint=f"https://push.example.test/send/old{n}")
    response = api.post("/api/notifications/push/subscribe", as_=user,
                        json={"endpoint": ENDPOINT, "keys": {"p256dh": P256DH, "auth": AUTH}})
    assert response.status == 200, response
    listed = api.get("/api/notifications/push/subscriptions", as_=user).json["subscriptions"]
    assert len(listed) == MAX_PUSH_SUBSCRIPTIONS
    assert ENDPOINT in {row["endpoint"] for row in listed}


@pytest.mark.parametrize("endpoint, resolves", [
    ("http://push.example.test/send/1", None),                      # not https
    ("https://127.0.0.1/send/1", None),                             # loopback literal
    ("https://10.0.0.5/send/1", None),                              # private literal
    ("https://169.254.169.254/latest/meta-data", None),             # metadata (link-local)
    ("https://[::1]/send/1", None),                                 # IPv6 loopback
    ("https://[fd00::1]/send/1", None),                             # IPv6 unique local
    ("https://localhost/send/1", None),
    ("https://metadata.google.internal/computeMetadata", None),
    ("https://intranet/send/1", None),                              # single-label name
    ("https://push.evil.test/send/1", ["10.1.2.3"]),                # a name that resolves inside
    ("https://push.evil.test/send/1", ["93.184.216.34", "192.168.1.1"]),  # one private address is enough
    ("https://push.evil.test/send/1", ["::ffff:127.0.0.1"]),        # IPv4-mapped loopback
    ("https://push.evil.test/send/1", []),                          # does not resolve
    ("https://user:pw@push.example.test/send/1", None),             # credentials in the URL
])
def test_subscribe_refuses_endpoints_that_are_not_public_https(api, db, _no_dns, endpoint, resolves):
    if resolves is not None:
        _no_dns["push.evil.test"] = resolves
    user = make_user(db)
    response = api.post("/api/notifications/push/subscribe", as_=user,
                        json={"endpoint": endpoint, "keys": {"p256dh": P256DH, "auth": AUTH}})
    assert response.status == 400, response
    assert response.json["details"][0]["field"] == "endpoint"
    assert db.scalar(select(PushSubscription).where(PushSubscription.user_id == user.id)) is None


def test_subscribe_refuses_an_endpoint_that_is_not_an_ascii_url(api, db):
    """A push service's endpoint is a URL (ASCII, other characters percent-encoded). 1000 characters outside
    ASCII are up to 4000 bytes, past what the endpoint's unique index can hold (2704): a 400, never the 500 of the
    database's refusal (the fuzzer's hostile inputs found it)."""
    path = "".join(chr(0x20000 + (n * 7919) % 0xA6DF) for n in range(960))  # distinct, so nothing compresses
    endpoint = "https://push.example.test/send/" + path
    user = make_user(db)
    response = api.post("/api/notifications/push/subscribe", as_=user,
                        json={"endpoint": endpoint, "keys": {"p256dh": P256DH, "auth": AUTH}})
    assert response.status == 400, response
    assert response.json["details"][0]["field"] == "endpoint"
    assert api.get("/api/notifications/push/subscriptions", as_=user).json == {"subscriptions": []}
    # an ASCII endpoint of the largest length is stored
    longest = "https://push.example.test/send/" + "a" * (1000 - len("https://push.example.test/send/"))
    assert api.post("/api/notifications/push/subscribe", as_=user,
                    json={"endpoint": longest, "keys": {"p256dh": P256DH, "auth": AUTH}}).status == 200


def _standard_base64(value: str) -> str:
    return value.replace("-", "+").replace("_", "/")


@pytest.mark.parametrize("keys, field", [
    ({"p256dh": _standard_base64(P256DH), "auth": AUTH}, "keys.p256dh"),   # '+' and '/': base64, not base64url
    ({"p256dh": P256DH + "!!", "auth": AUTH}, "keys.p256dh"),              # characters outside the alphabet
    ({"p256dh": P256DH, "auth": "c2Vj cmV0LWF1dGgtMTIzNA"}, "keys.auth"),
    ({"p256dh": P256DH, "auth": AUTH + "===="}, "keys.auth"),
])
def test_subscribe_keys_must_be_base64url(api, db, keys, field):
    """Document 3: the keys are base64url. A decoder that skips other characters took standard base64 and stray
    characters as the same key."""
    response = api.post("/api/notifications/push/subscribe", as_=make_user(db), json={"endpoint": ENDPOINT, "keys": keys})
    assert response.status == 400, response
    assert response.json["details"][0]["field"] == field


def test_subscribe_takes_padded_base64url_keys(api, db):
    padded = {"p256dh": P256DH + "=" * (-len(P256DH) % 4), "auth": AUTH + "=" * (-len(AUTH) % 4)}
    response = api.post("/api/notifications/push/subscribe", as_=make_user(db), json={"endpoint": ENDPOINT, "keys": padded})
    assert response.status == 200
