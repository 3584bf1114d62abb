"""Session 23 (review): a note create reads its record after it holds the record's notes key (the key a record's
delete now takes before it deletes the record's notes): a record deleted while the create waited for the key answers
404 and no note is written (before, the record was read first, and the note inserted after the delete had removed
the record's notes: 201, and a note kept for good that no route reaches). The concurrency of the two is in
tests/concurrency/test_notes_orphan_race_s23.py; here the delete is made at the moment the create takes its key."""
import pytest
from sqlalchemy import func, select, text

from chalicelib.areas.notes import service as notes_service
from chalicelib.areas.notes.models import Note
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task

RECORDS = {"task": (lambda db, user: make_task(db, created_by=user.id).id, "tasks"),
           "project": (lambda db, user: make_project(db).id, "projects")}


@pytest.mark.parametrize("resource_type", sorted(RECORDS))
def test_a_note_on_a_record_deleted_while_it_waited_for_its_key_is_404(api, db, exec_user, monkeypatch,
                                                                        resource_type):
    make, table = RECORDS[resource_type]
    record_id = make(db, exec_user)
    real_lock_key = notes_service.lock_key
    taken = []

    def lock_key_after_the_delete(session, *parts):
        if parts == ("notes", resource_type, record_id) and not taken:
            taken.append(parts)  # the record's delete committed while this create waited for the key
            session.execute(text(f"DELETE FROM {table} WHERE id = :i"), {"i": record_id})
        return real_lock_key(session, *parts)

    monkeypatch.setattr(notes_service, "lock_key", lock_key_after_the_delete)
    answer = api.post(f"/api/notes/{resource_type}/{record_id}", as_=exec_user, json={"content": "too late"})
    assert taken, "the create took no notes key"
    assert answer.status == 404, answer
    db.expire_all()
    left = db.scalar(select(func.count()).select_from(Note).where(Note.resource_type == resource_type,
                                                                  Note.resource_id == record_id))
    assert left == 0, f"a note kept on the deleted {resource_type}"


def test_a_note_on_a_record_still_there_is_made(api, db, exec_user):
    task_id = make_task(db, created_by=exec_user.id).id
    answer = api.post(f"/api/notes/task/{task_id}", as_=exec_user, json={"content": "in time"})
    assert answer.status == 201, answer
    assert api.get(f"/api/notes/task/{task_id}", as_=exec_user).json["notes"][0]["content"] == "in time"


def test_records_deleted_takes_the_notes_key_of_each_record_it_is_given(db, exec_user, database_url):
    """A list of several ids (one statement for all their keys): each is the key a note create takes."""
    if db.get_bind().dialect.name != "postgresql":
        pytest.skip("advisory locks are Postgres'")
    from sqlalchemy import create_engine

    ids = [make_task(db, created_by=exec_user.id).id for _ in range(3)]
    kept = make_task(db, created_by=exec_user.id).id
    db.add_all([Note(resource_type="task", resource_id=task_id, author_id=exec_user.id, content="x",
                     visibility=["executive"], mentions=[]) for task_id in [*ids, kept]])
    db.flush()
    notes_service.records_deleted(db, "task", ids)
    db.flush()
    engine = create_engine(database_url)
    try:
        with engine.connect() as other:
            free = {task_id: other.scalar(text("SELECT pg_try_advisory_xact_lock(hashtextextended(:k, 0))"),
                                          {"k": f"notes:task:{task_id}"}) for task_id in [*ids, kept]}
            other.rollback()
    finally:
        engine.dispose()
    assert free == {**{task_id: False for task_id in ids}, kept: True}, free
    db.expire_all()
    left = dict(db.execute(select(Note.resource_id, func.count()).where(Note.resource_id.in_([*ids, kept]))
                           .group_by(Note.resource_id)).all())
    assert left == {kept: 1}, left
