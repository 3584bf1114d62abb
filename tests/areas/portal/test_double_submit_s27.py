"""Session 27 (replay27b): a client's double submit (two identical POSTs a second apart) made two tasks, or two
notes, and told the delivery manager twice. Now a request or note identical to one the same portal user filed in the
last 60 seconds (same company, portal user, title and description or note text, and record) answers the record
already made, with the first answer's status and body, and writes and tells nothing; the hourly allowance counts
only what was made (docs/decisions/portal.md, session 27)."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select, update

from chalicelib.areas.notes.models import Note
from chalicelib.areas.portal.models import PortalSubmission
from chalicelib.areas.tasks.models import Task
from chalicelib.core.allowance import PER_HOUR
from chalicelib.core.ids import utcnow
from chalicelib.core.models import ProviderUse
from chalicelib.core.notify import Notification
from tests.areas.portal.conftest import make_client
from tests.areas.portal.test_costly_writes_s26 import refused_for_an_hour, seed
from tests.areas.projects.factories import make_project
from tests.factories import make_user


def count(db, model, *where) -> int:
    return db.scalar(select(func.count()).select_from(model).where(*where))


def uses(db, kind, company) -> int:
    return count(db, ProviderUse, ProviderUse.kind == kind, ProviderUse.key == company.id)


def a_minute_ago(db) -> None:
    """Every submission so far moved 61 seconds back, out of the double-submit window."""
    db.execute(update(PortalSubmission).values(created_at=utcnow() - timedelta(seconds=61)))
    db.flush()


def _request_setup(db):
    manager = make_user(db, name="Mia Manager")
    mine = make_client(db)
    project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id)
    return manager, mine, project


def test_a_request_posted_twice_makes_one_task_one_notice_and_answers_the_same(portal, db):
    manager, mine, project = _request_setup(db)
    body = {"title": "Checkout broken", "description": "Card payments fail", "projectId": project.id}
    first = portal.post("/requests", mine, role="collaborator", json=body)
    second = portal.post("/requests", mine, role="collaborator", json=body)
    assert (first.status, second.status) == (201, 201)
    assert second.json == first.json and first.json["ok"] is True
    tasks = count(db, Task, Task.resource_id == project.id)
    notices = count(db, Notification, Notification.user_id == manager.id, Notification.type == "portal_request")
    assert (tasks, notices, uses(db, "portal_request", mine)) == (1, 1, 1)


def test_a_different_request_another_user_or_a_minute_later_is_a_new_task(portal, db):
    _, mine, project = _request_setup(db)
    body = {"title": "Checkout broken", "description": "Card payments fail", "projectId": project.id}
    ids = [portal.post("/requests", mine, role="collaborator", json=body).json["taskId"],
           portal.post("/requests", mine, role="collaborator", json={**body, "description": "And PayPal"})
           .json["taskId"],
           portal.post("/requests", mine, role="collaborator", json={**body, "title": "Checkout down"})
           .json["taskId"],
           portal.post("/requests", mine, role="collaborator", user="pu-2", json=body).json["taskId"],
           portal.post("/requests", mine, role="collaborator", json={"title": body["title"],
                                                                      "description": body["description"]})
           .json["taskId"]]                                            # no project: the company's request
    other = make_client(db)
    ids.append(portal.post("/requests", other, role="collaborator",
                           json={"title": body["title"], "description": body["description"]}).json["taskId"])
    a_minute_ago(db)
    ids.append(portal.post("/requests", mine, role="collaborator", json=body).json["taskId"])
    assert len(set(ids)) == 7
    assert uses(db, "portal_request", mine) == 6


def test_a_double_submit_at_the_hourly_limit_reads_success(portal, db):
    """The 30th request of the hour, then its retry: the retry answers the request made (no 429); another request
    is refused."""
    _, mine, project = _request_setup(db)
    seed(db, "portal_request", mine.id, PER_HOUR["portal_request"] - 1)
    body = {"title": "Please look", "projectId": project.id}
    first = portal.post("/requests", mine, role="collaborator", json=body)
    second = portal.post("/requests", mine, role="collaborator", json=body)
    assert (first.status, second.status, second.json) == (201, 201, first.json)
    refused_for_an_hour(portal.post("/requests", mine, role="collaborator", json={**body, "title": "Another"}))
    assert count(db, Task, Task.resource_id == project.id) == 1


def _note_setup(db):
    manager = make_user(db, name="Mia Manager")
    mine = make_client(db, manager=manager)
    project = make_project(db, company_id=mine.id, delivery_manager_id=manager.id, owner_id=manager.id)
    return manager, mine, project


def test_a_note_posted_twice_makes_one_note_one_notice_and_answers_the_same(portal, db):
    _, mine, project = _note_setup(db)
    body = {"resourceType": "project", "resourceId": project.id, "content": "Please call me"}
    first = portal.post("/notes", mine, role="collaborator", json=body)
    second = portal.post("/notes", mine, role="collaborator", json=body)
    assert (first.status, second.status) == (201, 201), (first.json, second.json)
    assert second.json == first.json
    notices = count(db, Notification, Notification.type == "portal_note")
    assert (count(db, Note, Note.resource_id == project.id), notices, uses(db, "portal_note", mine)) == (1, 1, 1)


def test_a_different_note_a_reply_another_user_or_a_minute_later_is_a_new_note(portal, db):
    manager, mine, project = _note_setup(db)
    body = {"resourceType": "project", "resourceId": project.id, "content": "Please call me"}
    first = portal.post("/notes", mine, role="collaborator", json=body).json["id"]
    ids = [first,
           portal.post("/notes", mine, role="collaborator", json={**body, "content": "Please e-mail me"}).json["id"],
           portal.post("/notes", mine, role="collaborator", json={**body, "parentId": first}).json["id"],
           portal.post("/notes", mine, role="collaborator", user="pu-2", json=body).json["id"]]
    other = make_project(db, company_id=mine.id, delivery_manager_id=manager.id, owner_id=manager.id)
    ids.append(portal.post("/notes", mine, role="collaborator", json={**body, "resourceId": other.id}).json["id"])
    a_minute_ago(db)
    ids.append(portal.post("/notes", mine, role="collaborator", json=body).json["id"])
    assert len(set(ids)) == 6
    assert uses(db, "portal_note", mine) == 6
