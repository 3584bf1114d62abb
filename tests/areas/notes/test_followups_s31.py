"""Session 31, round 2 (decided follow-ups of the invariants audit): the client portal shows a reply only with its
parent. A reply shared with the client under a note the client cannot see (never shared, or its share taken back)
was listed on its own, so narrowing a note's visibility left its replies in the portal."""
from tests.areas.notes.factories import SHARED, staff_note as _note
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 (the portal fixture)
from tests.areas.projects.factories import make_project


def _listed(portal, company):  # noqa: F811
    answer = portal.get("/notes", company)
    assert answer.status == 200, answer
    return [n["content"] for n in answer.json["notes"]]


def _visibility(api, user, note_id, content, visibility):
    changed = api.put(f"/api/notes/{note_id}", as_=user, json={"content": content, "visibility": visibility})
    assert changed.status == 200, changed


def test_narrowing_a_note_hides_its_shared_replies(portal, db, api, exec_user):  # noqa: F811
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    parent = _note(api, exec_user, project, "Launch plan")
    reply = _note(api, exec_user, project, "Launch moves to Tuesday", parent=parent)
    _note(api, exec_user, project, "Confirmed with the venue", parent=reply)
    assert sorted(_listed(portal, mine)) == ["Confirmed with the venue", "Launch moves to Tuesday", "Launch plan"]

    _visibility(api, exec_user, parent, "Launch plan", ["executive"])
    assert _listed(portal, mine) == []  # the thread goes with its parent, at any depth

    _visibility(api, exec_user, parent, "Launch plan", SHARED)  # shared again: the thread is back
    assert sorted(_listed(portal, mine)) == ["Confirmed with the venue", "Launch moves to Tuesday", "Launch plan"]


def test_a_shared_reply_under_an_internal_note_is_not_listed(portal, db, api, exec_user):  # noqa: F811
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    internal = _note(api, exec_user, project, "Internal: the client is behind on payment", visibility=["executive"])
    _note(api, exec_user, project, "Chasing them this week", parent=internal)
    assert _listed(portal, mine) == []


def test_a_hidden_reply_hides_what_answers_it_but_not_its_siblings(portal, db, api, exec_user):  # noqa: F811
    """Guard: the client's own note and the staff replies shared under it are listed; a reply kept for staff hides
    only its own sub-thread."""
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    asked = portal.post("/notes", mine, role="collaborator", user="pu-1",
                        json={"resourceType": "project", "resourceId": project.id, "content": "When is launch?"})
    assert asked.status == 201, asked
    answered = _note(api, exec_user, project, "Tuesday", parent=asked.json["id"])
    internal = _note(api, exec_user, project, "Check with legal first", visibility=["executive"],
                     parent=asked.json["id"])
    _note(api, exec_user, project, "Legal says fine", parent=internal)
    thanks = portal.post("/notes", mine, role="collaborator", user="pu-1",
                         json={"resourceType": "project", "resourceId": project.id, "content": "Thanks",
                               "parentId": answered})
    assert thanks.status == 201, thanks
    assert sorted(_listed(portal, mine)) == ["Thanks", "Tuesday", "When is launch?"]
