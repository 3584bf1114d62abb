"""Calendar notices (notifications audit): the organiser hears every invitee's answer, even minutes apart."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.factories import grant, make_user


def test_the_organiser_is_told_each_invitees_answer(api, db):
    organiser, ann, bob = make_user(db, name="Olga"), make_user(db, name="Ann"), make_user(db, name="Bob")
    for user in (organiser, ann, bob):  # employees have calendar:view by default; writes and answers need update
        grant(db, user, "calendar", "update")
    event = api.post("/api/calendar/events", as_=organiser, json={
        "calendarId": "primary", "summary": "Planning", "start": {"dateTime": "2026-12-03T10:00:00+11:00"},
        "end": {"dateTime": "2026-12-03T11:00:00+11:00"},
        "attendees": [{"email": ann.email}, {"email": bob.email}]}).json["event"]
    for who, status in ((ann, "accepted"), (bob, "declined")):
        answer = api.post(f"/api/calendar/events/primary/{event['id']}/respond", as_=who, json={"status": status})
        assert answer.status == 200, answer
    db.expire_all()
    told = db.execute(select(Notification.title, Notification.actor_id, Notification.action_url).where(
        Notification.user_id == organiser.id, Notification.type == "meeting_response")
        .order_by(Notification.title)).all()
    assert told == [("Ann accepted Planning", ann.id, f"/calendar?event={event['id']}"),
                    ("Bob declined Planning", bob.id, f"/calendar?event={event['id']}")]
