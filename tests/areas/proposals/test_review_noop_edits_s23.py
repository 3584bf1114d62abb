"""Session 23 (review): a page edit or version restore that stores no new content leaves the approvals given in a
proposal's review as they are. What counts is what would be stored: `content: null` is stored as "" (so on an empty
page it changes nothing), and rich content is the editor's JSON document (the same document differently spaced, with
its keys in another order, or sent as the JSON value rather than as text, is no change). A restore of a version equal
to the page changes nothing either. A real change still clears them (test_review_changes_s23.py)."""
from sqlalchemy import func, select

from chalicelib.areas.pages.models import PageVersion
from chalicelib.core.models import HistoryEntry
from tests.areas.proposals.factories import create, price
from tests.factories import make_user

RICH = '{"type": "doc", "content": [{"type": "paragraph", "attrs": {"align": "left", "indent": 0}}]}'


def _page(api, user, pid):
    return api.get(f"/api/proposals/{pid}", as_=user).json["proposal"]["page_id"]


def _approved_by(api, user, pid):
    approvals = api.get(f"/api/proposals/{pid}", as_=user).json["proposal"]["approvals"]
    return sorted(a["user_id"] for a in approvals if a["approved_at"])


def _resets(db, pid):
    return db.scalar(select(func.count()).select_from(HistoryEntry).where(
        HistoryEntry.entity_type == "proposal", HistoryEntry.entity_id == pid, HistoryEntry.action == "approvals_reset"))


def _review(api, db, exec_user, page_body=None):
    """An exec's priced proposal listing two managers (its page given `page_body` while a draft), in review,
    approved by the first: (pid, page_id, first)."""
    first = make_user(db, access_level="manager")
    second = make_user(db, access_level="manager")
    pid = create(api, exec_user, approver_ids=[first.id, second.id])
    page_id = _page(api, exec_user, pid)
    if page_body:
        assert api.patch(f"/api/pages/{page_id}", as_=exec_user, json=page_body).status == 200
    price(api, exec_user, pid)
    assert api.post(f"/api/proposals/{pid}/submit", as_=exec_user).status == 200
    assert api.post(f"/api/proposals/{pid}/approve", as_=first, json={"comments": "fine"}).status == 200
    assert _approved_by(api, exec_user, pid) == [first.id]
    return pid, page_id, first


def test_content_null_on_an_empty_page_keeps_the_approvals(api, db, exec_user):
    pid, page_id, first = _review(api, db, exec_user)
    before = api.get(f"/api/pages/{page_id}", as_=exec_user).json["page"]
    assert before["content"] == ""
    answer = api.patch(f"/api/pages/{page_id}", as_=exec_user, json={"content": None})
    assert answer.status == 200, answer
    after = api.get(f"/api/pages/{page_id}", as_=exec_user).json["page"]
    assert (after["content"], after["content_rich"]) == (before["content"], before["content_rich"])
    assert _approved_by(api, exec_user, pid) == [first.id], "a PATCH storing no new content cleared the approvals"
    assert _resets(db, pid) == 0
    # the same text sent again is no change either; another text is
    assert api.patch(f"/api/pages/{page_id}", as_=exec_user, json={"content": ""}).status == 200
    assert _approved_by(api, exec_user, pid) == [first.id]
    assert api.patch(f"/api/pages/{page_id}", as_=exec_user, json={"content": "Now for half"}).status == 200
    assert _approved_by(api, exec_user, pid) == []


def test_the_same_rich_document_differently_written_keeps_the_approvals(api, db, exec_user):
    pid, page_id, first = _review(api, db, exec_user, {"content_rich": RICH})
    same = ({"content_rich": {"type": "doc", "content": [{"type": "paragraph",
                                                          "attrs": {"indent": 0, "align": "left"}}]}},  # the value
            {"content_rich": '{"content":[{"attrs":{"indent":0,"align":"left"},"type":"paragraph"}],"type":"doc"}'},
            {"content_rich": RICH})
    for body in same:
        answer = api.patch(f"/api/pages/{page_id}", as_=exec_user, json=body)
        assert answer.status == 200, (body, answer)
        assert _approved_by(api, exec_user, pid) == [first.id], f"the same document ({body}) cleared the approvals"
    assert _resets(db, pid) == 0
    # another document is a change (an attribute's value)
    other = {"content_rich": RICH.replace('"left"', '"right"')}
    assert api.patch(f"/api/pages/{page_id}", as_=exec_user, json=other).status == 200
    assert _approved_by(api, exec_user, pid) == []
    assert _resets(db, pid) == 1


def test_restoring_a_version_equal_to_the_page_keeps_the_approvals(api, db, exec_user):
    first = make_user(db, access_level="manager")
    second = make_user(db, access_level="manager")
    pid = create(api, exec_user, approver_ids=[first.id, second.id])
    page_id = _page(api, exec_user, pid)
    assert api.patch(f"/api/pages/{page_id}", as_=exec_user,
                     json={"content": "Old terms", "content_rich": RICH}).status == 200
    old = api.post(f"/api/pages/{page_id}/versions", as_=exec_user, json={})
    assert old.status == 201, old
    old_id = old.json["version"]["id"]
    assert api.patch(f"/api/pages/{page_id}", as_=exec_user, json={"content": "Terms"}).status == 200
    same = api.post(f"/api/pages/{page_id}/versions", as_=exec_user, json={})  # the page as it is now
    assert same.status == 201, same
    same_id = same.json["version"]["id"]
    price(api, exec_user, pid)
    assert api.post(f"/api/proposals/{pid}/submit", as_=exec_user).status == 200
    assert api.post(f"/api/proposals/{pid}/approve", as_=first, json={}).status == 200
    versions = db.scalar(select(func.count()).select_from(PageVersion).where(PageVersion.page_id == page_id))

    answer = api.post(f"/api/pages/{page_id}/versions/{same_id}/restore", as_=exec_user, json={})
    assert answer.status == 200, answer
    assert _approved_by(api, exec_user, pid) == [first.id], "restoring the page's own state cleared the approvals"
    assert _resets(db, pid) == 0
    # the page equals its newest version: no snapshot is written for it (session 22)
    assert db.scalar(select(func.count()).select_from(PageVersion).where(PageVersion.page_id == page_id)) == versions
    assert api.get(f"/api/pages/{page_id}", as_=exec_user).json["page"]["content"] == "Terms"

    # a version of other content is a change
    assert api.post(f"/api/pages/{page_id}/versions/{old_id}/restore", as_=exec_user, json={}).status == 200
    assert api.get(f"/api/pages/{page_id}", as_=exec_user).json["page"]["content"] == "Old terms"
    assert _approved_by(api, exec_user, pid) == []
    assert _resets(db, pid) == 1


def test_an_edit_committed_before_the_restore_locks_the_page_still_counts(api, db, exec_user, monkeypatch):
    """The fields are compared again under the page's lock: a version equal to the page when read, but not to the
    page an edit committed just before the lock, is a change (the approvals are cleared)."""
    from sqlalchemy import text

    from chalicelib.areas.pages import service_versions

    pid, page_id, _ = _review(api, db, exec_user, {"content": "Terms"})
    version = api.post(f"/api/pages/{page_id}/versions", as_=exec_user, json={}).json["version"]["id"]  # = page
    real_lock_row = service_versions.lock_row

    def lock_row_after_an_edit(session, model, row_id, **options):
        session.execute(text("UPDATE pages SET content = 'Edited meanwhile' WHERE id = :i"), {"i": row_id})
        return real_lock_row(session, model, row_id, **options)

    monkeypatch.setattr(service_versions, "lock_row", lock_row_after_an_edit)
    answer = api.post(f"/api/pages/{page_id}/versions/{version}/restore", as_=exec_user, json={})
    assert answer.status == 200, answer
    assert api.get(f"/api/pages/{page_id}", as_=exec_user).json["page"]["content"] == "Terms"
    assert _approved_by(api, exec_user, pid) == [], "a restore that changed the content kept the approvals"
    assert _resets(db, pid) == 1
