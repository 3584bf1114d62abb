"""An event read and sent back (PUT /api/calendar/events/{calendar}/{event}) (save-back audit, session 25).

The input's attendee holds only `email` and `displayName`, and the update rebuilt the attendee list from it, so
an event sent back as read dropped each guest's `optional`, `responseStatus`, `comment` and `additionalGuests`;
Google's PUT is a full replacement (sendUpdates=all): optional guests became required and answers could reset.
Each attendee sent is now merged over the current event's entry with the same address (case aside). And an update
that changes nothing no longer calls the provider (which e-mailed every guest): it answers the event as read."""
import json

import responses
from sqlalchemy import select

from chalicelib.providers.calendar import sandbox
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from tests.areas.calendar.test_google_live import API, _google_event, _token, live, user  # noqa: F401 - fixtures
from tests.factories import grant
from tests.factories import make_user as _make_user

RANGE = "timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z"


def make_user(db, **values):
    user = _make_user(db, **values)
    grant(db, user, "calendar", "update")
    return user


def _create(api, organiser, *guests):
    created = api.post("/api/calendar/events", as_=organiser, json={
        "calendarId": "primary", "summary": "Board", "start": {"dateTime": "2026-12-03T10:00:00+11:00"},
        "end": {"dateTime": "2026-12-03T11:00:00+11:00"}, "attendees": [{"email": g.email} for g in guests]})
    assert created.status == 201, created
    return created.json["event"]


def _read(api, user, event_id):
    return {e["id"]: e for e in api.get(f"/api/calendar/events?{RANGE}", as_=user).json["events"]}[event_id]


def _count_updates(monkeypatch):
    calls = []
    original = sandbox.SandboxCalendar.update_event
    monkeypatch.setattr(sandbox.SandboxCalendar, "update_event",
                        lambda self, *a, **k: calls.append(a) or original(self, *a, **k))
    return calls


def test_an_event_sent_back_with_a_change_keeps_each_guests_other_fields(api, db):
    organiser, guest, other = make_user(db), make_user(db), make_user(db)
    event = _create(api, organiser, guest, other)
    assert api.post(f"/api/calendar/events/primary/{event['id']}/respond", as_=guest,
                    json={"status": "accepted"}).status == 200
    # fields only the provider sets (Google: the organiser marks a guest optional; the guest comments)
    row = db.scalar(select(SandboxCalendarEvent).where(SandboxCalendarEvent.id == event["id"]))
    row.event = {**row.event, "attendees": [
        {**a, "optional": True, "comment": "see you", "additionalGuests": 1} if a["email"] == guest.email.lower()
        else a for a in row.event["attendees"]]}
    db.flush()

    read = _read(api, organiser, event["id"])
    attendees = [{**a, "email": a["email"].upper()} if a["email"] == guest.email.lower() else a
                 for a in read["attendees"] if a["email"] != other.email.lower()]  # other dropped, guest's case changed
    newcomer = make_user(db)
    sent = api.put(f"/api/calendar/events/primary/{event['id']}", as_=organiser,
                   json={**read, "summary": "Board v2", "attendees": [*attendees, {"email": newcomer.email}]})
    assert sent.status == 200, sent
    kept = {a["email"].lower(): a for a in _read(api, organiser, event["id"])["attendees"]}
    assert set(kept) == {guest.email.lower(), newcomer.email.lower()}  # still the whole list replaced
    mine = kept[guest.email.lower()]
    assert (mine.get("optional"), mine.get("comment"), mine.get("additionalGuests"), mine["responseStatus"]) == \
        (True, "see you", 1, "accepted"), mine
    assert kept[newcomer.email.lower()]["responseStatus"] == "needsAction"
    assert "optional" not in kept[newcomer.email.lower()]


def test_a_display_name_sent_replaces_the_guests_and_keeps_the_rest(api, db):
    organiser, guest = make_user(db), make_user(db)
    event = _create(api, organiser, guest)
    assert api.post(f"/api/calendar/events/primary/{event['id']}/respond", as_=guest,
                    json={"status": "tentative"}).status == 200
    sent = api.put(f"/api/calendar/events/primary/{event['id']}", as_=organiser,
                   json={"attendees": [{"email": guest.email, "displayName": "Gus"}]})
    assert sent.status == 200, sent
    (mine,) = _read(api, organiser, event["id"])["attendees"]
    assert (mine.get("displayName"), mine["responseStatus"]) == ("Gus", "tentative")


def test_an_event_sent_back_unchanged_calls_no_provider_update(api, db, monkeypatch):
    organiser, guest = make_user(db), make_user(db)
    event = _create(api, organiser, guest)
    read = _read(api, organiser, event["id"])
    calls = _count_updates(monkeypatch)
    same = api.put(f"/api/calendar/events/primary/{event['id']}", as_=organiser, json=read)
    assert same.status == 200, same
    assert calls == [], "a PUT of the event as read still called update_event (sendUpdates=all)"
    assert same.json["event"]["id"] == event["id"] and same.json["event"]["updated"] == read["updated"]
    # a field sent with its current value, and the attendees sent by address only: still nothing to send
    again = api.put(f"/api/calendar/events/primary/{event['id']}", as_=organiser,
                    json={"summary": "Board", "attendees": [{"email": guest.email.upper()}]})
    assert again.status == 200 and calls == [], again
    # one change is sent
    changed = api.put(f"/api/calendar/events/primary/{event['id']}", as_=organiser, json={**read, "location": "R1"})
    assert changed.status == 200 and len(calls) == 1, changed
    assert changed.json["event"]["location"] == "R1"


# ---------------------------------------------------------------- the live adapter's request (responses, no network)

GUESTS = [{"email": "dana@agency.test", "organizer": True, "self": True, "responseStatus": "accepted"},
          {"email": "guest@client.test", "displayName": "Gus", "optional": True, "responseStatus": "accepted",
           "comment": "see you", "additionalGuests": 2, "id": "g1"}]


def _puts(mock):
    return [json.loads(call.request.body) for call in mock.calls if call.request.method == "PUT"]


def test_live_put_of_an_event_as_read_sends_each_guests_fields(api, live, user):  # noqa: F811 - fixtures
    _token(live)
    event = _google_event("evt1", attendees=GUESTS)
    path = f"{API}/calendars/primary/events/evt1"
    live.add(responses.GET, path, json=event)
    live.add(responses.PUT, path, json={**event, "summary": "Planning v2"})
    read = {**event, "attendees": [{"email": "dana@agency.test"}, {"email": "Guest@Client.test"}]}
    answer = api.put("/api/calendar/events/primary/evt1", as_=user, json={**read, "summary": "Planning v2"})
    assert answer.status == 200, answer
    (sent,) = _puts(live)
    assert sent["summary"] == "Planning v2"
    assert sent["attendees"] == GUESTS, sent["attendees"]


def test_live_put_that_changes_nothing_sends_no_update(api, live, user):  # noqa: F811 - fixtures
    _token(live)
    event = _google_event("evt1", attendees=GUESTS, description="Q1",
                          start={"dateTime": "2026-12-03T10:00:00+11:00", "timeZone": "Australia/Sydney"})
    path = f"{API}/calendars/primary/events/evt1"
    live.add(responses.GET, path, json=event)
    live.add(responses.PUT, path, json=event)
    answer = api.put("/api/calendar/events/primary/evt1", as_=user, json=event)
    assert answer.status == 200, answer
    assert _puts(live) == [], "the event as read was PUT back to Google (sendUpdates=all e-mails every guest)"
    assert answer.json["event"]["etag"] == event["etag"] and answer.json["event"]["attendees"] == GUESTS
