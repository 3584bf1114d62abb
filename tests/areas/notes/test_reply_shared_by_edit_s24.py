"""Session 24 (audit: every path that produces an event fires its effects). A staff reply to a client's portal note
made client-visible by an edit (PUT whose visibility newly names `client`) is listed to the client; its portal author
is now told (`portal_note_reply`), as when the reply is created client-visible. Once per share: a re-save of a reply
already shared tells nobody again."""
from sqlalchemy import select

from chalicelib.areas.portal.models import PortalNotification
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 (the portal fixture)
from tests.areas.projects.factories import make_project


def _seen(portal, company, user):  # noqa: F811
    assert portal.get("/notifications/unread-count", company, user=user).status == 200


def _notices(db, company, user):
    db.expire_all()
    return db.scalars(select(PortalNotification).where(PortalNotification.company_id == company.id,
                                                       PortalNotification.portal_user_id == user)
                      .order_by(PortalNotification.created_at)).all()


def _asked(portal, db, content="When is launch?"):  # noqa: F811
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    _seen(portal, mine, "pu-1")
    asked = portal.post("/notes", mine, role="collaborator", user="pu-1",
                        json={"resourceType": "project", "resourceId": project.id, "content": content})
    assert asked.status == 201, asked
    return mine, project, asked.json["id"]


def test_reply_shared_by_edit_tells_the_portal_author_once(portal, db, api, exec_user):  # noqa: F811
    mine, project, asked = _asked(portal, db)
    draft = api.post(f"/api/notes/project/{project.id}", as_=exec_user,
                     json={"content": "Next week", "parent_id": asked, "visibility": ["executive"]})
    assert draft.status == 201, draft
    assert _notices(db, mine, "pu-1") == []
    shared = api.put(f"/api/notes/{draft.json['id']}", as_=exec_user,
                     json={"content": "Next Tuesday", "visibility": ["client", "executive"]})
    assert shared.status == 200, shared
    assert any(n["content"] == "Next Tuesday" for n in portal.get("/notes", mine).json["notes"])
    (notice,) = _notices(db, mine, "pu-1")
    assert (notice.type, notice.body, notice.resource_id) == ("portal_note_reply", "Next Tuesday", draft.json["id"])
    # re-saved while shared (visibility named again, or left out): nobody is told again
    again = api.put(f"/api/notes/{draft.json['id']}", as_=exec_user,
                    json={"content": "Next Tuesday, 10am", "visibility": ["executive", "client"]})
    assert again.status == 200, again
    assert api.put(f"/api/notes/{draft.json['id']}", as_=exec_user,
                   json={"content": "Next Tuesday, 11am"}).status == 200
    assert len(_notices(db, mine, "pu-1")) == 1


def test_reply_created_shared_then_edited_is_told_once(portal, db, api, exec_user):  # noqa: F811
    mine, project, asked = _asked(portal, db)
    reply = api.post(f"/api/notes/project/{project.id}", as_=exec_user,
                     json={"content": "Next Tuesday", "parent_id": asked, "visibility": ["client", "executive"]})
    assert reply.status == 201, reply
    assert len(_notices(db, mine, "pu-1")) == 1
    assert api.put(f"/api/notes/{reply.json['id']}", as_=exec_user,
                   json={"content": "Next Wednesday", "visibility": ["client", "executive"]}).status == 200
    assert len(_notices(db, mine, "pu-1")) == 1


def test_staff_note_shared_by_edit_is_no_reply(portal, db, api, exec_user):  # noqa: F811
    mine, project, _ = _asked(portal, db)
    note = api.post(f"/api/notes/project/{project.id}", as_=exec_user,
                    json={"content": "Launch plan", "visibility": ["executive"]})
    assert note.status == 201, note
    assert api.put(f"/api/notes/{note.json['id']}", as_=exec_user,
                   json={"content": "Launch plan", "visibility": ["client", "executive"]}).status == 200
    assert _notices(db, mine, "pu-1") == []
