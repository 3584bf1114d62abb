"""Session 28 (dates audit): a recurring invitation is one invitation. The invite scan reads the next 60 days with
singleEvents=true, so a weekly meeting is an instance a week (Google's ids `<series>_<start>`, each with
`recurringEventId`); each instance was recorded and told, so an unanswered weekly meeting gave eight or nine
`meeting_invited` notices at once and one more every week. Invitations are now keyed by the series
(`recurringEventId`), in the scan and in respond; the notice links the first instance awaiting."""
from datetime import datetime, timedelta, timezone

import responses
from sqlalchemy import select

from chalicelib.areas.calendar.models import CalendarInvite
from chalicelib.core.notify import Notification
from tests.areas.calendar.test_google_live import API, _token, live, user  # noqa: F401 - fixtures

SERIES = "weeklysync01"
LIST = f"{API}/calendars/primary/events"


def _instance(start: datetime, response: str = "needsAction") -> dict:
    return {"kind": "calendar#event", "id": f"{SERIES}_{start:%Y%m%dT%H%M%SZ}", "recurringEventId": SERIES,
            "status": "confirmed", "summary": "Weekly sync", "start": {"dateTime": f"{start:%Y-%m-%dT%H:%M:%SZ}"},
            "end": {"dateTime": f"{start + timedelta(minutes=30):%Y-%m-%dT%H:%M:%SZ}"},
            "organizer": {"email": "boss@agency.test"},
            "attendees": [{"email": "boss@agency.test", "organizer": True, "responseStatus": "accepted"},
                          {"email": "dana@agency.test", "self": True, "responseStatus": response}]}


def _weeks(first: datetime, weeks: range, response: str = "needsAction") -> list[dict]:
    return [_instance(first + timedelta(weeks=week), response) for week in weeks]


def _first() -> datetime:
    return (datetime.now(timezone.utc) + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)


def _scan(client) -> dict:
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    ran = client.lambda_.invoke("calendar_invite_scan", event).payload
    assert ran["failed"] == 0, ran
    return ran


def _told(db, user):  # noqa: F811
    db.expire_all()
    return db.scalars(select(Notification.resource_id).where(Notification.user_id == user.id,
                                                             Notification.type == "meeting_invited")).all()


def test_one_recurring_invitation_is_one_notice(db, client, live, user):  # noqa: F811
    _token(live)
    first = _first()
    live.add(responses.GET, LIST, json={"items": _weeks(first, range(8))})
    _scan(client)
    assert _told(db, user) == [f"{SERIES}_{first:%Y%m%dT%H%M%SZ}"]  # the first instance's link
    assert db.scalars(select(CalendarInvite.event_id).where(CalendarInvite.user_id == user.id)).all() == [SERIES]


def test_a_recurring_invitation_is_not_told_again_as_its_window_moves(db, client, live, user):  # noqa: F811
    _token(live)
    first = _first()
    live.add(responses.GET, LIST, json={"items": _weeks(first, range(8))})
    _scan(client)
    # a week later: the first instance is past and a ninth comes into the 60 days
    live.replace(responses.GET, LIST, json={"items": _weeks(first, range(1, 9))})
    _scan(client)
    assert len(_told(db, user)) == 1


def test_answering_one_instance_through_respond_stops_the_series_notices(api, db, client, live, user):  # noqa: F811
    """Respond on an instance answers that instance (Google changes only it); the others still await an answer, and
    the series is not announced for them (the invitation was seen), nor as a reset of the answer."""
    _token(live)
    first = _first()
    instance = _instance(first)
    live.add(responses.GET, f"{LIST}/{instance['id']}", json=instance)
    live.add(responses.PATCH, f"{LIST}/{instance['id']}", json=_instance(first, "accepted"))
    answered = api.post(f"/api/calendar/events/primary/{instance['id']}/respond", as_=user,
                        json={"status": "accepted"})
    assert answered.status == 200, answered
    live.add(responses.GET, LIST, json={"items": [_instance(first, "accepted"), *_weeks(first, range(1, 8))]})
    _scan(client)
    assert _told(db, user) == []


def test_a_series_answered_then_reset_is_told_again_once(db, client, live, user):  # noqa: F811
    """Session 27's reset rule for a series: answered in the calendar (every instance seen answered), then reset to
    needsAction by the organiser: announced again, once."""
    _token(live)
    first = _first()
    live.add(responses.GET, LIST, json={"items": _weeks(first, range(8))})
    _scan(client)
    live.replace(responses.GET, LIST, json={"items": _weeks(first, range(8), "accepted")})
    _scan(client)
    for made in db.scalars(select(Notification).where(Notification.user_id == user.id)):
        made.created_at -= timedelta(minutes=10)  # before core notify's 5-minute de-duplication window
    db.flush()
    live.replace(responses.GET, LIST, json={"items": _weeks(first, range(8))})
    _scan(client)
    _scan(client)
    assert len(_told(db, user)) == 2
