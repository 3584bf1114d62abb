"""Concurrent PATCHes making different templates the default, against a real HTTP server on Postgres (the
server and helpers of tests/concurrency/test_concurrency.py): document 2's is_default "clears other defaults",
so however many arrive at once, one template is the default afterwards."""
from __future__ import annotations


from tests.concurrency.test_concurrency import THREADS, _all_at_once, _call, _token, executive
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there

BASE = "/api/admin/onboarding-templates/client"


def test_concurrent_defaults_leave_one_default(live):

    base, sessions = live
    user = executive(sessions)
    token = _token(user)
    ids = []
    for i in range(THREADS):
        status, body = _call(base, "POST", BASE, token, {"name": f"Template {i}"})
        assert status == 201, body
        ids.append(body["template"]["id"])
    for _round in range(2):  # the second round starts with a default among them (no deadlock either)
        results = _all_at_once([(lambda tid=tid: _call(base, "PATCH", f"{BASE}/{tid}", token, {"is_default": True}))
                                for tid in ids])
        assert all(status == 200 for status, _ in results), results
        status, body = _call(base, "GET", BASE, token)
        defaults = [t["id"] for t in body["templates"] if t["id"] in ids and t["is_default"]]
        assert len(defaults) == 1, defaults
