"""Admin writes at once, against a real HTTP server on Postgres (the server and helpers of test_concurrency.py):
concurrent saves of the same permission cell, the matrix's or a user's override, each answer 200 (the cell is
written once and updated by the others), never a 409 from two inserting the same new cell."""
from __future__ import annotations

import secrets

from tests.concurrency.test_concurrency import THREADS, _all_at_once, _call, _token, executive
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there

LEVELS = ("view", "update", "manage", "none")


def test_concurrent_matrix_saves_of_a_new_cell_all_succeed(live):
    from chalicelib.core.models import AccessLevelPermission

    base, sessions = live
    token = _token(executive(sessions))
    for tool in ("sla", "insights"):  # two rounds: each cell is new (only defaults) when the round starts
        results = _all_at_once([(lambda i=i: _call(base, "PUT", "/api/admin/permissions", token,
                                                   {"matrix": {"employee": {tool: LEVELS[i % 4]}}}))
                                for i in range(THREADS)])
        assert sorted(status for status, _ in results) == [200] * THREADS, [r for r in results if r[0] != 200]
        with sessions() as db:
            stored = db.get(AccessLevelPermission, ("employee", tool))
            assert stored is not None and stored.level in LEVELS


def test_concurrent_override_saves_of_a_new_tool_all_succeed(live):
    from chalicelib.core.models import UserPermission
    from tests.factories import make_user

    base, sessions = live
    token = _token(executive(sessions))
    with sessions() as db:
        user = make_user(db, access_level="employee", email=f"emp-{secrets.token_hex(4)}@agency.test")
        db.commit()
    for tool in ("sla", "insights"):
        results = _all_at_once([(lambda i=i: _call(base, "PUT", f"/api/admin/users/{user.id}/permissions", token,
                                                   {"permissions": {tool: LEVELS[i % 4]}}))
                                for i in range(THREADS)])
        assert sorted(status for status, _ in results) == [200] * THREADS, [r for r in results if r[0] != 200]
        with sessions() as db:
            assert db.get(UserPermission, (user.id, tool)).level in LEVELS
