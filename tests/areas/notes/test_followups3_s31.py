"""Session 31, round 2 (decided follow-ups of the invariants audit): the portal lists a reply only with its parent,
so a note narrowed out of the client's sight (PUT whose visibility leaves out `client`, having named it) hides its
whole thread. The `portal_note_reply` notices of the replies hidden with it (resource `note`, the reply's id; they
carry the reply's first 500 characters) are now withdrawn too, as session 24 withdraws the notice of a reply whose own
share is taken back: one DELETE over the thread's ids, whatever its size. Sharing the note again shows the thread
again but tells nobody again."""
from sqlalchemy import select

from chalicelib.areas.portal.models import PortalNotification
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 (the portal fixture)
from tests.areas.projects.factories import make_project

SHARED = ["client", "executive"]


def _notices(db, company):
    db.expire_all()
    return [(n.portal_user_id, n.resource_id) for n in db.scalars(
        select(PortalNotification).where(PortalNotification.company_id == company.id,
                                         PortalNotification.type == "portal_note_reply")
        .order_by(PortalNotification.created_at, PortalNotification.id))]


def _asked(portal, company, project, content, user="pu-1", parent=None):  # noqa: F811
    assert portal.get("/notifications/unread-count", company, user=user).status == 200  # the portal user exists
    body = {"resourceType": "project", "resourceId": project.id, "content": content}
    if parent:
        body["parentId"] = parent
    asked = portal.post("/notes", company, role="collaborator", user=user, json=body)
    assert asked.status == 201, asked
    return asked.json["id"]


def _reply(api, user, project, parent, content, visibility=SHARED):
    made = api.post(f"/api/notes/project/{project.id}", as_=user,
                    json={"content": content, "parent_id": parent, "visibility": list(visibility)})
    assert made.status == 201, made
    return made.json["id"]


def _visibility(api, user, note_id, content, visibility):
    changed = api.put(f"/api/notes/{note_id}", as_=user, json={"content": content, "visibility": visibility})
    assert changed.status == 200, changed


def _listed(portal, company):  # noqa: F811
    answer = portal.get("/notes", company)
    assert answer.status == 200, answer
    return sorted(n["content"] for n in answer.json["notes"])


def test_a_narrowed_staff_reply_withdraws_the_notices_of_the_replies_below_it(portal, db, api, exec_user):  # noqa: F811
    """A client's note, a staff reply shared under it, a second client's answer to that reply and a staff answer
    to theirs: two notices. Taking the first reply's share back hides all three replies: both notices go, not only
    the narrowed reply's own."""
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    asked = _asked(portal, mine, project, "When is launch?")
    answered = _reply(api, exec_user, project, asked, "Tuesday")
    followed = _asked(portal, mine, project, "Which Tuesday?", user="pu-2", parent=answered)
    deep = _reply(api, exec_user, project, followed, "Internal detail: the 14th, pending legal")
    assert _notices(db, mine) == [("pu-1", answered), ("pu-2", deep)]

    _visibility(api, exec_user, answered, "Tuesday", ["executive"])

    assert _listed(portal, mine) == ["When is launch?"]
    assert _notices(db, mine) == []
    assert portal.get("/notifications", mine, user="pu-2").json["notifications"] == []


def test_a_narrowed_client_note_withdraws_its_replies_notices_and_no_other(portal, db, api, exec_user):  # noqa: F811
    """An executive takes a client's own note out of the portal: the staff replies under it are hidden with it, and
    their notices go; another thread's notice stays."""
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    asked = _asked(portal, mine, project, "Can we see the budget breakdown?")
    _reply(api, exec_user, project, asked, "Margin is 62%, do not forward")
    other = _asked(portal, mine, project, "And the timeline?")
    kept = _reply(api, exec_user, project, other, "Next week")
    assert len(_notices(db, mine)) == 2

    _visibility(api, exec_user, asked, "Can we see the budget breakdown?", ["executive", "head"])

    assert _listed(portal, mine) == ["And the timeline?", "Next week"]
    assert _notices(db, mine) == [("pu-1", kept)]


def test_sharing_the_note_again_shows_the_thread_but_tells_nobody_again(portal, db, api, exec_user):  # noqa: F811
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    asked = _asked(portal, mine, project, "When is launch?")
    answered = _reply(api, exec_user, project, asked, "Tuesday")
    followed = _asked(portal, mine, project, "Which Tuesday?", user="pu-2", parent=answered)
    _reply(api, exec_user, project, followed, "The 14th")
    _visibility(api, exec_user, asked, "When is launch?", ["executive"])
    assert _notices(db, mine) == []

    _visibility(api, exec_user, asked, "When is launch?", SHARED)

    assert _listed(portal, mine) == ["The 14th", "Tuesday", "When is launch?", "Which Tuesday?"]
    assert _notices(db, mine) == []


def test_a_narrowing_that_keeps_the_client_keeps_the_notices(portal, db, api, exec_user):  # noqa: F811
    """Guard: dropping a staff level, or a re-save leaving the visibility out, hides nothing from the client."""
    mine = make_client(db)
    project = make_project(db, company_id=mine.id)
    asked = _asked(portal, mine, project, "When is launch?")
    answered = _reply(api, exec_user, project, asked, "Tuesday", visibility=["employee", "executive", "client"])
    followed = _asked(portal, mine, project, "Which Tuesday?", user="pu-2", parent=answered)
    deep = _reply(api, exec_user, project, followed, "The 14th")

    _visibility(api, exec_user, answered, "Tuesday", SHARED)
    assert api.put(f"/api/notes/{asked}", as_=exec_user, json={"content": "When is launch, roughly?"}).status == 200

    assert _notices(db, mine) == [("pu-1", answered), ("pu-2", deep)]


def test_narrowing_costs_the_same_statements_at_1_and_12_replies(portal, db, api, exec_user, count_queries):  # noqa: F811
    """One DELETE over the thread (a recursive SELECT of its ids), whatever the number of replies and depth."""
    counts = []
    for replies in (1, 12):
        mine = make_client(db)
        project = make_project(db, company_id=mine.id)
        asked = _asked(portal, mine, project, "When is launch?")
        parent = asked
        for n in range(replies):  # a staff reply, then a client's answer to it, and so on down
            parent = _reply(api, exec_user, project, parent, f"Answer {n}")
            parent = _asked(portal, mine, project, f"Question {n}", parent=parent)
        assert len(_notices(db, mine)) == replies
        with count_queries() as counter:
            _visibility(api, exec_user, asked, "When is launch?", ["executive"])
        counts.append(counter.count)
        assert _notices(db, mine) == []
    assert counts[0] == counts[1]
