"""Session 31, round 2 (decided by the lead): a client replies only to a note the portal lists to them. The reply's
parent was checked only to be client-visible and on the same record, so a client could answer (and so learn the id
of, and place a note under) a note the portal does not show them: another company's note on a project moved to
them, or a note shared with the client under a note they cannot see. The parent must now be listable as
`notes.service.portal_notes` lists (client-visible, written for one of the client's companies, its whole thread
listable); one answer, the 400 on parentId, for a hidden parent and a missing one."""
from sqlalchemy import func, select

from chalicelib.areas.notes.models import Note
from tests.areas.notes.factories import staff_note as _note
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 (the portal fixture)
from tests.areas.projects.factories import make_project


def _reply(portal, company, project, parent, user="pu-1"):  # noqa: F811
    return portal.post("/notes", company, role="collaborator", user=user,
                       json={"resourceType": "project", "resourceId": project.id, "content": "Answering this",
                             "parentId": parent})


def _count(db, project):
    return db.scalar(select(func.count()).select_from(Note).where(Note.resource_id == project.id))


def _missing_parent(portal, company, project):  # noqa: F811
    """The answer for a parent id that names no note: what a hidden parent answers too."""
    missing = _reply(portal, company, project, "00000000-0000-0000-0000-000000000000")
    assert missing.status == 400, missing
    return missing.json


def test_a_reply_under_a_hidden_parent_is_refused(portal, db, api, exec_user):  # noqa: F811
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    internal = _note(api, exec_user, project, "Internal: the client is behind on payment", visibility=["executive"])
    shared = _note(api, exec_user, project, "Chasing them this week", parent=internal)
    listed = portal.get("/notes", mine)
    assert listed.status == 200 and listed.json["notes"] == []  # the portal does not list it (round 2's listing)
    before = _count(db, project)
    answer = _reply(portal, mine, project, shared)
    assert answer.status == 400, answer
    assert answer.json == _missing_parent(portal, mine, project)
    assert _count(db, project) == before


def test_a_reply_to_another_companys_note_is_refused(portal, db, api, exec_user):  # noqa: F811
    """A note written by the first client on a project since moved to the second: the second does not list it, nor
    reply to it."""
    first, second = make_client(db), make_client(db)
    project = make_project(db, company_id=first.id)
    theirs = portal.post("/notes", first, role="collaborator", user="pu-first",
                         json={"resourceType": "project", "resourceId": project.id, "content": "Budget cut by 40%"})
    assert theirs.status == 201, theirs
    assert api.put(f"/api/projects/{project.id}", as_=exec_user, json={"company_id": second.id}).status == 200
    assert portal.get("/notes", second, user="pu-second").json["notes"] == []
    before = _count(db, project)
    answer = _reply(portal, second, project, theirs.json["id"], user="pu-second")
    assert answer.status == 400, answer
    assert answer.json == _missing_parent(portal, second, project)
    assert _count(db, project) == before


def test_a_reply_to_a_listed_note_is_written(portal, db, api, exec_user):  # noqa: F811
    """Guard: the client's own note, a staff note shared with them and a shared staff reply under their note (any
    depth of a listed thread) are answered, and the replies are listed; a staff note never shared is still the
    same 400."""
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    asked = portal.post("/notes", mine, role="collaborator", user="pu-1",
                        json={"resourceType": "project", "resourceId": project.id, "content": "When is launch?"})
    assert asked.status == 201, asked
    staff_reply = _note(api, exec_user, project, "Tuesday", parent=asked.json["id"])
    shared = _note(api, exec_user, project, "Kick-off on Monday")
    for parent in (asked.json["id"], staff_reply, shared):
        answer = _reply(portal, mine, project, parent)
        assert answer.status == 201, (parent, answer)
    contents = [n["content"] for n in portal.get("/notes", mine).json["notes"]]
    assert contents.count("Answering this") == 3
    internal = _note(api, exec_user, project, "Internal", visibility=["executive"])
    assert _reply(portal, mine, project, internal).json == _missing_parent(portal, mine, project)
