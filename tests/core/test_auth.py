"""Authentication (decisions.md section 2), through HTTP on /api/me."""
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from chalicelib.core import auth
from chalicelib.core.settings import get_settings
from tests.factories import make_user

from .conftest import b64, claims, unsigned_token


def hs256(payload: dict, secret: str | bytes | None = None, headers: dict | None = None) -> str:
    return jwt.encode(payload, secret or get_settings().auth_jwt_secret, algorithm="HS256", headers=headers)


@pytest.fixture
def user(db):
    return make_user(db, email="alice@agency.test", name="Alice")


def me(api, token=None, headers=None):
    headers = dict(headers or {})
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return api.get("/api/me", headers=headers)


def assert_error(response, status):
    assert response.status == status, response
    assert isinstance(response.json["error"], str) and response.json["error"]


# --- HS256 (development and tests) ---------------------------------------------------------------

def test_valid_token(api, user):
    response = me(api, hs256(claims(user.email)))
    assert response.status == 200
    assert response.json["user"]["id"] == user.id


def test_a_token_is_verified_once_while_it_is_unexpired(api, user, monkeypatch):
    """The container keeps a token's verified claims until its exp: PyJWT runs once for repeated requests and
    again once the token has expired (PyJWT then applies the leeway: test_expired_token_is_401)."""
    calls = []
    real = auth.jwt.decode
    monkeypatch.setattr(auth.jwt, "decode", lambda *a, **k: calls.append(1) or real(*a, **k))
    now = time.time()
    token = hs256(claims(user.email, exp=int(now) + 100))
    assert [me(api, token).status for _ in range(3)] == [200, 200, 200] and len(calls) == 1
    monkeypatch.setattr(auth.time, "time", lambda: now + 130)  # the cache's clock past exp: PyJWT decides again
    assert me(api, token).status == 200 and len(calls) == 2


def test_a_verified_token_is_checked_again_under_other_settings(api, user, monkeypatch):
    token = hs256(claims(user.email))
    assert me(api, token).status == 200
    monkeypatch.setenv("AUTH_JWT_SECRET", "another-secret-of-at-least-32-bytes!!")
    get_settings.cache_clear()
    try:
        assert_error(me(api, token), 401)  # signed with the old secret
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_missing_token_is_401(api, user):
    assert_error(me(api), 401)


@pytest.mark.parametrize("header", ["Token abc", "Bearer", "Bearer   ", "Basic dXNlcjpwYXNz", "abc.def.ghi"])
def test_malformed_authorization_header_is_401(api, user, header):
    assert_error(me(api, headers={"Authorization": header}), 401)


def test_garbage_token_is_401(api, user):
    assert_error(me(api, "not-a-jwt"), 401)


def test_expired_token_is_401(api, user):
    now = int(time.time())
    assert_error(me(api, hs256(claims(user.email, iat=now - 3600, exp=now - 120))), 401)


def test_expired_within_leeway_is_accepted(api, user):
    now = int(time.time())
    assert me(api, hs256(claims(user.email, iat=now - 3600, exp=now - 30))).status == 200


def test_token_without_exp_is_401(api, user):
    payload = claims(user.email)
    payload.pop("exp")
    assert_error(me(api, hs256(payload)), 401)


def test_token_without_email_is_401(api, user):
    payload = claims(user.email)
    payload.pop("email")
    assert_error(me(api, hs256(payload)), 401)
    assert_error(me(api, hs256({**payload, "email": 42})), 401)


def test_wrong_signature_is_401(api, user):
    assert_error(me(api, hs256(claims(user.email), secret="another-secret-" + "y" * 40)), 401)
    good = hs256(claims(user.email))
    head, body, signature = good.split(".")
    tampered_body = b64(json.dumps(claims("eve@agency.test")).encode())
    assert_error(me(api, f"{head}.{tampered_body}.{signature}"), 401)


@pytest.mark.parametrize("alg", ["none", "None", "NONE"])
def test_alg_none_is_401(api, user, alg):
    assert_error(me(api, unsigned_token(claims(user.email), {"alg": alg, "typ": "JWT"})), 401)


def test_alg_none_built_by_pyjwt_is_401(api, user):
    assert_error(me(api, jwt.encode(claims(user.email), key=None, algorithm="none")), 401)


def test_asymmetric_token_refused_in_hs256_mode(api, user):
    """Algorithm switching the other way: without JWKS only HS256 is accepted."""
    assert_error(me(api, jwt.encode(claims(user.email), rsa_key(), algorithm="RS256")), 401)


def test_unknown_user_is_403(api, user):
    assert_error(me(api, hs256(claims("nobody@agency.test"))), 403)


def test_inactive_user_is_403(api, db):
    inactive = make_user(db, email="gone@agency.test", is_active=False)
    assert_error(me(api, hs256(claims(inactive.email))), 403)


def test_email_matches_case_insensitively(api, db, user):
    assert me(api, hs256(claims("ALICE@Agency.Test"))).json["user"]["id"] == user.id
    mixed = make_user(db, email="Bob.Mixed@Agency.test")  # stored mixed case (e.g. by an old import)
    assert me(api, hs256(claims("bob.mixed@agency.test"))).json["user"]["id"] == mixed.id


def test_cookie_carries_the_token(api, user):
    token = hs256(claims(user.email))
    response = me(api, headers={"Cookie": f"theme=dark; wms_session={token}"})
    assert response.status == 200 and response.json["user"]["id"] == user.id
    assert_error(me(api, headers={"Cookie": "wms_session=garbage"}), 401)
    assert_error(me(api, headers={"Cookie": f"other_cookie={token}"}), 401)


def test_cookie_name_follows_setting(api, user, set_env):
    set_env(AUTH_COOKIE_NAME="custom_session")
    token = hs256(claims(user.email))
    assert me(api, headers={"Cookie": f"custom_session={token}"}).status == 200
    assert_error(me(api, headers={"Cookie": f"wms_session={token}"}), 401)


def test_header_wins_over_cookie(api, db, user):
    bob = make_user(db, email="bob@agency.test")
    response = me(api, hs256(claims(bob.email)), headers={"Cookie": f"wms_session={hs256(claims(user.email))}"})
    assert response.json["user"]["id"] == bob.id


def test_issuer_and_audience_checked_when_set(api, user, set_env):
    set_env(AUTH_ISSUER="https://idp.agency.test/", AUTH_AUDIENCE="wms-api")
    iss, aud = "https://idp.agency.test/", "wms-api"
    assert me(api, hs256(claims(user.email, iss=iss, aud=aud))).status == 200
    assert me(api, hs256(claims(user.email, iss=iss, aud=[aud, "other"]))).status == 200
    assert_error(me(api, hs256(claims(user.email, iss="https://evil.test/", aud=aud))), 401)
    assert_error(me(api, hs256(claims(user.email, iss=iss, aud="other-api"))), 401)
    assert_error(me(api, hs256(claims(user.email, aud=aud))), 401)  # issuer missing
    assert_error(me(api, hs256(claims(user.email, iss=iss))), 401)  # audience missing


def test_issuer_and_audience_ignored_when_unset(api, user):
    assert me(api, hs256(claims(user.email, iss="anyone", aud="anything"))).status == 200


def test_error_bodies_have_only_error(api, user):
    assert set(me(api).json) == {"error"}
    assert set(me(api, hs256(claims("nobody@agency.test"))).json) == {"error"}


# --- JWKS (production) ---------------------------------------------------------------------------

class JwksServer:
    """Serves a JWKS document on the loopback interface (PyJWT's client fetches with urllib, which the
    `responses` library cannot intercept; nothing leaves the machine)."""

    def __init__(self) -> None:
        self.document = {"keys": []}
        self.requests = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                outer.requests += 1
                body = json.dumps(outer.document).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/.well-known/jwks.json"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def rsa_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_jwk(private_key, kid: str, alg: str) -> dict:
    if alg.startswith("RS"):
        jwk = jwt.algorithms.RSAAlgorithm.to_jwk(private_key.public_key(), as_dict=True)
    else:
        jwk = jwt.algorithms.ECAlgorithm.to_jwk(private_key.public_key(), as_dict=True)
    return {**jwk, "kid": kid, "alg": alg, "use": "sig"}


@pytest.fixture
def jwks(set_env, monkeypatch):
    server = JwksServer()
    monkeypatch.setattr(auth, "_jwks_clients", {})
    key = rsa_key()
    server.document = {"keys": [public_jwk(key, "key-1", "RS256")]}
    set_env(AUTH_JWKS_URL=server.url)
    yield server, key
    server.stop()


def rs256(payload: dict, key, kid: str = "key-1") -> str:
    return jwt.encode(payload, key, algorithm="RS256", headers={"kid": kid})


def test_jwks_valid_rs256_token(api, user, jwks):
    server, key = jwks
    response = me(api, rs256(claims(user.email), key))
    assert response.status == 200 and response.json["user"]["id"] == user.id
    assert server.requests == 1
    assert me(api, rs256(claims(user.email), key)).status == 200
    assert server.requests == 1  # keys are cached


def test_jwks_es256_token(api, user, jwks):
    server, rsa_private = jwks
    ec_key = ec.generate_private_key(ec.SECP256R1())
    server.document = {"keys": [public_jwk(rsa_private, "key-1", "RS256"), public_jwk(ec_key, "ec-1", "ES256")]}
    token = jwt.encode(claims(user.email), ec_key, algorithm="ES256", headers={"kid": "ec-1"})
    assert me(api, token).status == 200


def test_jwks_token_signed_by_another_key_is_401(api, user, jwks):
    assert_error(me(api, rs256(claims(user.email), rsa_key())), 401)


def test_jwks_unknown_kid_is_401(api, user, jwks):
    _, key = jwks
    assert_error(me(api, rs256(claims(user.email), key, kid="unknown")), 401)


def test_jwks_expired_is_401(api, user, jwks):
    _, key = jwks
    now = int(time.time())
    assert_error(me(api, rs256(claims(user.email, exp=now - 120), key)), 401)
    assert me(api, rs256(claims(user.email, exp=now - 30), key)).status == 200


def test_jwks_rejects_hs256_signed_with_public_key(api, user, jwks):
    """Algorithm switching: an HS256 token whose HMAC secret is the provider's public key."""
    _, key = jwks
    public_pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    header = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "key-1"}).encode())
    payload = b64(json.dumps(claims(user.email)).encode())
    signature = b64(hmac.new(public_pem, f"{header}.{payload}".encode(), hashlib.sha256).digest())
    assert_error(me(api, f"{header}.{payload}.{signature}"), 401)


def test_jwks_rejects_hs256_development_tokens(api, user, jwks):
    assert_error(me(api, hs256(claims(user.email), headers={"kid": "key-1"})), 401)


def test_jwks_rejects_alg_none(api, user, jwks):
    assert_error(me(api, unsigned_token(claims(user.email), {"alg": "none", "kid": "key-1"})), 401)


def test_jwks_unknown_user_is_403(api, user, jwks):
    _, key = jwks
    assert_error(me(api, rs256(claims("stranger@agency.test"), key)), 403)


def test_jwks_with_issuer_and_audience(api, user, jwks, set_env):
    _, key = jwks
    set_env(AUTH_ISSUER="https://idp.agency.test/", AUTH_AUDIENCE="wms-api")
    good = claims(user.email, iss="https://idp.agency.test/", aud="wms-api")
    assert me(api, rs256(good, key)).status == 200
    assert_error(me(api, rs256({**good, "aud": "other"}, key)), 401)
    assert_error(me(api, rs256({**good, "iss": "https://evil.test/"}, key)), 401)


def test_jwks_unreachable_is_503_not_the_callers_fault(api, user, set_env, monkeypatch):
    monkeypatch.setattr(auth, "_jwks_clients", {})
    server = JwksServer()
    url = server.url
    server.stop()
    set_env(AUTH_JWKS_URL=url)
    assert_error(me(api, rs256(claims(user.email), rsa_key())), 503)


def test_dev_tokens_refused_when_jwks_configured(jwks):
    with pytest.raises(RuntimeError):
        auth.issue_dev_token("alice@agency.test")


def test_service_bearer_secret_is_compared_exactly():
    """The runner callback and the portal worker use their own bearer secrets (decisions.md §2)."""
    assert auth.bearer_secret_matches({"Authorization": "Bearer s3cret"}, "s3cret")
    assert auth.bearer_secret_matches({"authorization": "bearer s3cret"}, "s3cret")
    assert not auth.bearer_secret_matches({"Authorization": "Bearer s3cre"}, "s3cret")
    assert not auth.bearer_secret_matches({"Authorization": "Basic s3cret"}, "s3cret")
    assert not auth.bearer_secret_matches({}, "s3cret")
    assert not auth.bearer_secret_matches({"Authorization": "Bearer "}, None)  # no secret configured
