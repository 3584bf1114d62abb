"""The token's e-mail claim is compared as the admin API stores addresses (session 32): trimmed, lower-cased and in
Unicode's composed form (NFC). A claim with white space around it, or with an accent decomposed ("e" + U+0301),
answered 403 "No active user" for an active user."""
import pytest

from tests.factories import make_user

from .conftest import claims
from .test_auth import hs256, me


@pytest.mark.parametrize("claim", [" jos\u00e9@agency.test ", "jose\u0301@agency.test", "JOSE\u0301@Agency.test"])
def test_a_claim_spelled_otherwise_finds_its_user(api, db, claim):
    user = make_user(db, email="jos\u00e9@agency.test", name="Jos\u00e9")
    response = me(api, hs256(claims(claim)))
    assert response.status == 200, response.json
    assert response.json["user"]["id"] == user.id


def test_another_address_is_still_nobody(api, db):
    make_user(db, email="jos\u00e9@agency.test", name="Jos\u00e9")
    assert me(api, hs256(claims("jose@agency.test"))).status == 403


def test_an_address_stored_decomposed_before_still_signs_in_as_spelled(api, db):
    """A user stored before session 32 in the decomposed form (no migration rewrote it) signs in with a token that
    spells it so (the review of session 32: the composed lookup alone answered 403)."""
    user = make_user(db, email="jose\u0301@agency.test", name="Jos\u00e9")  # as stored before: not composed
    response = me(api, hs256(claims("jose\u0301@agency.test")))
    assert response.status == 200, response.json
    assert response.json["user"]["id"] == user.id


def test_a_claim_is_lower_cased_then_composed_as_addresses_are_stored(api, db):
    """Admin and the CLI lower-case, then compose; a claim composed first differed for a capital with no composed form
    of its mark ("J" + U+030C stays two; "j" + U+030C is U+01F0): 403 (the second review of session 32)."""
    user = make_user(db, email="\u01f0ane@agency.test", name="Jane")  # "J\u030cane@..." as admin stores it
    response = me(api, hs256(claims("J\u030cane@agency.test")))
    assert response.status == 200, response.json
    assert response.json["user"]["id"] == user.id
