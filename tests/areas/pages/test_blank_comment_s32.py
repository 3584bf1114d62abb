"""Session 32 (audit "a rule enforced on one write path and not on another"): a discussion's first comment is made
only from a non-blank `comment` (or rich content), yet a reply, and an edit, of white space alone was stored: a blank
comment in the discussion, its participants told "X commented on Y" of nothing."""
import json

from sqlalchemy import func, select

from chalicelib.core.notify import Notification
from tests.factories import make_user

RICH = json.dumps({"type": "doc", "content": [{"type": "image", "attrs": {"src": "https://example.test/a.png"}}]})


def _discussion(api, user):
    page = api.post("/api/pages", as_=user, json={"title": "Pg"}).json["page"]["id"]
    made = api.post(f"/api/pages/{page}/discussions", as_=user, json={"comment": "first"})
    assert made.status == 201, made
    return page, made.json["discussion"]["id"]


def _comments(api, user, page):
    return api.get(f"/api/pages/{page}/discussions", as_=user).json["discussions"][0]["comments"]


def test_a_blank_reply_is_refused_and_tells_nobody(api, db, exec_user):
    other = make_user(db, access_level="executive", name="Otto Other")
    page, discussion = _discussion(api, exec_user)
    path = f"/api/pages/{page}/discussions/{discussion}/comments"
    for blank in ("   ", "\n\t "):
        answer = api.post(path, as_=other, json={"content": blank})
        assert answer.status == 400, answer
        assert answer.json["details"][0]["field"] == "content"
    assert [c["content"] for c in _comments(api, exec_user, page)] == ["first"]
    assert db.scalar(select(func.count()).select_from(Notification).where(
        Notification.user_id == exec_user.id, Notification.type == "page_comment")) == 0


def test_a_blank_reply_with_rich_content_is_a_comment_as_on_create(api, db, exec_user):
    other = make_user(db, access_level="executive", name="Otto Other")
    page, discussion = _discussion(api, exec_user)
    answer = api.post(f"/api/pages/{page}/discussions/{discussion}/comments", as_=other,
                      json={"content": " ", "content_rich": RICH})
    assert answer.status == 201, answer
    assert len(_comments(api, exec_user, page)) == 2


def test_an_edit_to_blank_text_is_refused(api, exec_user):
    page, discussion = _discussion(api, exec_user)
    comment = _comments(api, exec_user, page)[0]
    path = f"/api/pages/{page}/discussions/{discussion}/comments/{comment['id']}"
    answer = api.patch(path, as_=exec_user, json={"content": "  "})
    assert answer.status == 400, answer
    assert answer.json["details"][0]["field"] == "content"
    assert _comments(api, exec_user, page)[0]["content"] == "first"
    # blank text over rich content is kept, as a reply's
    assert api.patch(path, as_=exec_user, json={"content": " ", "content_rich": RICH}).status == 200
