"""The sandbox calendar (the default mode) behaves as Google's (decisions.md section 7): a guest sees the organiser's
event on their own calendar but may not change it for everyone (403, as Google answers a guest without
guestsCanModify), and a guest's delete takes the event off their own calendar only (they leave its guests). A guest's
delete removed the organiser's event, and their PUT renamed it and emptied its guest list (calendar audit)."""
from tests.factories import grant, make_user as _make_user

RANGE = "timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z"


def make_user(db, **values):
    user = _make_user(db, **values)
    grant(db, user, "calendar", "update")
    return user


def _create(api, organiser, guest):
    created = api.post("/api/calendar/events", as_=organiser, json={
        "calendarId": "primary", "summary": "Board meeting", "start": {"dateTime": "2026-12-03T10:00:00+11:00"},
        "end": {"dateTime": "2026-12-03T11:00:00+11:00"}, "attendees": [{"email": guest.email}]})
    assert created.status == 201, created
    return created.json["event"]["id"]


def _events(api, user):
    return {event["id"]: event for event in api.get(f"/api/calendar/events?{RANGE}", as_=user).json["events"]}


def test_a_guests_delete_takes_the_event_off_their_calendar_only(api, db):
    organiser, guest = make_user(db), make_user(db)
    event_id = _create(api, organiser, guest)
    assert api.delete(f"/api/calendar/events/primary/{event_id}", as_=guest).status == 200
    kept = _events(api, organiser)[event_id]
    assert kept["summary"] == "Board meeting" and kept.get("attendees", []) == []  # the guest left it
    assert event_id not in _events(api, guest)


def test_a_guest_may_not_rewrite_or_move_the_organisers_event(api, db):
    organiser, guest = make_user(db), make_user(db)
    event_id = _create(api, organiser, guest)
    rewrite = api.put(f"/api/calendar/events/primary/{event_id}", as_=guest, json={"summary": "Cancelled",
                                                                                  "attendees": []})
    move = api.patch(f"/api/calendar/events/primary/{event_id}", as_=guest,
                     json={"start": {"dateTime": "2026-12-04T10:00:00+11:00"},
                           "end": {"dateTime": "2026-12-04T11:00:00+11:00"}})
    assert (rewrite.status, move.status) == (403, 403), (rewrite, move)
    event = _events(api, organiser)[event_id]
    assert event["summary"] == "Board meeting" and event["start"]["dateTime"] == "2026-12-03T10:00:00+11:00"
    assert [a["email"] for a in event["attendees"]] == [guest.email.lower()]
    # the guest still answers the invitation (their own response)
    answered = api.post(f"/api/calendar/events/primary/{event_id}/respond", as_=guest, json={"status": "accepted"})
    assert answered.status == 200, answered
