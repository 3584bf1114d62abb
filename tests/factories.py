"""Factories for core records: plain functions that add, flush and return (Polar's style)."""
from __future__ import annotations

import itertools

from chalicelib.core.models import ConfigList, ConfigListItem, Squad, User, UserPermission

_seq = itertools.count(1)


def make_user(db, **overrides) -> User:
    n = next(_seq)
    values = {"email": f"user{n}@agency.test", "name": f"User {n}", "access_level": "employee", "is_active": True}
    values.update(overrides)
    user = User(**values)
    db.add(user)
    db.flush()
    return user


def make_squad(db, **overrides) -> Squad:
    values = {"name": f"Squad {next(_seq)}"}
    values.update(overrides)
    squad = Squad(**values)
    db.add(squad)
    db.flush()
    return squad


def grant(db, user: User, tool: str, level: str) -> None:
    db.merge(UserPermission(user_id=user.id, tool=tool, level=level))
    db.flush()


def config_item(db, key: str, value: str) -> ConfigListItem:
    from sqlalchemy import select

    return db.scalar(
        select(ConfigListItem).join(ConfigList).where(ConfigList.key == key, ConfigListItem.value == value)
    )


def app_in_transaction(test_session) -> bool:
    """Whether a session of the app (any but the test's own) holds a database transaction now: called from a
    stand-in provider, it tells whether the request made its call with a transaction open (the definition of
    done: provider calls outside the request's transaction)."""
    from sqlalchemy.orm import session as orm_session

    return any(s.in_transaction() for s in list(orm_session._sessions.values()) if s is not test_session)
