"""Session 26 (links audit, "a notice's link opens for the person told"): the `meeting_action_item` notice names the
meeting and the item and links to the meeting, but an attendee whose `meetings` permission is none was told it all
the same (and their link answered 403). Now one permission lookup for all the batch's assignees: an assignee
without `meetings:view` is told "You were given an action item from a meeting", linked to the action centre (where
the item is mirrored) when they hold `action-centre:view`, else with no link. Both notice paths (the sync's batches
and reanalyse) go through `service_sync._add_action_items`."""
from datetime import datetime, timezone

from sqlalchemy import event, select

from chalicelib.areas.meetings.models import MeetingActionItem
from chalicelib.core.notify import Notification
from tests.areas.meetings.factories import make_meeting
from tests.factories import grant, make_user

GENERIC = "You were given an action item from a meeting"


def _notices(db, user):
    db.expire_all()
    return db.scalars(select(Notification).where(Notification.user_id == user.id,
                                                 Notification.type == "meeting_action_item")).all()


def test_meeting_action_item_to_an_attendee_without_meetings_view(api, db, exec_user, set_env):
    set_env(AI_MODE="sandbox")
    alice = make_user(db, name="Alice Able")
    grant(db, alice, "meetings", "none")
    meeting = make_meeting(db, title="Board: acquisition of Acme", attendees=[alice],
                           action_items_text="Alice Able: draft the offer letter")
    assert api.post(f"/api/meetings/{meeting.id}/reanalyse", as_=exec_user).status == 202
    notices = _notices(db, alice)
    assert len(notices) == 1, notices
    assert api.get(f"/api/meetings/{meeting.id}", as_=alice).status == 403
    # nothing of the meeting or the item; the link is the action centre's, which opens for her
    assert (notices[0].title, notices[0].action_url) == (GENERIC, "/action-centre")
    assert "Acme" not in (notices[0].body or "") and "offer letter" not in (notices[0].body or "")
    assert api.get("/api/action-items", as_=alice).status == 200


def test_no_link_without_action_centre_view_and_full_notice_for_readers(api, db, exec_user, set_env):
    set_env(AI_MODE="sandbox")
    alice = make_user(db, name="Alice Able")
    bob = make_user(db, name="Bob Baker")
    cara = make_user(db, name="Cara Cole")
    grant(db, bob, "meetings", "none")
    grant(db, bob, "action-centre", "none")
    meeting = make_meeting(db, title="Board: acquisition of Acme", attendees=[alice, bob, cara],
                           action_items_text="Alice Able: draft the offer letter\nBob Baker: call the bank")
    grant(db, cara, "meetings", "none")
    assert api.post(f"/api/meetings/{meeting.id}/reanalyse", as_=exec_user).status == 202
    told_alice, told_bob = _notices(db, alice), _notices(db, bob)
    assert [(n.title, n.action_url) for n in told_alice] == [
        ("Action item from Board: acquisition of Acme: draft the offer letter", f"/meetings/{meeting.id}")]
    assert api.get(f"/api/meetings/{meeting.id}", as_=alice).status == 200
    assert [(n.title, n.action_url) for n in told_bob] == [(GENERIC, None)]
    assert api.get("/api/action-items", as_=bob).status == 403
    assert _notices(db, cara) == []  # no item of hers: no notice


def test_sync_batch_looks_permissions_up_once(api, db, set_env, monkeypatch):
    """The sync's batch: three meetings, three assignees (one without `meetings:view`); one permission lookup for
    them all, not one per item."""
    from chalicelib.areas.meetings import service_sync
    from chalicelib.core.db import get_engine
    from chalicelib.providers.meetnotes import sandbox
    from chalicelib.areas.meetings.service_sync import run_sync

    people = [make_user(db, email=f"s26-{n}@agency.test") for n in range(3)]
    grant(db, people[1], "meetings", "none")
    db.commit()
    set_env(AI_MODE="off")
    notes = [{"id": f"s26-m{n}", "title": f"Secret meeting {n}", "date": datetime(2026, 11, 1 + n, 10, tzinfo=timezone.utc),
              "duration": 30, "organizer_email": "outsider@client.test",
              "attendees": [{"email": person.email, "name": "x"}], "overview": "o", "action_items": "", "keywords": []}
             for n, person in enumerate(people)]
    monkeypatch.setattr(sandbox.SandboxNotes, "list_notes", lambda self, since: notes)
    emails = {note["id"]: note["attendees"][0]["email"] for note in notes}
    monkeypatch.setattr(service_sync, "_analyse", lambda note: {"category": "sales", "action_items": [
        {"text": f"task of {note['id']}", "assignee_email": emails[note["id"]]}]})
    lookups = []

    def count(conn, cursor, statement, parameters, context, executemany):
        if "user_permissions" in statement.lower():
            lookups.append(statement)

    engine = get_engine()
    event.listen(engine, "before_cursor_execute", count)
    try:
        run_sync(force=True)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(lookups) == 1, lookups
    db.expire_all()
    items = {i.meeting_id: i for i in db.scalars(select(MeetingActionItem).where(
        MeetingActionItem.meeting_id.in_(list(emails))))}
    assert [items[f"s26-m{n}"].assignee_id for n in range(3)] == [p.id for p in people]
    told = [[(n.title, n.action_url) for n in _notices(db, person)] for person in people]
    assert told == [[("Action item from Secret meeting 0: task of s26-m0", "/meetings/s26-m0")],
                    [(GENERIC, "/action-centre")],
                    [("Action item from Secret meeting 2: task of s26-m2", "/meetings/s26-m2")]]
