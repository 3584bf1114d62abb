"""Session 27: an invitation the organiser resets to needsAction (Google resets the attendees' responses, e.g. after a
change of time) after the attendee had answered is announced again (`meeting_invited`), once per reset: the invite
scan announced an invitation only once, so the attendee never heard that their answer was wanted again. The answer
counts whether given through the respond endpoint or in the calendar itself (the scan saw it answered); an
invitation never answered stays announced once however many scans see it awaiting."""
from datetime import datetime, timedelta, timezone

from sqlalchemy import select
from sqlalchemy.orm.attributes import flag_modified

from chalicelib.areas.calendar.jobs import scan_invites
from chalicelib.core.notify import Notification
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from tests.factories import grant, make_user


def _user(db, level, **values):
    user = make_user(db, **values)
    grant(db, user, "calendar", level)
    return user


def _utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _invited(db, user):
    db.expire_all()
    return db.scalars(select(Notification.resource_id).where(Notification.user_id == user.id,
                                                             Notification.type == "meeting_invited")).all()


def _age(db, user):
    """The user's notices made before core notify's 5-minute de-duplication window (a reset comes later)."""
    for made in db.scalars(select(Notification).where(Notification.user_id == user.id)):
        made.created_at -= timedelta(minutes=10)
    db.flush()


def _set_response(db, event_id, email, status):
    """The provider's side: the attendee's responseStatus as Google holds it (the organiser's change of time resets
    it to needsAction; an answer given in the calendar itself sets it), without the service's respond endpoint."""
    db.expire_all()
    row = db.get(SandboxCalendarEvent, event_id)
    row.event = {**row.event, "attendees": [{**a, "responseStatus": status} if a["email"] == email.lower() else a
                                            for a in row.event["attendees"]]}
    flag_modified(row, "event")
    db.flush()


def _meeting(api, db):
    organiser = _user(db, "update", name="Olive Organiser")
    invitee = _user(db, "update", name="Ivy Invitee")
    start = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0) + timedelta(days=5)
    made = api.post("/api/calendar/events", as_=organiser, json={
        "calendarId": "primary", "summary": "Kick-off", "start": {"dateTime": _utc(start)},
        "end": {"dateTime": _utc(start + timedelta(hours=1))}, "attendees": [{"email": invitee.email}]})
    assert made.status == 201, made
    event_id = made.json["event"]["id"]
    scan_invites()
    assert _invited(db, invitee) == [event_id]
    _age(db, invitee)
    return organiser, invitee, event_id


def test_an_invitation_reset_after_an_answer_through_respond_is_announced_again_once(api, db):
    _organiser, invitee, event_id = _meeting(api, db)
    answered = api.post(f"/api/calendar/events/primary/{event_id}/respond", as_=invitee, json={"status": "accepted"})
    assert answered.status == 200, answered
    scan_invites()
    assert _invited(db, invitee) == [event_id]  # answered: nothing to announce
    _set_response(db, event_id, invitee.email, "needsAction")  # the organiser moved the meeting
    scan_invites()
    assert _invited(db, invitee) == [event_id, event_id]  # announced again
    _age(db, invitee)
    scan_invites()
    assert _invited(db, invitee) == [event_id, event_id]  # once per reset, not on every scan
    # answered again, reset again: announced again
    assert api.post(f"/api/calendar/events/primary/{event_id}/respond", as_=invitee,
                    json={"status": "declined"}).status == 200
    _set_response(db, event_id, invitee.email, "needsAction")
    scan_invites()
    assert _invited(db, invitee) == [event_id] * 3


def test_an_invitation_answered_in_the_calendar_then_reset_is_announced_again_once(api, db):
    organiser, invitee, event_id = _meeting(api, db)
    _set_response(db, event_id, invitee.email, "tentative")  # answered in Google itself
    scan_invites()  # sees it answered
    assert _invited(db, invitee) == [event_id]
    _set_response(db, event_id, invitee.email, "needsAction")
    scan_invites()
    assert _invited(db, invitee) == [event_id, event_id]
    _age(db, invitee)
    scan_invites()
    assert _invited(db, invitee) == [event_id, event_id]
    assert _invited(db, organiser) == []


def test_an_invitation_never_answered_is_announced_once(api, db):
    _organiser, invitee, event_id = _meeting(api, db)
    _set_response(db, event_id, invitee.email, "needsAction")  # still awaiting (a change that kept it so)
    for _ in range(2):
        scan_invites()
        _age(db, invitee)
    assert _invited(db, invitee) == [event_id]
