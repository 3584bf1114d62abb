"""Session 26: a task's `reported_by_contact_id` names an existing contact (400 naming the field otherwise), as
every other contact reference does (deals, invoices, proposals); checked in the references' one statement."""
from __future__ import annotations

import uuid

import pytest

from tests.areas.deals.factories import make_contact
from tests.areas.tasks.factories import make_task
from tests.factories import make_user

MISSING = [{"field": "reported_by_contact_id", "message": "must be an existing contact"}]


def test_create_with_a_missing_contact_is_refused(api, db, exec_user):
    response = api.post("/api/tasks", as_=exec_user,
                        json={"title": "Ghost", "reported_by_contact_id": str(uuid.uuid4())})
    assert response.status == 400, response
    assert response.json["details"] == MISSING


def test_create_with_an_existing_contact(api, db, exec_user):
    contact = make_contact(db)
    response = api.post("/api/tasks", as_=exec_user, json={"title": "Call back", "reported_by_contact_id": contact.id})
    assert response.status == 201, response
    assert response.json["task"]["reported_by_contact_id"] == contact.id
    response = api.post("/api/tasks", as_=exec_user, json={"title": "Nobody", "reported_by_contact_id": None})
    assert response.status == 201 and response.json["task"]["reported_by_contact_id"] is None


def test_update_with_a_missing_contact_is_refused_an_existing_one_set_and_null_clears(api, db, exec_user):
    contact = make_contact(db)
    task = api.post("/api/tasks", as_=exec_user, json={"title": "Report"}).json["task"]
    response = api.put(f"/api/tasks/{task['id']}", as_=exec_user,
                       json={"title": "Renamed", "reported_by_contact_id": str(uuid.uuid4())})
    assert response.status == 400, response
    assert response.json["details"] == MISSING
    assert api.get(f"/api/tasks/{task['id']}", as_=exec_user).json["task"]["title"] == "Report"

    response = api.put(f"/api/tasks/{task['id']}", as_=exec_user, json={"reported_by_contact_id": contact.id})
    assert response.status == 200, response
    assert response.json["task"]["reported_by_contact_id"] == contact.id

    response = api.put(f"/api/tasks/{task['id']}", as_=exec_user, json={"reported_by_contact_id": None})
    assert response.status == 200, response
    assert response.json["task"]["reported_by_contact_id"] is None


def test_missing_contact_is_reported_with_the_other_fields(api, db, exec_user):
    gone = make_user(db, is_active=False)
    response = api.post("/api/tasks", as_=exec_user, json={
        "title": "Both", "assignee_id": gone.id, "reported_by_contact_id": str(uuid.uuid4())})
    assert response.status == 400, response
    assert {d["field"] for d in response.json["details"]} == {"assignee_id", "reported_by_contact_id"}


def test_a_stored_contact_id_sent_back_unchanged_is_not_checked_again(api, db, exec_user, count_queries):
    # a client may PUT the whole record it read: the contact it names, unchanged, costs no read (a contact deleted
    # since is cleared by the database: migration deals_0002)
    contact = make_contact(db)
    tasks = [make_task(db, title=f"Old{n}", created_by=exec_user.id, reported_by_contact_id=contact.id)
             for n in range(2)]
    api.get(f"/api/tasks/{tasks[0].id}", as_=exec_user)  # warm up
    counts = []
    for task, body in zip(tasks, ({}, {"reported_by_contact_id": contact.id})):
        with count_queries() as counter:
            response = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"title": "New", **body})
        assert response.status == 200, response
        assert response.json["task"]["title"] == "New"
        assert response.json["task"]["reported_by_contact_id"] == contact.id
        counts.append(counter.count)
    assert counts[0] == counts[1], counts


def test_the_contact_is_read_in_the_references_statement(api, db, exec_user, count_queries):
    contact = make_contact(db)
    reporters = [make_user(db), make_user(db)]
    tasks = [make_task(db, title=f"T{n}", created_by=exec_user.id) for n in range(2)]
    api.get(f"/api/tasks/{tasks[0].id}", as_=exec_user)  # warm up
    counts = []
    for task, reporter, body in zip(tasks, reporters, ({}, {"reported_by_contact_id": contact.id})):
        with count_queries() as counter:
            response = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"reporter_id": reporter.id, **body})
        assert response.status == 200, response
        counts.append(counter.count)
    assert counts[0] == counts[1], counts


def test_an_id_holding_a_comma_is_checked_too(api, db, exec_user):
    contact = make_contact(db, id=f"c,{uuid.uuid4().hex[:20]}")
    response = api.post("/api/tasks", as_=exec_user, json={"title": "Comma", "reported_by_contact_id": contact.id,
                                                           "reporter_id": exec_user.id})
    assert response.status == 201, response
    assert response.json["task"]["reported_by_contact_id"] == contact.id
    response = api.post("/api/tasks", as_=exec_user, json={"title": "Comma", "reported_by_contact_id": "a,b",
                                                           "reporter_id": "x,y"})
    assert response.status == 400, response
    assert {d["field"] for d in response.json["details"]} == {"reporter_id", "reported_by_contact_id"}


def test_a_contact_s_delete_clears_it_on_the_tasks_naming_it(api, db, exec_user, engine):
    """The key ON DELETE SET NULL (migration deals_0002): a deleted contact left its id on the tasks naming it."""
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite's tests run with foreign keys off")
    contact = make_contact(db)
    made = api.post("/api/tasks", as_=exec_user, json={"title": "Reported", "reported_by_contact_id": contact.id})
    assert made.status == 201, made
    assert api.delete(f"/api/deals/contacts/{contact.id}", as_=exec_user).status == 200
    after = api.get(f"/api/tasks/{made.json['task']['id']}", as_=exec_user).json["task"]
    assert after["reported_by_contact_id"] is None
