"""Tasks duplicated while a record the original links is deleted (session 24, copies audit), against a real HTTP
server on Postgres (the server and helpers of test_concurrency.py).

A duplicate takes the locks a create takes on the records it names (FOR KEY SHARE: projects' `link_project`, deals'
`link_deal` and `link_company`, roadmaps' `visible_item_exists`, and the parent task's row): a delete in progress is
waited for and the copy then leaves that link null; a delete that comes after waits for the copy and unlinks it.
Before, the copy was written without a lock: a duplicate racing the delete committed a task naming the deleted record
(the delete's unlinking UPDATE had not seen the uncommitted copy), and one racing its parent's delete answered 400 (the
foreign key)."""
from __future__ import annotations

import pytest
from sqlalchemy import text

from tests.concurrency.test_concurrency import THREADS, _all_at_once, _call, _make, _token, executive, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there

KINDS = ["company", "deal", "project", "roadmap_item"]


def _records(sessions, user):
    """A company, a deal of it, a project and a roadmap item of another project, committed."""
    from chalicelib.areas.roadmaps.models import Roadmap, RoadmapItem
    from tests.areas.deals.factories import make_company, make_deal
    from tests.areas.projects.factories import make_project

    def roadmap_item(db):
        roadmap = Roadmap(name="R", project_id=make_project(db).id)
        db.add(roadmap)
        db.flush()
        item = RoadmapItem(roadmap_id=roadmap.id, title="I")
        db.add(item)
        db.flush()
        return roadmap, item

    [company] = _make(sessions, lambda db: make_company(db))
    [deal, project, (roadmap, item)] = _make(sessions, lambda db: make_deal(db, company_id=company.id),
                                             lambda db: make_project(db), roadmap_item)
    return {"company": (company.id, f"/api/deals/companies/{company.id}"),
            "deal": (deal.id, f"/api/deals/deals/{deal.id}"),
            "project": (project.id, f"/api/projects/{project.id}"),
            "roadmap_item": (item.id, f"/api/roadmaps/{roadmap.id}/items/{item.id}")}, deal


def _original(sessions, user, kind: str, target: str):
    from tests.areas.tasks.factories import make_task

    link = ({"roadmap_item_id": target} if kind == "roadmap_item" else {"resource_type": kind, "resource_id": target})
    [task] = _make(sessions, lambda db: make_task(db, title="src", created_by=user.id, **link))
    return task


def _naming(sessions, kind: str, target: str) -> list[str]:
    """The titles of the tasks other than the original that name `target`."""
    from sqlalchemy import select

    from chalicelib.areas.tasks.models import Task

    where = ((Task.roadmap_item_id == target,) if kind == "roadmap_item"
             else (Task.resource_type == kind, Task.resource_id == target))
    with sessions() as db:
        return list(db.scalars(select(Task.title).where(*where, Task.title != "src")))


@pytest.mark.parametrize("kind", KINDS)
def test_duplicates_made_while_their_linked_record_is_deleted_name_no_deleted_record(live, kind):
    base, sessions = live
    user = executive(sessions)
    token = _token(user)
    dead = 0
    for _ in range(3):  # three rounds: a race that one round may miss
        records, deal = _records(sessions, user)
        target, path = records[kind]
        if kind == "company":  # a company with a deal is not deleted (409): the deal goes first
            assert _call(base, "DELETE", f"/api/deals/deals/{deal.id}", token)[0] in (200, 204)
        task = _original(sessions, user, kind, target)
        calls = [(lambda task=task: _call(base, "POST", f"/api/tasks/{task.id}/duplicate", token))
                 for _ in range(THREADS - 1)]
        calls.insert(THREADS // 2, lambda path=path: _call(base, "DELETE", path, token))
        results = _all_at_once(calls)
        deleted = results.pop(THREADS // 2)
        assert deleted[0] in (200, 204), deleted
        assert {status for status, _ in results} == {201}, results
        dead += len(_naming(sessions, kind, target))
    assert dead == 0, f"{dead} copies name a deleted {kind}"


_TABLES = {"company": "companies", "deal": "deals", "project": "projects", "roadmap_item": "roadmap_items"}


@pytest.mark.parametrize("kind", KINDS)
def test_a_duplicate_made_during_the_delete_of_its_linked_record_waits_and_leaves_the_link_null(live, kind):
    """Deterministic: another transaction is a delete of the record past its unlinking UPDATE (the row locked, the
    tasks naming it cleared, the row deleted), not committed; the duplicate must wait for it, then copy no link."""
    base, sessions = live
    user = executive(sessions)
    records, deal = _records(sessions, user)
    target, _ = records[kind]
    task = _original(sessions, user, kind, target)
    column = "roadmap_item_id" if kind == "roadmap_item" else "resource_id"

    def delete(db):
        if kind == "company":
            db.execute(text("DELETE FROM deals WHERE id = :id"), {"id": deal.id})
        db.execute(text(f"SELECT id FROM {_TABLES[kind]} WHERE id = :id FOR UPDATE"), {"id": target})
        cleared = "roadmap_item_id = NULL" if kind == "roadmap_item" else "resource_type = NULL, resource_id = NULL"
        db.execute(text(f"UPDATE tasks SET {cleared} WHERE {column} = :id"), {"id": target})
        db.execute(text(f"DELETE FROM {_TABLES[kind]} WHERE id = :id"), {"id": target})

    status, body = while_held(sessions, delete,
                              lambda: _call(base, "POST", f"/api/tasks/{task.id}/duplicate", _token(user)))
    assert status == 201, body
    copy = body["task"]
    assert copy[column] is None, copy
    assert _naming(sessions, kind, target) == []


def test_a_duplicate_made_while_its_parent_is_deleted_is_made_without_the_parent(live):
    """The parent's delete (which takes its subtasks, the original among them) is in progress: the duplicate waits for
    it, then finds the parent gone and makes the copy standalone. Before, it answered 400 (the foreign key)."""
    from tests.areas.tasks.factories import make_task

    base, sessions = live
    user = executive(sessions)
    [parent] = _make(sessions, lambda db: make_task(db, title="parent", created_by=user.id))
    [sub] = _make(sessions, lambda db: make_task(db, title="src", parent_task_id=parent.id, created_by=user.id))
    status, body = while_held(sessions, text("DELETE FROM tasks WHERE id = :id").bindparams(id=parent.id),
                              lambda: _call(base, "POST", f"/api/tasks/{sub.id}/duplicate", _token(user)))
    assert status == 201, body
    assert body["task"]["parent_task_id"] is None, body


def test_a_duplicate_made_while_its_sprint_is_deleted_is_made_without_the_sprint(live):
    """Review of the session's diff: the sprint is share-locked in the read that checks it (sprints'
    `visible_sprint_status`), as the other links are; a sprint delete in progress is waited for and the copy names no
    sprint. Before, the copy named it and its INSERT then failed on the foreign key: a 400 on `sprint_id`, a field
    the request never sent."""
    from chalicelib.areas.sprints.models import Sprint
    from tests.areas.projects.factories import make_project
    from tests.areas.tasks.factories import make_task

    base, sessions = live
    user = executive(sessions)

    def sprint(db):
        made = Sprint(project_id=make_project(db).id, name="S")
        db.add(made)
        db.flush()
        return made

    [held] = _make(sessions, sprint)
    [task] = _make(sessions, lambda db: make_task(db, title="src", sprint_id=held.id, created_by=user.id))
    hold = [text("SELECT id FROM sprints WHERE id = :id FOR UPDATE").bindparams(id=held.id),
            text("DELETE FROM sprints WHERE id = :id").bindparams(id=held.id)]
    status, body = while_held(sessions, hold,
                              lambda: _call(base, "POST", f"/api/tasks/{task.id}/duplicate", _token(user)))
    assert status == 201, (status, body)
    assert body["task"]["sprint_id"] is None, body
