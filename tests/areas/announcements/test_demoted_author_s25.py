"""Session 25 (users2 audit): the author rule of document 3 ("only the original author or an executive may edit")
restricts the permission to write announcements, it grants nothing. A head who wrote an announcement and was then
demoted to manager (who may not create one: 403) may no longer edit it (a new text, the category `company` that
tells every client) nor distribute it; a current head author still edits, an executive edits anyone's."""
from sqlalchemy import func, select

from chalicelib.areas.announcements.models import Announcement, AnnouncementDistribution
from chalicelib.core.models import User
from chalicelib.core.notify_outbox import messages
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.factories import make_user


def _notices(portal, company):  # noqa: F811
    answer = portal.get("/notifications", company)
    assert answer.status == 200, answer
    return answer.json["notifications"]


def _written_by_a_head(api, db):
    head = make_user(db, access_level="head")
    made = api.post("/api/announcements", as_=head, json={"title": "Team lunch", "content": "Friday",
                                                          "category": "team"})
    assert made.status == 201, made
    return head, made.json["announcement"]["id"]


def _demoted(api, db):
    head, ann_id = _written_by_a_head(api, db)
    db.get(User, head.id).access_level = "manager"  # demoted by an executive
    db.flush()
    create = api.post("/api/announcements", as_=head, json={"title": "x", "content": "y", "category": "company"})
    assert create.status == 403
    return head, ann_id, create.json["error"]


def _unchanged(db, ann_id):
    db.expire_all()
    ann = db.get(Announcement, ann_id)
    assert (ann.title, ann.content, ann.category) == ("Team lunch", "Friday", "team")
    assert db.scalar(select(func.count()).select_from(AnnouncementDistribution)) == 0
    assert messages(db, provider="chat") == [] and messages(db, provider="mail") == []


def test_a_demoted_author_may_not_edit(portal, api, db):  # noqa: F811
    client = make_client(db)
    assert portal.get("/notifications/unread-count", client).status == 200
    head, ann_id, refused = _demoted(api, db)
    edited = api.put(f"/api/announcements/{ann_id}", as_=head,
                     json={"title": "We are closing", "content": "anything at all", "category": "company"})
    assert edited.status == 403, (edited.status, edited.json)
    assert edited.json["error"] == refused, edited.json  # refused as on create
    _unchanged(db, ann_id)
    assert _notices(portal, client) == []  # no client was told
    assert portal.get("/announcements", client).json["announcements"] == []


def test_a_demoted_author_may_not_distribute(api, db):
    head, ann_id, refused = _demoted(api, db)
    sent = api.post(f"/api/announcements/{ann_id}/distribute", as_=head, json={"chat": True, "email": True})
    assert sent.status == 403, (sent.status, sent.json)
    assert sent.json["error"] == refused, sent.json
    _unchanged(db, ann_id)


def test_a_demoted_employee_author_is_refused_too(api, db):
    head, ann_id = _written_by_a_head(api, db)
    db.get(User, head.id).access_level = "employee"
    db.flush()
    assert api.put(f"/api/announcements/{ann_id}", as_=head, json={"title": "x"}).status == 403
    assert api.post(f"/api/announcements/{ann_id}/distribute", as_=head, json={"chat": True}).status == 403


def test_a_head_author_still_edits_and_distributes(api, db):
    head, ann_id = _written_by_a_head(api, db)
    edited = api.put(f"/api/announcements/{ann_id}", as_=head, json={"title": "Team lunch moved"})
    assert edited.status == 200 and edited.json["announcement"]["title"] == "Team lunch moved", edited
    sent = api.post(f"/api/announcements/{ann_id}/distribute", as_=head, json={"chat": True})
    assert sent.status == 200 and sent.json["results"]["chat"]["status"] == "sent", sent


def test_an_executive_edits_and_distributes_anyones(api, db, exec_user):
    head, ann_id = _written_by_a_head(api, db)
    db.get(User, head.id).access_level = "manager"  # the author's demotion does not matter to an executive
    db.flush()
    edited = api.put(f"/api/announcements/{ann_id}", as_=exec_user, json={"category": "process"})
    assert edited.status == 200 and edited.json["announcement"]["category"] == "process", edited
    sent = api.post(f"/api/announcements/{ann_id}/distribute", as_=exec_user, json={"email": True})
    assert sent.status == 200 and sent.json["results"]["email"]["status"] == "sent", sent
