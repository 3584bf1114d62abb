"""Writes that waited for another request's change of the same row (session 22's second races audit), against a real
HTTP server on Postgres: each acts on the row as the other left it.

- A meeting's match or unmatch locks the meeting and reads it again: one that waited for another stored its entity id
  beside the other's entity type (the ORM writes only the columns that differ from what it read).
- A page's delete locks its children after the root siblings' key: a child moved to another parent meanwhile is
  left there, not pulled back to the root.
- A read receipt share-locks its announcement: one that waited for the delete answers 404, as one after it (it was a
  400 naming a field the request does not have).
"""
from __future__ import annotations

from sqlalchemy import select, update

from tests.concurrency.test_concurrency import _call, _make, _token, executive, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_meeting_match_that_waited_for_another_keeps_a_whole_pair(live):
    from chalicelib.areas.meetings.models import Meeting
    from tests.areas.deals.factories import make_company, make_deal
    from tests.areas.meetings.factories import make_meeting

    base, sessions = live
    user = executive(sessions)
    with sessions() as db:
        c1 = make_company(db, name="First Co")
        c2 = make_company(db, name="Second Co")
        deal = make_deal(db, company_id=c1.id)
        meeting = make_meeting(db, entity_type="company", entity_id=c1.id)
        db.commit()
    # another match request (to the deal), holding the row until it commits; this one matches to company 2
    status, body = while_held(
        sessions, update(Meeting).where(Meeting.id == meeting.id).values(entity_type="deal", entity_id=deal.id),
        lambda: _call(base, "POST", f"/api/meetings/{meeting.id}/match", _token(user),
                      {"entity_type": "company", "entity_id": c2.id}))
    assert status == 200, body
    with sessions() as db:
        pair = db.execute(select(Meeting.entity_type, Meeting.entity_id).where(Meeting.id == meeting.id)).one()
    assert tuple(pair) in {("company", c2.id), ("deal", deal.id)}, (tuple(pair), c2.id, deal.id)


def test_meeting_match_that_waited_for_an_unmatch_keeps_a_whole_pair(live):
    from chalicelib.areas.meetings.models import Meeting
    from tests.areas.deals.factories import make_company
    from tests.areas.meetings.factories import make_meeting

    base, sessions = live
    user = executive(sessions)
    with sessions() as db:
        c1 = make_company(db, name="First Co")
        c2 = make_company(db, name="Second Co")
        meeting = make_meeting(db, entity_type="company", entity_id=c1.id)
        db.commit()
    status, body = while_held(
        sessions, update(Meeting).where(Meeting.id == meeting.id).values(entity_type=None, entity_id=None),
        lambda: _call(base, "POST", f"/api/meetings/{meeting.id}/match", _token(user),
                      {"entity_type": "company", "entity_id": c2.id}))
    assert status == 200, body
    with sessions() as db:
        pair = db.execute(select(Meeting.entity_type, Meeting.entity_id).where(Meeting.id == meeting.id)).one()
    assert tuple(pair) in {("company", c2.id), (None, None)}, tuple(pair)


def test_a_page_delete_that_waited_for_a_childs_move_leaves_the_child_where_it_moved(live):
    """delete_page reads P's children, then reparents them to the root by id: a child moved elsewhere meanwhile
    (committed while the delete waited on its row) is pulled back to the root, the move lost."""
    from chalicelib.areas.pages.models import Page
    from tests.areas.pages.factories import make_page

    base, sessions = live
    user = executive(sessions)
    with sessions() as db:
        parent = make_page(db, title="Parent")
        other = make_page(db, title="Other")
        child = make_page(db, title="Child", parent_id=parent.id)
        db.commit()
    # another request moving the child under `other`, holding the child's row until it commits
    status, body = while_held(
        sessions, update(Page).where(Page.id == child.id).values(parent_id=other.id, position=0),
        lambda: _call(base, "DELETE", f"/api/pages/{parent.id}", _token(user)))
    assert status == 200, body
    with sessions() as db:
        where = db.scalar(select(Page.parent_id).where(Page.id == child.id))
    assert where == other.id, (where, other.id)


def test_a_read_receipt_that_waited_for_the_delete_answers_404(live):
    from chalicelib.areas.announcements.models import Announcement
    from sqlalchemy import delete

    base, sessions = live
    user = executive(sessions)
    with sessions() as db:
        ann = Announcement(title="Hello", content="World", category="team", author_id=user.id)
        db.add(ann)
        db.commit()
    status, body = while_held(sessions, delete(Announcement).where(Announcement.id == ann.id),
                              lambda: _call(base, "POST", f"/api/announcements/{ann.id}/read", _token(user)))
    assert status == 404, (status, body)
