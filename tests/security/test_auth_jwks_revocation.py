"""Security audit S1: a signing key the identity provider has withdrawn from its JWKS is no longer trusted.

Production verifies tokens against the provider's JWKS (decisions.md section 2). When a signing key leaks the
provider rotates it: the key leaves the JWKS. The service cached each key by `kid` for the life of the process
(PyJWKClient `cache_keys=True`, an LRU with no expiry), so a warm function kept accepting tokens minted with the
withdrawn key for ANY e-mail (an executive's included) long after the rotation: an anonymous holder of the
leaked key stayed everyone. The key set itself is cached for an hour; after that a withdrawn key must fail.
"""
import time
import types

import jwt
import pytest

from chalicelib.core import auth
from tests.core.test_auth import JwksServer, public_jwk, rs256, rsa_key
from tests.factories import make_user


def claims(email: str) -> dict:
    now = time.time()
    return {"email": email, "sub": email, "iat": int(now), "exp": int(now) + 600, "jti": repr(now)}


@pytest.fixture
def provider(set_env, monkeypatch):
    server = JwksServer()
    monkeypatch.setattr(auth, "_jwks_clients", {})
    set_env(AUTH_JWKS_URL=server.url)
    yield server
    server.stop()


def me(api, token: str):
    return api.get("/api/me", headers={"Authorization": f"Bearer {token}"})


def test_a_key_withdrawn_from_the_jwks_stops_verifying_once_the_key_set_is_refreshed(api, db, provider,
                                                                                      monkeypatch):
    executive = make_user(db, email="boss@agency.test", access_level="executive")
    leaked, fresh = rsa_key(), rsa_key()
    provider.document = {"keys": [public_jwk(leaked, "key-1", "RS256")]}
    assert me(api, rs256(claims(executive.email), leaked, kid="key-1")).status == 200

    # the provider rotates: key-1 is withdrawn, key-2 signs from now on; more than the key set's hour passes
    provider.document = {"keys": [public_jwk(fresh, "key-2", "RS256")]}
    later = types.SimpleNamespace(monotonic=lambda: time.monotonic() + 2 * 3600)
    monkeypatch.setattr(jwt.jwk_set_cache, "time", later)

    assert me(api, rs256(claims(executive.email), fresh, kid="key-2")).status == 200
    forged = me(api, rs256(claims(executive.email), leaked, kid="key-1"))  # a new token from the leaked key
    assert forged.status == 401, forged


def test_a_token_verified_before_the_rotation_is_checked_again_after_it(api, db, provider, monkeypatch):
    """The verified-claims cache served a token until its own `exp`: a token minted with the leaked key for a year
    and used once before the rotation kept working in that container after the key left the JWKS (session 22's
    authentication audit). An entry now serves at most VERIFIED_SECONDS, then the key set decides again."""
    monkeypatch.setattr(auth, "_VERIFIED", {})
    executive = make_user(db, email="boss2@agency.test", access_level="executive")
    leaked, fresh = rsa_key(), rsa_key()
    provider.document = {"keys": [public_jwk(leaked, "key-1", "RS256")]}
    now = int(time.time())
    forged = rs256({"email": executive.email, "iat": now, "exp": now + 365 * 86400}, leaked, kid="key-1")
    assert me(api, forged).status == 200
    provider.document = {"keys": [public_jwk(fresh, "key-2", "RS256")]}  # the provider withdraws key-1
    later = types.SimpleNamespace(monotonic=lambda: time.monotonic() + 2 * 3600)  # past the key set's hour
    monkeypatch.setattr(jwt.jwk_set_cache, "time", later)
    real_time = time.time
    monkeypatch.setattr(auth.time, "time", lambda: real_time() + 2 * 3600)
    assert me(api, rs256({"email": executive.email, "iat": now, "exp": now + 4 * 3600}, fresh, kid="key-2")).status == 200
    assert me(api, forged).status == 401
