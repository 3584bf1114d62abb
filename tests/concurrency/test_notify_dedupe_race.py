"""core.notify's 5-minute de-duplication across transactions on Postgres: a notice of the same user, type and
resource that another transaction is making and has not committed yet counts as made (it was a read then an
insert, so two requests at once both saw none and told the user twice)."""
from __future__ import annotations

import secrets
from types import SimpleNamespace

from sqlalchemy import func, select

from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def _context(db):
    from chalicelib.core.context import Context

    return Context(uow=SimpleNamespace(session=db, after_commit=lambda callback: None))


def _user(sessions):
    from tests.factories import make_user

    with sessions() as db:
        user = make_user(db, email=f"user-{secrets.token_hex(4)}@agency.test")
        db.commit()
    return user


def _notices(sessions, user, resource_id):
    from chalicelib.core.notify import Notification

    with sessions() as db:
        return db.scalar(select(func.count()).select_from(Notification).where(
            Notification.user_id == user.id, Notification.resource_id == resource_id))


def test_a_notice_another_transaction_is_making_is_not_made_twice(live):
    from chalicelib.core.notify import notify

    _, sessions = live
    user = _user(sessions)
    notice = {"user_id": user.id, "type": "mention", "title": "You were mentioned", "resource_type": "note",
              "resource_id": secrets.token_hex(8)}
    with sessions() as first, sessions() as second:
        assert notify(_context(first), **notice) is not None
        assert notify(_context(second), **notice) is None  # the first is still being made: a repeat
        second.commit()
        first.commit()
    assert _notices(sessions, user, notice["resource_id"]) == 1


def test_other_resources_and_users_are_not_held_back(live):
    from chalicelib.core.notify import notify, notify_many

    _, sessions = live
    user, other = _user(sessions), _user(sessions)
    resource = secrets.token_hex(8)
    with sessions() as first, sessions() as second:
        notify(_context(first), user_id=user.id, type="mention", title="t", resource_type="note", resource_id=resource)
        told = notify_many(_context(second), [
            {"user_id": user.id, "type": "mention", "title": "t", "resource_type": "note", "resource_id": resource},
            {"user_id": user.id, "type": "mention", "title": "t", "resource_type": "note", "resource_id": "another"},
            {"user_id": other.id, "type": "mention", "title": "t", "resource_type": "note", "resource_id": resource}])
        second.commit()
        first.commit()
    assert sorted(told) == sorted([user.id, other.id])
    assert _notices(sessions, user, resource) == 1 and _notices(sessions, other, resource) == 1


def test_a_later_transaction_still_sees_the_committed_notice(live):
    from chalicelib.core.notify import notify

    _, sessions = live
    user = _user(sessions)
    notice = {"user_id": user.id, "type": "mention", "title": "t", "resource_type": "note",
              "resource_id": secrets.token_hex(8)}
    with sessions() as first:
        assert notify(_context(first), **notice) is not None
        first.commit()
    with sessions() as second:
        assert notify(_context(second), **notice) is None
        second.commit()
    assert _notices(sessions, user, notice["resource_id"]) == 1
