"""User updates at once, against a real HTTP server on Postgres (the server and helpers of test_concurrency.py;
races audit, session 22): crossed manager changes leave no reporting cycle, and a user's date checks read the row
as the other requests left it (end_date never before start_date)."""
from __future__ import annotations

import secrets
from datetime import date

from sqlalchemy import text

from tests.concurrency.test_concurrency import (
    _all_at_once,
    _call,
    _make,
    _token,
    executive,
    pytestmark,  # noqa: F401 - Postgres only, as there
    while_held,
)

ROUNDS = 10


def _user(level="employee", **fields):
    from tests.factories import make_user

    return lambda db: make_user(db, access_level=level, email=f"{level}-{secrets.token_hex(4)}@agency.test", **fields)


def _put(base, token, user_id, body):
    """A PUT of the user, to run later (`_all_at_once`)."""
    return lambda: _call(base, "PUT", f"/api/admin/users/{user_id}", token, body)


def test_crossed_manager_changes_at_once_make_no_reporting_cycle(live):
    """X's manager := Y and Y's manager := X at once: each walked the chain as committed and both saved (5 rounds
    in 10), a cycle; now the changes take turns and the second sees the first (400), with no deadlock (409)."""
    from chalicelib.core.models import User

    base, sessions = live
    token = _token(executive(sessions))
    for _ in range(ROUNDS):
        x, y = _make(sessions, _user(), _user())
        results = _all_at_once([
            _put(base, token, x.id, {"manager_id": y.id}),
            _put(base, token, y.id, {"manager_id": x.id}),
        ])
        with sessions() as db:
            managers = (db.get(User, x.id).manager_id, db.get(User, y.id).manager_id)
        assert managers != (y.id, x.id), f"X and Y manage each other ({results})"
        assert sorted(status for status, _ in results) == [200, 400], results
        refused = next(body for status, body in results if status == 400)
        assert refused["details"][0]["message"] == "would create a reporting cycle", refused


def test_a_longer_crossed_cycle_at_once_is_refused(live):
    """A -> B -> C made at once (each a separate request, closing the loop C -> A among them): at most two saved."""
    from chalicelib.core.models import User

    base, sessions = live
    token = _token(executive(sessions))
    for _ in range(ROUNDS // 2):
        a, b, c = _make(sessions, _user(), _user(), _user())
        results = _all_at_once([
            _put(base, token, a.id, {"manager_id": b.id}),
            _put(base, token, b.id, {"manager_id": c.id}),
            _put(base, token, c.id, {"manager_id": a.id}),
        ])
        with sessions() as db:
            managers = [db.get(User, user.id).manager_id for user in (a, b, c)]
        assert managers != [b.id, c.id, a.id], f"A, B and C manage each other in a loop ({results})"
        assert sorted(status for status, _ in results) == [200, 200, 400], results


def test_an_end_date_is_checked_against_the_start_date_another_request_is_writing(live):
    """An end_date change checked against the start_date read before a concurrent start_date change committed
    saved end < start (200); now it waits for the row and is checked against the new start_date (400)."""
    from chalicelib.core.models import User

    base, sessions = live
    token = _token(executive(sessions))
    (user,) = _make(sessions, _user(start_date=date(2025, 1, 1), end_date=date(2025, 12, 31)))
    hold = text("UPDATE users SET start_date = DATE '2025-06-01' WHERE id = :id").bindparams(id=user.id)
    status, body = while_held(sessions, hold, lambda: _call(base, "PUT", f"/api/admin/users/{user.id}", token,
                                                            {"end_date": "2025-03-01"}))
    with sessions() as db:
        stored = db.get(User, user.id)
        start, end = stored.start_date, stored.end_date
    assert (status, start, end) == (400, date(2025, 6, 1), date(2025, 12, 31)), (status, body, start, end)
    assert body["details"] == [{"field": "end_date", "message": "before start_date"}], body


def test_start_and_end_date_changes_at_once_never_leave_end_before_start(live):
    """PUT {start_date} and PUT {end_date} of one user at once: one of the two is refused whenever together they
    would put the end before the start."""
    from chalicelib.core.models import User

    base, sessions = live
    token = _token(executive(sessions))
    for _ in range(ROUNDS):
        (user,) = _make(sessions, _user(start_date=date(2025, 1, 1), end_date=date(2025, 12, 31)))
        results = _all_at_once([
            _put(base, token, user.id, {"start_date": "2025-06-01"}),
            _put(base, token, user.id, {"end_date": "2025-03-01"}),
        ])
        with sessions() as db:
            stored = db.get(User, user.id)
            start, end = stored.start_date, stored.end_date
        assert end >= start, f"stored start {start}, end {end} ({results})"
        assert sorted(status for status, _ in results) == [200, 400], results
