"""Positions among a parent's children (session 25), against a real HTTP server on Postgres (the live server of
tests/concurrency): a sub-page may carry its own entity link, yet its siblings are all the parent's children, so
creates and moves under one parent take one key whatever their entity link. They took the key of (parent, entity),
and two of different links read the same highest position and stored the same one.

The race is made deterministic: another transaction holds the parent's row (FOR UPDATE), so each writer, having read
the highest position under its key, waits at its INSERT/UPDATE (the foreign key's share lock on the parent) with its
transaction open; the second starts while the first waits. Sharing the first's key, it waits for the first's commit
and reads its position; with a key of its own it read the same maximum.
"""
from __future__ import annotations

import threading
import time

from sqlalchemy import select

from tests.concurrency.conftest import live  # noqa: F401 - the live server fixture
from tests.concurrency.test_concurrency import TIMEOUT, _call, _token, executive
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only

GAP = 0.8


def _behind_parent_row(sessions, parent_id, first, second):
    """Hold the parent's row; start `first`, then `second`; then release. Answers their results."""
    from chalicelib.areas.pages.models import Page

    answers = {}

    def run(name, call):
        try:
            answers[name] = call()
        except Exception as exc:  # noqa: BLE001 - the test checks what it got
            answers[name] = exc

    with sessions() as other:
        other.execute(select(Page.id).where(Page.id == parent_id).with_for_update())
        a = threading.Thread(target=run, args=("first", first))
        a.start()
        time.sleep(GAP)
        b = threading.Thread(target=run, args=("second", second))
        b.start()
        time.sleep(GAP)
        other.commit()
    a.join(TIMEOUT * 2)
    b.join(TIMEOUT * 2)
    return answers


def _positions(sessions, parent_id):
    from chalicelib.areas.pages.models import Page

    with sessions() as db:
        return sorted(db.scalars(select(Page.position).where(Page.parent_id == parent_id)))


def _company(sessions):
    """A link to a company of its own (a page links only to an existing one: session 29)."""
    from tests.areas.deals.factories import make_company

    with sessions() as db:
        company = make_company(db)
        db.commit()
        return {"entity_type": "company", "entity_id": company.id}


def _setup(sessions):
    from tests.areas.pages.factories import make_page

    token = _token(executive(sessions))
    with sessions() as db:
        parent = make_page(db)
        make_page(db, parent_id=parent.id, position=0.0)
        db.commit()
    return token, parent


def test_creates_under_one_parent_with_and_without_an_entity_link_take_distinct_positions(live):  # noqa: F811
    base, sessions = live
    token, parent = _setup(sessions)
    company = _company(sessions)
    answers = _behind_parent_row(
        sessions, parent.id,
        lambda: _call(base, "POST", "/api/pages", token, {"title": "plain", "parent_id": parent.id}),
        lambda: _call(base, "POST", "/api/pages", token, {"title": "linked", "parent_id": parent.id, **company}))
    assert answers["first"][0] == 201 and answers["second"][0] == 201, answers
    assert _positions(sessions, parent.id) == [0.0, 1.0, 2.0]


def test_creates_under_one_parent_with_different_entity_links_take_distinct_positions(live):  # noqa: F811
    base, sessions = live
    token, parent = _setup(sessions)
    one, two = _company(sessions), _company(sessions)
    answers = _behind_parent_row(
        sessions, parent.id,
        lambda: _call(base, "POST", "/api/pages", token, {"title": "one", "parent_id": parent.id, **one}),
        lambda: _call(base, "POST", "/api/pages", token, {"title": "two", "parent_id": parent.id, **two}))
    assert answers["first"][0] == 201 and answers["second"][0] == 201, answers
    assert _positions(sessions, parent.id) == [0.0, 1.0, 2.0]


def test_a_linked_page_moved_under_a_parent_and_a_create_there_take_distinct_positions(live):  # noqa: F811
    from tests.areas.pages.factories import make_page

    base, sessions = live
    token, parent = _setup(sessions)
    with sessions() as db:
        linked = make_page(db, **_company(sessions))
        db.commit()
    answers = _behind_parent_row(
        sessions, parent.id,
        lambda: _call(base, "PATCH", f"/api/pages/{linked.id}", token, {"parent_id": parent.id}),
        lambda: _call(base, "POST", "/api/pages", token, {"title": "plain", "parent_id": parent.id}))
    assert answers["first"][0] == 200 and answers["second"][0] == 201, answers
    assert _positions(sessions, parent.id) == [0.0, 1.0, 2.0]


def test_a_create_and_a_linked_page_moved_under_a_parent_take_distinct_positions(live):  # noqa: F811
    """The other order: the create holds the key first, the move of a linked page waits for it."""
    from tests.areas.pages.factories import make_page

    base, sessions = live
    token, parent = _setup(sessions)
    with sessions() as db:
        linked = make_page(db, **_company(sessions))
        db.commit()
    answers = _behind_parent_row(
        sessions, parent.id,
        lambda: _call(base, "POST", "/api/pages", token, {"title": "plain", "parent_id": parent.id}),
        lambda: _call(base, "PATCH", f"/api/pages/{linked.id}", token, {"parent_id": parent.id}))
    assert answers["first"][0] == 201 and answers["second"][0] == 200, answers
    assert _positions(sessions, parent.id) == [0.0, 1.0, 2.0]


def test_many_creates_under_one_parent_half_with_entity_links_take_distinct_positions(live):  # noqa: F811
    """The audit's case, all at once (not timing-dependent to pass; the tests above make the race certain)."""
    from tests.concurrency.test_concurrency import _all_at_once

    base, sessions = live
    token, parent = _setup(sessions)
    links = {i: _company(sessions) for i in range(1, 12, 2)}
    calls = [lambda i=i: _call(base, "POST", "/api/pages", token,
                               {"title": f"c{i}", "parent_id": parent.id, **links.get(i, {})})
             for i in range(12)]
    results = _all_at_once(calls)
    assert all(status == 201 for status, _ in results), results
    positions = _positions(sessions, parent.id)
    assert len(set(positions)) == len(positions) == 13, positions
