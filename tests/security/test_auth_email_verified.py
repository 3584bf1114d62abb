"""Security audit S1: a token whose identity provider says the e-mail address is NOT verified names no user.

The caller is the active user whose e-mail equals the token's `email` claim (decisions.md section 2). An
identity provider that lets anyone sign up (Auth0 database connections, Cognito user pools with
self-registration, ...) issues tokens before the address is confirmed, with `email_verified: false`: an
anonymous attacker who signs up with an employee's (or an executive's) address got that user's session.
"""
import time

import jwt
import pytest

from chalicelib.core.settings import get_settings
from tests.factories import make_user


def token(email: str, **claims) -> str:
    now = int(time.time())
    payload = {"email": email, "sub": "attacker", "iat": now, "exp": now + 600, **claims}
    return jwt.encode(payload, get_settings().auth_jwt_secret, algorithm="HS256")


def me(api, bearer: str):
    return api.get("/api/me", headers={"Authorization": f"Bearer {bearer}"})


@pytest.mark.parametrize("unverified", [False, "false", "False", 0, None])
def test_an_unverified_email_claim_is_401(api, db, unverified):
    victim = make_user(db, email="ceo@agency.test", access_level="executive")
    answer = me(api, token(victim.email, email_verified=unverified))
    assert answer.status == 401, answer
    assert set(answer.json) == {"error"}


@pytest.mark.parametrize("verified", [True, "true"])
def test_a_verified_or_silent_email_claim_still_signs_in(api, db, verified):
    user = make_user(db, email="amy@agency.test")
    assert me(api, token(user.email, email_verified=verified)).json["user"]["id"] == user.id
    assert me(api, token(user.email)).json["user"]["id"] == user.id  # no claim at all: as before
