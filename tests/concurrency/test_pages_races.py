"""Pages races against a real HTTP server on Postgres (the server and helpers of test_concurrency.py): crossed moves
(A under B and B under A at once) never leave a cycle; a resolve toggle or a version restore that waited for
another transaction holding the row works from what that transaction committed."""
from __future__ import annotations


from sqlalchemy import select, update

from tests.concurrency.test_concurrency import THREADS, _all_at_once, _call, _token, executive, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_crossed_moves_at_once_leave_no_cycle(live):
    from chalicelib.areas.pages.models import Page
    from tests.areas.pages.factories import make_page

    base, sessions = live
    token = _token(executive(sessions))
    with sessions() as db:
        pages = [make_page(db) for _ in range(THREADS)]
        db.commit()
    pairs = [(pages[i], pages[i + 1]) for i in range(0, THREADS, 2)]
    calls = []
    for a, b in pairs:  # each pair at once: a under b, b under a
        calls.append(lambda a=a, b=b: _call(base, "PATCH", f"/api/pages/{a.id}", token, {"parent_id": b.id}))
        calls.append(lambda a=a, b=b: _call(base, "PATCH", f"/api/pages/{b.id}", token, {"parent_id": a.id}))
    results = _all_at_once(calls)
    assert {status for status, _ in results} <= {200, 400}, results
    with sessions() as db:
        parent = dict(db.execute(select(Page.id, Page.parent_id).where(Page.id.in_([p.id for p in pages]))).all())
    cycles = [(a.id, b.id) for a, b in pairs if parent[a.id] == b.id and parent[b.id] == a.id]
    assert cycles == []
    assert sorted(status for status, _ in results) == [200] * len(pairs) + [400] * len(pairs)


def test_a_resolve_toggle_that_waited_for_another_flips_its_result(live):
    from chalicelib.areas.pages.models import PageDiscussion
    from tests.areas.pages.factories import make_discussion, make_page

    base, sessions = live
    user = executive(sessions)
    with sessions() as db:
        page = make_page(db)
        discussion = make_discussion(db, page, user, is_resolved=False)
        db.commit()
    status, body = while_held(  # another toggle resolving it, committed while the request waits
        sessions, update(PageDiscussion).where(PageDiscussion.id == discussion.id).values(is_resolved=True),
        lambda: _call(base, "POST", f"/api/pages/{page.id}/discussions/{discussion.id}/resolve", _token(user)))
    assert (status, body) == (200, {"is_resolved": False})
    with sessions() as db:
        assert db.scalar(select(PageDiscussion.is_resolved).where(PageDiscussion.id == discussion.id)) is False


def test_a_restore_that_waited_for_an_edit_keeps_the_edit_in_a_version(live):
    from chalicelib.areas.pages.models import Page, PageVersion
    from tests.areas.pages.factories import make_page, make_version

    base, sessions = live
    user = executive(sessions)
    with sessions() as db:
        page = make_page(db, title="Draft", content="first words")
        version = make_version(db, page, user, title="Old", content="old words")
        db.commit()
    status, body = while_held(  # an edit of the page, committed while the request waits
        sessions, update(Page).where(Page.id == page.id).values(title="Edited", content="edited words"),
        lambda: _call(base, "POST", f"/api/pages/{page.id}/versions/{version.id}/restore", _token(user)))
    assert status == 200, body
    with sessions() as db:
        kept = db.scalars(select(PageVersion.content).where(PageVersion.page_id == page.id)).all()
        restored = db.scalar(select(Page.content).where(Page.id == page.id))
    assert restored == "old words"
    assert "edited words" in kept  # the state the restore replaced is recoverable
