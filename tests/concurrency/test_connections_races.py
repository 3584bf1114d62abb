"""Connection saves at once, against a real HTTP server on Postgres (the server and helpers of test_concurrency.py):
concurrent first saves of the planner's token each answer 200 and leave one stored connection (one of the saved
tokens), never a 409 from two inserting the provider's row."""
from __future__ import annotations

import json

from tests.concurrency.test_concurrency import THREADS, _all_at_once, _call, _token, executive
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_concurrent_first_planner_saves_all_succeed(live):
    from sqlalchemy import delete

    from chalicelib.areas.connections.models import Connection
    from chalicelib.core import crypto

    base, sessions = live
    user = executive(sessions)
    token = _token(user)
    tokens = [f"pl-secret-token-{i:04d}" for i in range(THREADS)]
    for _ in range(2):  # two rounds, each from no stored connection
        with sessions() as db:
            db.execute(delete(Connection).where(Connection.provider == "planner"))
            db.commit()
        results = _all_at_once([(lambda t=t: _call(base, "PUT", "/api/admin/connections/planner", token,
                                                   {"api_token": t})) for t in tokens])
        assert sorted(status for status, _ in results) == [200] * THREADS, [r for r in results if r[0] != 200]
        with sessions() as db:
            row = db.get(Connection, "planner")
            assert json.loads(crypto.decrypt(row.secret))["api_token"] in tokens
