"""Factories for core records: plain functions that add, flush and return (Polar's style)."""
from __future__ import annotations

import itertools
import json
from contextlib import contextmanager
from decimal import Decimal

from chalicelib.core.models import ConfigList, ConfigListItem, Squad, User, UserPermission

_seq = itertools.count(1)


def add_row(db, model, values: dict, overrides: dict, **fixed):
    """The factories' common step: a `model` row of `fixed` (its parent's key, say) and of `values` updated by
    `overrides`, added and flushed."""
    row = model(**fixed, **{**values, **overrides})
    db.add(row)
    db.flush()
    return row


def priced_line(n: int, overrides: dict) -> dict:
    """A priced line's values (budgets' and invoices' line items): "Line n", 1 at 100, position 0, updated by
    `overrides`, and its amount (quantity times unit price, whatever `overrides` says of it)."""
    values = {"description": f"Line {n}", "quantity": Decimal("1"), "unit_price": Decimal("100"), "position": 0}
    values.update(overrides)
    values["amount"] = Decimal(values["quantity"]) * Decimal(values["unit_price"])
    return values


def exact_json(response):
    """An answer's JSON with its numbers read as written (Decimal), not through a float: whether an amount is
    answered to the cent."""
    return json.loads(response.body, parse_float=Decimal)


def refused_fields(response) -> list[str]:
    """The fields a 400 names in its details, sorted (the answer asserted to be a 400)."""
    assert response.status == 400, response
    return sorted(detail["field"] for detail in response.json["details"])


def make_user(db, **overrides) -> User:
    n = next(_seq)
    return add_row(db, User, {"email": f"user{n}@agency.test", "name": f"User {n}", "access_level": "employee",
                              "is_active": True}, overrides)


def make_squad(db, **overrides) -> Squad:
    return add_row(db, Squad, {"name": f"Squad {next(_seq)}"}, overrides)


def deactivate(db, *users: User) -> None:
    """`users` made inactive (the rows, as an admin's deactivation leaves them, with none of its hooks)."""
    for user in users:
        db.get(User, user.id).is_active = False
    db.flush()


def grant(db, user: User, tool: str, level: str) -> None:
    db.merge(UserPermission(user_id=user.id, tool=tool, level=level))
    db.flush()


def override_permissions(api, admin, user, **levels) -> None:
    """`admin` sets `user`'s own levels (tool=level, None removes the override) through the API, answered 200."""
    answer = api.put(f"/api/admin/users/{user.id}/permissions", as_=admin, json={"permissions": levels})
    assert answer.status == 200, answer.json


def save_matrix(api, admin, **rows) -> None:
    """`admin` saves cells of the access levels' matrix (level={tool: level}) through the API, answered 200."""
    answer = api.put("/api/admin/permissions", as_=admin, json={"matrix": rows})
    assert answer.status == 200, answer.json


def set_access_level(api, admin, user, level: str) -> None:
    """`admin` moves `user` to access level `level` through the API, answered 200."""
    answer = api.put(f"/api/admin/users/{user.id}", as_=admin, json={"access_level": level})
    assert answer.status == 200, answer.json


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


def constant_statements(count_queries, get, grow, size, sizes=(5, 100)):
    """The rule that a list costs a constant number of statements (docs/area-contract.md, "Reads"): `grow(n)`
    adds n rows to the list that `get()` answers and `size(body)` counts them; the GET must cost the same
    statements at each of `sizes`. Answers the last body."""
    counts, done = [], 0
    for total in sizes:
        grow(total - done)
        done = total
        with count_queries() as counter:
            answer = get()
        assert answer.status == 200, answer
        assert size(answer.json) == total
        counts.append(counter.count)
    assert len(set(counts)) == 1, counts
    return answer.json


def exact_statements(count_queries, get, grow, size, sizes, expected):
    """`constant_statements`, and the number itself: `expected` statements at each of `sizes`."""
    seen = []

    @contextmanager
    def recording():
        with count_queries() as counter:
            yield counter
        seen.append(counter.count)

    body = constant_statements(recording, get, grow, size, sizes)
    assert seen == [expected] * len(sizes), seen
    return body


def assert_constant(api, count_queries, user, url, grow, size, sizes=(5, 100)):
    """`constant_statements` for `GET url` as `user`."""
    return constant_statements(count_queries, lambda: api.get(url, as_=user), grow, size, sizes)


@contextmanager
def served(test_app):
    """A small Chalice app standing in for an area (its routes through the real `core.http.endpoint`), served by
    the Chalice test client: yields `call(method, path, payload=None) -> (status, body, headers)`, the app
    installed as the decorator's for the call only."""
    from chalice.test import Client

    from chalicelib.core import http

    with Client(test_app) as client:
        def call(method: str, path: str, payload=None):
            extra = {} if payload is None else {"body": json.dumps(payload),
                                                "headers": {"Content-Type": "application/json"}}
            previous = http._app
            http.install(test_app)
            try:
                raw = getattr(client.http, method.lower())(path, **extra)
            finally:
                http.install(previous)
            return raw.status_code, json.loads(raw.body), raw.headers
        yield call
