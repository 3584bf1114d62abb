"""Session 26 (calendar notice audits): the invitation notice's time for an event given a wall time without an
offset (read in the event's `timeZone`, else ORG_TIMEZONE, as the event list orders it), and the links of
`meeting_invited` and `meeting_response`, which answered 403 to a user without calendar view. ORG_TIMEZONE is
Australia/Sydney in the tests (UTC+11 in December)."""
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from sqlalchemy import select

from chalicelib.areas.calendar.jobs import scan_invites
from chalicelib.core.notify import Notification
from tests.factories import grant, make_user

SYDNEY = ZoneInfo("Australia/Sydney")


def _user(db, level, **values):
    user = make_user(db, **values)
    grant(db, user, "calendar", level)
    return user


def _notices(db, user, type):
    db.expire_all()
    return db.scalars(select(Notification).where(Notification.user_id == user.id, Notification.type == type)).all()


def _utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _sydney_day(days: int):
    return (datetime.now(timezone.utc) + timedelta(days=days)).astimezone(SYDNEY).date()


def _said(day, hour: int) -> str:
    return f"{day:%a} {day.day} {day:%b %Y}, {hour:02d}:00"


def _list_order(api, user, day, zone=SYDNEY):
    start = datetime.combine(day, datetime.min.time(), tzinfo=zone)
    answer = api.get(f"/api/calendar/events?timeMin={_utc(start - timedelta(days=1))}"
                     f"&timeMax={_utc(start + timedelta(days=2))}", as_=user)
    assert answer.status == 200, answer
    return [e["summary"] for e in answer.json["events"] if not e.get("synthetic")]


# ---------------------------------------------------------------- 1. the notice's time


def test_invite_notice_time_matches_event_wall_time(api, db):
    """10:00 without an offset is 10:00 in ORG_TIMEZONE (create adds it as the timeZone): the notice said 21:00
    (read as UTC, the machine's zone on Lambda, then shown in Sydney)."""
    organiser, invitee = _user(db, "update", name="Olga Organiser"), _user(db, "view", name="Ivan Invitee")
    day = _sydney_day(3)
    created = api.post("/api/calendar/events", as_=organiser, json={
        "calendarId": "primary", "summary": "Wall time", "start": {"dateTime": f"{day}T10:00:00"},
        "end": {"dateTime": f"{day}T11:00:00"}, "attendees": [{"email": invitee.email}]})
    assert created.status == 201, created
    assert created.json["event"]["start"] == {"dateTime": f"{day}T10:00:00", "timeZone": "Australia/Sydney"}
    scan_invites()
    assert [n.body for n in _notices(db, invitee, "meeting_invited")] == [_said(day, 10)]


def test_invite_notice_reads_a_wall_time_in_the_events_own_zone(api, db):
    """09:00 in Perth (its `timeZone`, no offset) is told in ORG_TIMEZONE, and the list orders it at that instant:
    after a Sydney meeting half an hour before it (the list and the notice read one start)."""
    organiser, invitee = _user(db, "update", name="Pat Perth"), _user(db, "view", name="Sid Sydney")
    day = _sydney_day(4)
    perth = datetime.combine(day, datetime.min.time(), tzinfo=ZoneInfo("Australia/Perth")).replace(hour=9)
    told_at = perth.astimezone(SYDNEY)
    before = told_at - timedelta(minutes=30)
    for summary, start, end in (("Perth nine", {"dateTime": f"{day}T09:00:00", "timeZone": "Australia/Perth"},
                                 {"dateTime": f"{day}T10:00:00", "timeZone": "Australia/Perth"}),
                                ("Sydney before", {"dateTime": before.isoformat()},
                                 {"dateTime": told_at.isoformat()})):
        made = api.post("/api/calendar/events", as_=organiser, json={
            "calendarId": "primary", "summary": summary, "start": start, "end": end,
            "attendees": [{"email": invitee.email}]})
        assert made.status == 201, made
    scan_invites()
    bodies = {n.title: n.body for n in _notices(db, invitee, "meeting_invited")}
    assert bodies["Invitation: Perth nine"] == f"{told_at:%a} {told_at.day} {told_at:%b %Y}, {told_at:%H:%M}"
    assert _list_order(api, invitee, day) == ["Sydney before", "Perth nine"]


def test_one_reading_of_an_events_start():
    from chalicelib.areas.calendar.queries import event_start

    assert event_start({"start": {"dateTime": "2026-12-01T10:00:00"}}) == datetime(2026, 12, 1, 10, tzinfo=SYDNEY)
    assert event_start({"start": {"dateTime": "2026-12-01T10:00:00", "timeZone": "Europe/London"}}) == \
        datetime(2026, 12, 1, 10, tzinfo=timezone.utc)
    assert event_start({"start": {"dateTime": "2026-12-01T10:00:00Z", "timeZone": "Europe/Paris"}}) == \
        datetime(2026, 12, 1, 10, tzinfo=timezone.utc)  # an offset wins over the zone
    assert event_start({"start": {"dateTime": "2026-12-01T10:00:00", "timeZone": "Nowhere/Else"}}) == \
        datetime(2026, 12, 1, 10, tzinfo=SYDNEY)
    assert event_start({"start": {"date": "2026-12-01"}}).isoformat() == "2026-12-01"
    assert event_start({"start": {"dateTime": "not a time"}}) is None and event_start({}) is None


# ---------------------------------------------------------------- 2. meeting_invited only to calendar viewers


def test_invite_scan_tells_only_users_who_can_open_the_calendar(api, db):
    organiser = _user(db, "update", name="Olly Organiser")
    viewer, barred = _user(db, "view", name="Vera Viewer"), _user(db, "none", name="Gus Barred")
    start = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0) + timedelta(days=10)
    created = api.post("/api/calendar/events", as_=organiser, json={
        "calendarId": "primary", "summary": "Planning", "start": {"dateTime": _utc(start)},
        "end": {"dateTime": _utc(start + timedelta(hours=1))},
        "attendees": [{"email": viewer.email}, {"email": barred.email}]})
    assert created.status == 201, created
    event_id = created.json["event"]["id"]
    scan_invites()
    told = _notices(db, viewer, "meeting_invited")
    assert [n.action_url for n in told] == [f"/calendar?event={event_id}"]
    assert _list_order(api, viewer, start.astimezone(SYDNEY).date()) == ["Planning"]  # the link opens
    assert api.get(f"/api/calendar/events?timeMin={_utc(start)}&timeMax={_utc(start + timedelta(hours=1))}",
                   as_=barred).status == 403
    assert _notices(db, barred, "meeting_invited") == []
    # given calendar view later, the invitation still awaiting them is told then
    grant(db, barred, "calendar", "view")
    scan_invites()
    assert [n.action_url for n in _notices(db, barred, "meeting_invited")] == [f"/calendar?event={event_id}"]


# ---------------------------------------------------------------- 3. meeting_response's link


def _respond_to(api, db, organiser_level):
    organiser = _user(db, "update", name="Olly Organiser")
    guest = _user(db, "update", name="Gus Guest")
    created = api.post("/api/calendar/events", as_=organiser, json={
        "calendarId": "primary", "summary": "Planning", "start": {"dateTime": "2026-12-03T10:00:00+11:00"},
        "end": {"dateTime": "2026-12-03T11:00:00+11:00"}, "attendees": [{"email": guest.email}]})
    assert created.status == 201, created
    event_id = created.json["event"]["id"]
    grant(db, organiser, "calendar", organiser_level)
    answered = api.post(f"/api/calendar/events/primary/{event_id}/respond", as_=guest, json={"status": "accepted"})
    assert answered.status == 200, answered
    return organiser, guest, event_id


def test_meeting_response_to_an_organiser_without_calendar_view_has_no_link(api, db):
    organiser, guest, event_id = _respond_to(api, db, "none")
    notices = _notices(db, organiser, "meeting_response")
    assert [(n.title, n.action_url, n.resource_type, n.resource_id, n.actor_id) for n in notices] == \
        [("Gus Guest accepted Planning", None, "calendar_event", event_id, guest.id)]
    assert api.get("/api/calendar/events?timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z",
                   as_=organiser).status == 403


def test_meeting_response_to_an_organiser_with_calendar_view_links_the_event(api, db):
    organiser, _guest, event_id = _respond_to(api, db, "view")
    notices = _notices(db, organiser, "meeting_response")
    assert [(n.title, n.action_url) for n in notices] == [("Gus Guest accepted Planning", f"/calendar?event={event_id}")]
    assert api.get("/api/calendar/events?timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z",
                   as_=organiser).status == 200
