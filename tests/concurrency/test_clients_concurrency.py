"""Concurrent client-profile creates for one company, against a real HTTP server on Postgres (the server and
helpers of test_concurrency.py): one is created (201), every other answers 409 as a later create does."""
from __future__ import annotations

import secrets

from tests.concurrency.test_concurrency import THREADS, _all_at_once, _call, _token
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_concurrent_profile_creates_make_one_and_refuse_the_rest(live):
    from tests.areas.deals.factories import make_company
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        company = make_company(db, name="Acme Pty")
        db.commit()
    token = _token(user)
    results = _all_at_once([(lambda i=i: _call(base, "POST", f"/api/clients/{company.id}/profile", token,
                                               {"client_group": f"group {i}"})) for i in range(THREADS)])
    statuses = sorted(status for status, _ in results)
    assert statuses == [201] + [409] * (THREADS - 1), results
    [created] = [body for status, body in results if status == 201]
    status, body = _call(base, "GET", f"/api/clients/{company.id}/profile", token)
    assert status == 200 and body["profile"]["client_group"] == created["profile"]["client_group"]
