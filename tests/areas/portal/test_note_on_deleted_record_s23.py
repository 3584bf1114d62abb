"""Session 23 (review): the portal checks a note's record holding the record's notes key, which the record's delete
takes before it deletes the record's notes. A project deleted while the portal's create waited for the key is found
gone (400, not a record of the company) and no note is written; checked first, its note was inserted after the
delete had removed the record's notes, and kept for good."""
from sqlalchemy import func, select, text

from chalicelib.areas.notes import service as notes_service
from chalicelib.areas.notes.models import Note
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project


def test_a_portal_note_on_a_project_deleted_while_it_waited_for_its_key_is_refused(portal, db, monkeypatch):
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    real_lock_key = notes_service.lock_key
    taken = []

    def lock_key_after_the_delete(session, *parts):
        if parts == ("notes", "project", project.id) and not taken:
            taken.append(parts)  # the project's delete committed while this create waited for the key
            session.execute(text("DELETE FROM projects WHERE id = :i"), {"i": project.id})
        return real_lock_key(session, *parts)

    monkeypatch.setattr(notes_service, "lock_key", lock_key_after_the_delete)
    answer = portal.post("/notes", mine, role="collaborator", user="pu-1",
                         json={"resourceType": "project", "resourceId": project.id, "content": "too late"})
    assert taken, "the portal's create took no notes key"
    assert answer.status == 400, answer
    db.expire_all()
    assert db.scalar(select(func.count()).select_from(Note).where(Note.resource_id == project.id)) == 0
