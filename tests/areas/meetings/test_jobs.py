"""The scheduled job meetings-sync through the Lambda handler and the CLI, against the sandbox meeting-notes and
AI providers: run twice, one effect (developers' guide, scheduled jobs). Within the sync interval the second run
is skipped; once due again, it re-reads the newest notes and adds nothing."""
import json
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.meetings.models import Meeting, MeetingActionItem, MeetingAttendee, MeetingSyncState
from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.factories import make_user


@pytest.fixture
def people(db):
    """The first three active users by e-mail: the sandbox notes' internal attendees."""
    return [make_user(db, email=f"0{n}-person@agency.test", name=name)
            for n, name in enumerate(("Alice Able", "Bob Baker", "Cara Cole"))]


def _state(db):
    db.expire_all()

    def count(model, *where):
        return db.scalar(select(func.count()).select_from(model).where(*where))

    meetings = db.execute(select(Meeting.id, Meeting.title, Meeting.category, Meeting.updated_at)
                          .order_by(Meeting.id)).all()
    items = db.execute(select(MeetingActionItem.id, MeetingActionItem.meeting_id, MeetingActionItem.position,
                              MeetingActionItem.assignee_id).order_by(MeetingActionItem.id)).all()
    return {"meetings": meetings, "items": items,
            "attendees": db.execute(select(MeetingAttendee.meeting_id, MeetingAttendee.email, MeetingAttendee.user_id)
                                    .order_by(MeetingAttendee.meeting_id, MeetingAttendee.email)).all(),
            "centre": count(ActionItem, ActionItem.source_module == "meetings"),
            "notified": count(Notification, Notification.type == "meeting_action_item")}


def _assert_first(db, answer, people):
    assert {k: answer[k] for k in ("fetched", "created", "updated")} == {"fetched": 5, "created": 5, "updated": 0}
    state = _state(db)
    assert len(state["meetings"]) == 5 and all(m.category for m in state["meetings"])
    assert answer["action_items"] == len(state["items"]) > 0
    assigned = [i for i in state["items"] if i.assignee_id]
    assert state["centre"] == state["notified"] == len(assigned) > 0
    assert {i.assignee_id for i in assigned} <= {p.id for p in people}
    return state


def _due_again(db):
    state = db.get(MeetingSyncState, "meetnotes")
    state.last_synced_at = utcnow() - timedelta(minutes=31)  # the default interval, 30 minutes, has passed
    db.flush()


def _assert_nothing_new(answer):
    # the notes of the three days before the newest are read again (the provider answers notes dated since then:
    # 9 and 11 November): updated in place
    # (`remaining`: the new notes left for the next run, service_sync.ANALYSES_PER_RUN)
    assert answer == {"fetched": 2, "created": 0, "updated": 2, "action_items": 0, "remaining": 0}


def test_meetings_sync_through_the_scheduled_handler(db, client, people):
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    first = _assert_first(db, client.lambda_.invoke("meetings_sync", event).payload, people)
    synced_at = db.get(MeetingSyncState, "meetnotes").last_synced_at
    assert client.lambda_.invoke("meetings_sync", event).payload == {"skipped": "not due"}
    assert _state(db) == first and db.get(MeetingSyncState, "meetnotes").last_synced_at == synced_at
    _due_again(db)
    _assert_nothing_new(client.lambda_.invoke("meetings_sync", event).payload)
    assert _state(db) == first  # no meeting rewritten, no item, action centre item or notification added


def test_meetings_sync_through_the_cli(db, people, capsys):
    from chalicelib import cli

    assert cli.main(["job", "meetings-sync"]) == 0
    first = _assert_first(db, json.loads(capsys.readouterr().out), people)
    assert cli.main(["job", "meetings-sync"]) == 0
    assert json.loads(capsys.readouterr().out) == {"skipped": "not due"}
    assert _state(db) == first
    _due_again(db)
    assert cli.main(["job", "meetings-sync"]) == 0
    _assert_nothing_new(json.loads(capsys.readouterr().out))
    assert _state(db) == first


def test_a_first_sync_that_meets_another_first_sync_updates_its_state(db, people, monkeypatch):
    """Two first syncs at once: both read no sync state; the other run records it while this one asks the provider
    (here: the provider's call records it, as the other run's commit would be seen after the lock). This run then
    updates that state instead of inserting a second one (a duplicate key failed the run)."""
    from chalicelib.areas.meetings import service_sync
    from chalicelib.providers.meetnotes.sandbox import SandboxNotes

    earlier = utcnow() - timedelta(hours=1)
    listed = SandboxNotes.list_notes

    def list_notes(self, *, since):
        notes = listed(self, since=since)
        db.add(MeetingSyncState(provider="meetnotes", last_synced_at=earlier, last_note_date=None))
        db.flush()  # the other first run's state
        return notes

    monkeypatch.setattr(SandboxNotes, "list_notes", list_notes)
    answer = service_sync.run_sync(force=True)
    _assert_first(db, answer, people)
    db.expire_all()
    state = db.get(MeetingSyncState, "meetnotes")
    assert state.last_synced_at > earlier and state.last_note_date is not None
