"""Session 31, round 2 (decided follow-ups of the invariants audit): answering an invitation with the status already
recorded for it (`calendar_invites.response`), and still held by the event, is a no-op answered as success: no
update through the provider (which e-mails the organiser on each: sendUpdates=all), no `meeting_response` notice.
The record alone does not decide: an answer reset by the organiser, or changed in the calendar itself, is given."""
from datetime import timedelta

import pytest
from sqlalchemy import select

from chalicelib.areas.calendar.models import CalendarInvite
from chalicelib.core.notify import Notification
from chalicelib.providers.calendar.sandbox import SandboxCalendar
from tests.areas.calendar.test_invite_reset_s27 import _set_response  # the provider's side of an answer
from tests.factories import grant, make_user


def _user(db, name):
    user = make_user(db, name=name)
    grant(db, user, "calendar", "update")
    return user


def _told(db, organiser):
    db.expire_all()
    return db.scalars(select(Notification.title).where(Notification.user_id == organiser.id,
                                                       Notification.type == "meeting_response")).all()


def _age(db):
    """Every notice made before core notify's 5-minute de-duplication window (the repeat comes later)."""
    for made in db.scalars(select(Notification)):
        made.created_at -= timedelta(minutes=10)
    db.flush()


@pytest.fixture
def meeting(api, db):
    organiser, guest = _user(db, "Olly Organiser"), _user(db, "Gus Guest")
    created = api.post("/api/calendar/events", as_=organiser, json={
        "calendarId": "primary", "summary": "Planning", "start": {"dateTime": "2026-12-03T10:00:00+11:00"},
        "end": {"dateTime": "2026-12-03T11:00:00+11:00"}, "attendees": [{"email": guest.email}]})
    assert created.status == 201, created
    event_id = created.json["event"]["id"]
    answered = api.post(f"/api/calendar/events/primary/{event_id}/respond", as_=guest, json={"status": "accepted"})
    assert answered.status == 200, answered
    assert _told(db, organiser) == ["Gus Guest accepted Planning"]
    _age(db)
    return organiser, guest, event_id


@pytest.fixture
def writes(monkeypatch):
    """The provider's respond calls made (each an update of the event, e-mailed to the organiser)."""
    calls = []
    original = SandboxCalendar.respond

    def respond(self, *args):
        calls.append(args)
        return original(self, *args)
    monkeypatch.setattr(SandboxCalendar, "respond", respond)
    return calls


def test_repeating_the_recorded_answer_is_a_no_op(api, db, meeting, writes):
    organiser, guest, event_id = meeting
    again = api.post(f"/api/calendar/events/primary/{event_id}/respond", as_=guest, json={"status": "accepted"})
    assert again.status == 200, again
    assert [(a["email"], a["responseStatus"]) for a in again.json["event"]["attendees"]] == [(guest.email, "accepted")]
    assert _told(db, organiser) == ["Gus Guest accepted Planning"]  # not told twice
    assert writes == []  # no update through the provider


def test_a_changed_answer_is_given_and_told(api, db, meeting, writes):
    organiser, guest, event_id = meeting
    changed = api.post(f"/api/calendar/events/primary/{event_id}/respond", as_=guest, json={"status": "declined"})
    assert changed.status == 200, changed
    assert [a["responseStatus"] for a in changed.json["event"]["attendees"]] == ["declined"]
    assert _told(db, organiser) == ["Gus Guest accepted Planning", "Gus Guest declined Planning"]
    assert len(writes) == 1
    assert db.get(CalendarInvite, (guest.id, event_id)).response == "declined"


def test_the_same_answer_after_a_reset_is_given_again(api, db, meeting, writes):
    """The record says accepted, but the organiser reset the answers (a change of time): the same status is an
    answer again, sent to the provider and told."""
    organiser, guest, event_id = meeting
    _set_response(db, event_id, guest.email, "needsAction")
    again = api.post(f"/api/calendar/events/primary/{event_id}/respond", as_=guest, json={"status": "accepted"})
    assert again.status == 200, again
    assert [a["responseStatus"] for a in again.json["event"]["attendees"]] == ["accepted"]
    assert _told(db, organiser) == ["Gus Guest accepted Planning"] * 2
    assert len(writes) == 1


def test_the_recorded_answer_after_a_change_in_the_calendar_is_given_again(api, db, meeting, writes):
    organiser, guest, event_id = meeting
    _set_response(db, event_id, guest.email, "tentative")  # changed in Google Calendar itself
    again = api.post(f"/api/calendar/events/primary/{event_id}/respond", as_=guest, json={"status": "accepted"})
    assert [a["responseStatus"] for a in again.json["event"]["attendees"]] == ["accepted"]
    assert len(writes) == 1 and len(_told(db, organiser)) == 2


def test_a_repeat_by_someone_no_longer_invited_still_answers_as_before(api, db, meeting):
    """The no-op needs the caller still on the event: one removed since gets the provider's answer, as before."""
    organiser, guest, event_id = meeting
    other = _user(db, "Otto Other")
    assert api.put(f"/api/calendar/events/primary/{event_id}", as_=organiser,
                   json={"attendees": [{"email": other.email}]}).status == 200
    again = api.post(f"/api/calendar/events/primary/{event_id}/respond", as_=guest, json={"status": "accepted"})
    assert again.status == 404, again
