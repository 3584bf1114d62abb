"""Session 24 (audit of reversals). A staff reply shared with the client tells the note's portal author
(`portal_note_reply`, resource `note` / the reply's id, body = the reply's first 500 characters). When staff take the
share back (PUT whose visibility leaves out `client`) or the reply goes (its own delete, its parent's, its record's),
the portal stops listing it: its notice, with its text, is now withdrawn too, as a deleted QBR's or an internal
announcement's (docs/decisions/portal.md, "Withdrawn notices")."""
from sqlalchemy import select

from chalicelib.areas.portal.models import PortalNotification
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 (the portal fixture)
from tests.areas.projects.factories import make_project


def _notices(db, company, user):
    db.expire_all()
    return db.scalars(select(PortalNotification).where(PortalNotification.company_id == company.id,
                                                       PortalNotification.portal_user_id == user)
                      .order_by(PortalNotification.created_at, PortalNotification.id)).all()


def _asked(portal, db, content="When is launch?"):  # noqa: F811
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    assert portal.get("/notifications/unread-count", mine, user="pu-1").status == 200
    asked = portal.post("/notes", mine, role="collaborator", user="pu-1",
                        json={"resourceType": "project", "resourceId": project.id, "content": content})
    assert asked.status == 201, asked
    return mine, project, asked.json["id"]


def _reply(api, user, project, parent, content, visibility=("client", "executive")):
    made = api.post(f"/api/notes/project/{project.id}", as_=user,
                    json={"content": content, "parent_id": parent, "visibility": list(visibility)})
    assert made.status == 201, made
    return made.json["id"]


def _listed(portal, company):  # noqa: F811
    return {n["id"] for n in portal.get("/notes", company).json["notes"]}


def test_unshared_reply_withdraws_its_notice_and_no_other(portal, db, api, exec_user):  # noqa: F811
    mine, project, asked = _asked(portal, db)
    secret = _reply(api, exec_user, project, asked, "Internal: client X is behind on payment")
    kept = _reply(api, exec_user, project, asked, "Launch is on Tuesday")
    assert [n.resource_id for n in _notices(db, mine, "pu-1")] == [secret, kept]

    unshared = api.put(f"/api/notes/{secret}", as_=exec_user,
                       json={"content": "Internal: client X is behind on payment", "visibility": ["executive"]})

    assert unshared.status == 200, unshared
    assert secret not in _listed(portal, mine)
    left = _notices(db, mine, "pu-1")
    assert [(n.type, n.resource_id, n.body) for n in left] == [("portal_note_reply", kept, "Launch is on Tuesday")]
    assert [n["body"] for n in portal.get("/notifications", mine, user="pu-1").json["notifications"]] == \
        ["Launch is on Tuesday"]


def test_a_resave_keeping_the_share_keeps_the_notice(portal, db, api, exec_user):  # noqa: F811
    mine, project, asked = _asked(portal, db)
    reply = _reply(api, exec_user, project, asked, "Next Tuesday")
    assert api.put(f"/api/notes/{reply}", as_=exec_user, json={"content": "Next Tuesday, 10am"}).status == 200
    assert api.put(f"/api/notes/{reply}", as_=exec_user,
                   json={"content": "Next Tuesday, 11am", "visibility": ["executive", "client"]}).status == 200
    assert [n.resource_id for n in _notices(db, mine, "pu-1")] == [reply]


def test_unshared_then_shared_again_leaves_one_notice(portal, db, api, exec_user):  # noqa: F811
    mine, project, asked = _asked(portal, db)
    reply = _reply(api, exec_user, project, asked, "Draft answer")
    assert api.put(f"/api/notes/{reply}", as_=exec_user,
                   json={"content": "Draft answer", "visibility": ["executive"]}).status == 200
    assert _notices(db, mine, "pu-1") == []
    assert api.put(f"/api/notes/{reply}", as_=exec_user,
                   json={"content": "Final answer", "visibility": ["client", "executive"]}).status == 200
    assert [(n.resource_id, n.body) for n in _notices(db, mine, "pu-1")] == [(reply, "Final answer")]


def test_deleted_reply_withdraws_its_notice(portal, db, api, exec_user):  # noqa: F811
    mine, project, asked = _asked(portal, db)
    gone = _reply(api, exec_user, project, asked, "Posted by mistake")
    kept = _reply(api, exec_user, project, asked, "The real answer")

    assert api.delete(f"/api/notes/{gone}", as_=exec_user).status == 200

    assert [n.resource_id for n in _notices(db, mine, "pu-1")] == [kept]


def test_deleted_thread_withdraws_its_replies_notices(portal, db, api, exec_user):  # noqa: F811
    mine, project, asked = _asked(portal, db)
    other = portal.post("/notes", mine, role="collaborator", user="pu-1",
                        json={"resourceType": "project", "resourceId": project.id, "content": "And the budget?"})
    assert other.status == 201, other
    _reply(api, exec_user, project, asked, "Tuesday")
    _reply(api, exec_user, project, asked, "Or Wednesday")
    kept = _reply(api, exec_user, project, other.json["id"], "Approved")
    assert len(_notices(db, mine, "pu-1")) == 3

    assert api.delete(f"/api/notes/{asked}", as_=exec_user).status == 200  # the client's note, replies with it

    assert [n.resource_id for n in _notices(db, mine, "pu-1")] == [kept]


def test_deleted_record_withdraws_its_replies_notices(portal, db, api, exec_user):  # noqa: F811
    mine, project, asked = _asked(portal, db)
    _reply(api, exec_user, project, asked, "Tuesday")
    elsewhere = make_project(db, company_id=mine.id)
    there = portal.post("/notes", mine, role="collaborator", user="pu-1",
                        json={"resourceType": "project", "resourceId": elsewhere.id, "content": "And this one?"})
    assert there.status == 201, there
    kept = _reply(api, exec_user, elsewhere, there.json["id"], "Next month")

    assert api.delete(f"/api/projects/{project.id}", as_=exec_user).status == 200  # notes' records_deleted

    assert [n.resource_id for n in _notices(db, mine, "pu-1")] == [kept]
