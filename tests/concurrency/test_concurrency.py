"""Concurrent requests against a real HTTP server on Postgres (issue 20 item 4).

Chalice's local server (threaded, `tests/concurrency/server.py`) runs in a subprocess on a database of its own
on the test Postgres server (the session's `live` fixture, tests/concurrency/conftest.py), so that each request
commits for real and concurrent requests meet in the database as they would in production. Records are made
and read back through a committing session on that database. Bounded: 20 threads per case, each
request with a 20 s timeout.
"""
from __future__ import annotations

import json
import os
import secrets
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

THREADS = 20
TIMEOUT = 20

pytestmark = pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite",
                                reason="row locks and concurrent writers need Postgres (SQLite serialises writers)")


def _token(user) -> str:
    from chalicelib.core.auth import issue_dev_token

    return issue_dev_token(user.email)


def _call(base: str, method: str, path: str, token: str, body=None) -> tuple[int, object]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": f"Bearer {token}"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            raw = answer.read()
            return answer.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        raw = error.read()
        return error.code, json.loads(raw) if raw else None


def _all_at_once(calls) -> list[tuple[int, object]]:
    """Run the callables in THREADS threads released together; answers their results in order."""
    barrier = threading.Barrier(len(calls))

    def run(call):
        barrier.wait(timeout=TIMEOUT)
        return call()

    with ThreadPoolExecutor(max_workers=min(THREADS, len(calls))) as pool:
        return list(pool.map(run, calls, timeout=TIMEOUT * 2))


def while_held(sessions, hold, call, *, wait: float = 1.0):
    """Run `call` (an HTTP request, or a job) in a thread while another transaction has run `hold` (a statement, a
    list of them, or a function of the session) and holds the rows it wrote; after `wait` seconds the call must
    still be waiting on them; then that transaction commits. Answers the call's result (the exception it raised,
    if it raised one)."""
    answers = []

    def run():
        try:
            answers.append(call())
        except Exception as exc:  # noqa: BLE001 - the caller checks what it got
            answers.append(exc)

    with sessions() as other:
        if callable(hold):
            hold(other)
        else:
            for statement in hold if isinstance(hold, (list, tuple)) else [hold]:
                other.execute(statement)
        request = threading.Thread(target=run)
        request.start()
        time.sleep(wait)  # the call has read what it needs and waits on a row (or a key) the other holds
        assert request.is_alive(), "the call did not wait for the other transaction"
        other.commit()
    request.join(timeout=TIMEOUT)
    assert len(answers) == 1, "the call did not finish"
    return answers[0]


def executive(sessions):
    """An executive with an e-mail of its own, committed (the session's server is shared by every test)."""
    from tests.factories import make_user

    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        db.commit()
    return user


def _executive_task(sessions):
    """An executive (`executive`'s e-mail) and a task they created, committed together: (user, task)."""
    from tests.areas.tasks.factories import make_task
    from tests.factories import make_user

    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        task = make_task(db, created_by=user.id)
        db.commit()
    return user, task


def _make(sessions, *makers):
    """Run factory calls in one committed transaction; answers their results."""
    with sessions() as db:
        made = [maker(db) for maker in makers]
        db.commit()
    return made


def test_concurrent_approve_and_reject_give_one_decision(live):
    from chalicelib.areas.timesheets.models import TimeEntry
    from tests.areas.timesheets.factories import make_entry
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        approver = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        owner = make_user(db, access_level="employee", email=f"emp-{secrets.token_hex(4)}@agency.test")
        entries = [make_entry(db, owner, status="submitted") for _ in range(3)]
        db.commit()
    token = _token(approver)
    for entry in entries:  # three rounds: a race that a single round may miss
        calls = [
            (lambda i=i: _call(base, "POST", f"/api/time-entries/{entry.id}/{'approve' if i % 2 else 'reject'}",
                               token, {} if i % 2 else {"reason": f"no {i}"}))
            for i in range(THREADS)
        ]
        results = _all_at_once(calls)
        statuses = sorted(status for status, _ in results)
        assert statuses == [200] + [409] * (THREADS - 1), results
        winner = next(body for status, body in results if status == 200)["time_entry"]
        with sessions() as db:
            stored = db.get(TimeEntry, entry.id)
            assert stored.status == winner["status"] in ("approved", "rejected")
            assert (stored.approved_by is None) != (stored.rejected_by is None)


def test_concurrent_todo_replacements_leave_one_requests_set(live):
    base, sessions = live
    user, task = _executive_task(sessions)
    token = _token(user)
    sets = [[f"r{i}-{n}" for n in range(3)] for i in range(THREADS)]
    calls = [(lambda titles=titles: _call(base, "PUT", f"/api/tasks/{task.id}/todos", token,
                                          {"todos": [{"title": t} for t in titles]}))
             for titles in sets]
    results = _all_at_once(calls)
    assert [status for status, _ in results] == [200] * THREADS, results
    status, body = _call(base, "GET", f"/api/tasks/{task.id}", token)
    assert status == 200
    titles = [todo["title"] for todo in body["todos"]]
    assert titles in sets, titles


def test_concurrent_creates_keep_distinct_positions(live):
    base, sessions = live
    user, task = _executive_task(sessions)
    token = _token(user)
    calls = [(lambda i=i: _call(base, "POST", f"/api/tasks/{task.id}/resources", token,
                                {"url": f"https://example.com/{i}", "title": f"Link {i}"}))
             for i in range(THREADS)]
    results = _all_at_once(calls)
    assert [status for status, _ in results] == [201] * THREADS, results
    orders = sorted(body["resource"]["sort_order"] for _, body in results)
    assert orders == list(range(THREADS)), orders


def test_concurrent_watch_and_member_adds_all_succeed(live):
    from sqlalchemy import func, select

    from chalicelib.areas.projects.models import Project, ProjectMember
    from chalicelib.areas.tasks.models import TaskWatcher
    from tests.areas.tasks.factories import make_task
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        member = make_user(db, access_level="employee", email=f"emp-{secrets.token_hex(4)}@agency.test")
        task = make_task(db, created_by=user.id)
        project = Project(name=f"Concurrent {secrets.token_hex(3)}", status="active", created_by=user.id)
        db.add(project)
        db.commit()
    token = _token(user)
    half = THREADS // 2
    calls = ([(lambda: _call(base, "POST", f"/api/tasks/{task.id}/watch", token))] * half
             + [(lambda: _call(base, "POST", f"/api/projects/{project.id}/members", token,
                               {"user_id": member.id}))] * half)
    results = _all_at_once(calls)
    assert all(status in (200, 201) for status, _ in results), results
    with sessions() as db:
        assert db.scalar(select(func.count()).select_from(TaskWatcher).where(TaskWatcher.task_id == task.id)) == 1
        assert db.scalar(select(func.count()).select_from(ProjectMember)
                         .where(ProjectMember.project_id == project.id, ProjectMember.user_id == member.id)) == 1
    results = _all_at_once([(lambda: _call(base, "DELETE", f"/api/tasks/{task.id}/watch", token))] * THREADS)
    assert [status for status, _ in results] == [200] * THREADS, results


def test_concurrent_page_creates_and_favourite_toggles(live):
    from sqlalchemy import func, select

    from chalicelib.areas.pages.models import Page, PageFavourite
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        parent = Page(title="Parent", created_by=user.id)
        db.add(parent)
        db.commit()
    token = _token(user)
    results = _all_at_once([(lambda i=i: _call(base, "POST", "/api/pages", token,
                                               {"title": f"Child {i}", "parent_id": parent.id}))
                            for i in range(THREADS)])
    assert [status for status, _ in results] == [201] * THREADS, results
    with sessions() as db:
        positions = list(db.scalars(select(Page.position).where(Page.parent_id == parent.id)))
    assert len(positions) == THREADS and len(set(positions)) == THREADS, positions
    # toggles of one favourite serialise: half answer on, half off, and an even number leaves it off
    results = _all_at_once([(lambda: _call(base, "POST", f"/api/pages/{parent.id}/favourite", token))] * THREADS)
    assert [status for status, _ in results] == [200] * THREADS, results
    assert sorted(body["is_favourited"] for _, body in results) == [False] * (THREADS // 2) + [True] * (THREADS // 2)
    with sessions() as db:
        assert db.scalar(select(func.count()).select_from(PageFavourite).where(PageFavourite.page_id == parent.id)) == 0


def test_concurrent_action_item_preference_replacements_leave_one_requests_set(live):
    """Each PUT replaces the caller's whole set; they take turns on the user's lock (before it, two at once could
    meet on the unique key and answer 409)."""
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        user = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        db.commit()
    token = _token(user)
    sets = [[{"source_module": module, "is_visible": i % 2 == 0} for module in ("tasks", "deals", f"m{i}")]
            for i in range(THREADS)]
    calls = [(lambda prefs=prefs: _call(base, "PUT", "/api/action-items/preferences", token, {"preferences": prefs}))
             for prefs in sets]
    results = _all_at_once(calls)
    assert [status for status, _ in results] == [200] * THREADS, results
    status, body = _call(base, "GET", "/api/action-items/preferences", token)
    assert status == 200
    stored = sorted((p["source_module"], p["is_visible"]) for p in body["preferences"])
    assert stored in [sorted((p["source_module"], int(p["is_visible"])) for p in prefs) for prefs in sets], stored


def test_executives_stepping_down_at_once_leave_one(live):
    """The last-active-executive check runs under one lock: of twenty executives who all step down at the same
    moment, nineteen do and the last is refused (409), so one remains."""
    from chalicelib.core.models import User
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        for user in db.query(User).filter_by(access_level="executive", is_active=True):
            user.is_active = False  # this database's earlier cases left executives behind
        executives = [make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
                      for _ in range(THREADS)]
        db.commit()
    calls = [(lambda user=user: _call(base, "PUT", f"/api/admin/users/{user.id}", _token(user),
                                      {"access_level": "head"})) for user in executives]
    statuses = sorted(status for status, _ in _all_at_once(calls))
    assert statuses == [200] * (THREADS - 1) + [409], statuses
    with sessions() as db:
        assert db.query(User).filter_by(access_level="executive", is_active=True).count() == 1
