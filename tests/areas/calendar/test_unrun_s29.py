"""Session 29 (code no test runs): the calendar area's branches the whole suite left unexecuted. The invite scan
with the calendar off, a user's calendar failing, events without an id or cancelled, a run stopped by its budget
after users without invitations (their cursor kept); a culture event ending before it starts; an event's null
`dateTime` or `timeZone`; a wall-time range bound before year 1 in UTC."""
import pytest
from sqlalchemy import func, select

from chalicelib.core.notify import Notification
from chalicelib.providers.calendar import CalendarError
from tests.areas.calendar.test_google_live import live, user  # noqa: F401 - fixtures
from tests.factories import make_user


def _invite(email, event_id="ev-1", **extra):
    return {"id": event_id, "summary": "Meeting", "status": "confirmed", "organizer": {"email": "boss@elsewhere.test"},
            "start": {"dateTime": "2099-01-05T10:00:00Z"},
            "attendees": [{"email": email, "responseStatus": "needsAction"}], **extra}


class Fake:
    def __init__(self, events=None, failing=(), clock=None, seconds=0):
        self.events, self.failing, self.calls = events or (lambda email: []), set(failing), []
        self.clock, self.seconds = clock, seconds

    def list_events(self, email, calendar_id, *, time_min, time_max):
        self.calls.append(email)
        if self.clock is not None:
            self.clock["t"] += self.seconds
        if email in self.failing:
            raise CalendarError("Calendar provider refused the request", detail="Forbidden", status=403)
        return self.events(email)


def _told(db, user):
    return db.scalar(select(func.count()).select_from(Notification).where(
        Notification.user_id == user.id, Notification.type == "meeting_invited"))


def test_the_invite_scan_skips_when_the_calendar_is_off(db, set_env):
    from chalicelib.areas.calendar import jobs

    make_user(db)
    set_env(CALENDAR_MODE="off")
    assert jobs.scan_invites() == {"skipped": "calendar not configured"}


def test_a_users_failing_calendar_is_counted_and_the_others_are_scanned(db, monkeypatch):
    from chalicelib.areas.calendar import jobs
    from chalicelib.providers import calendar as calendar_pkg

    broken, fine = make_user(db, email="broken.cal@agency.test"), make_user(db, email="fine.cal@agency.test")
    fake = Fake(events=lambda email: [_invite(email)], failing={broken.email})
    monkeypatch.setattr(calendar_pkg, "get_calendar", lambda db=None: fake)
    answer = jobs.scan_invites()
    assert answer["failed"] == 1 and answer["scanned"] == answer["users"] and answer["notified"] == 1
    db.expire_all()
    assert (_told(db, broken), _told(db, fine)) == (0, 1)


def test_events_without_an_id_cancelled_or_synthetic_are_not_invitations(db, monkeypatch):
    from chalicelib.areas.calendar import jobs
    from chalicelib.providers import calendar as calendar_pkg

    user = make_user(db, email="odd.events@agency.test")
    events = [_invite(user.email, event_id=None), _invite(user.email, event_id="ev-c", status="cancelled"),
              _invite(user.email, event_id="ev-s", synthetic=True)]
    monkeypatch.setattr(calendar_pkg, "get_calendar", lambda db=None: Fake(events=lambda email: events))
    answer = jobs.scan_invites()
    assert answer["awaiting"] == 0 and answer["notified"] == 0 and answer["failed"] == 0
    db.expire_all()
    assert _told(db, user) == 0


@pytest.fixture
def clock(monkeypatch):
    from chalicelib.core import timeutil

    now = {"t": 1000.0}
    monkeypatch.setattr(timeutil, "clock", lambda: now["t"])
    return now


def test_a_run_stopped_by_its_budget_keeps_the_cursor_of_users_read_without_invitations(db, clock, monkeypatch):
    """The users read before the budget ran out, none with an invitation (nothing written yet for them), are
    written as read: the next run starts after them, not again with the first."""
    from chalicelib.areas.calendar import jobs
    from chalicelib.providers import calendar as calendar_pkg

    users = sorted([make_user(db, email=f"quiet{i}@agency.test") for i in range(5)], key=lambda u: u.id)
    fake = Fake(clock=clock, seconds=jobs.SCAN_SECONDS / 2 + 1)  # two users spend the budget; no invitations
    monkeypatch.setattr(calendar_pkg, "get_calendar", lambda db=None: fake)
    first = jobs.scan_invites()
    assert fake.calls == [u.email for u in users[:2]] and first["left"] == 3
    fake.calls = []
    jobs.scan_invites()
    assert fake.calls == [u.email for u in users[2:4]]


def test_a_culture_event_ending_before_it_starts_is_400(api, db, exec_user):
    answer = api.post("/api/calendar/culture-events", as_=exec_user,
                      json={"title": "Offsite", "date": "2030-05-10", "end_date": "2030-05-09"})
    assert answer.status == 400 and "end_date must not be before date" in str(answer.json), answer
    fine = api.post("/api/calendar/culture-events", as_=exec_user,
                    json={"title": "Offsite", "date": "2030-05-10", "end_date": "2030-05-10"})
    assert fine.status == 201, fine


def test_an_event_time_may_send_a_null_datetime_or_time_zone(api, db, exec_user):
    answer = api.post("/api/calendar/events", as_=exec_user, json={
        "calendarId": "primary", "summary": "All day",
        "start": {"date": "2030-05-10", "dateTime": None, "timeZone": None},
        "end": {"date": "2030-05-11", "dateTime": None, "timeZone": None}})
    assert answer.status in (200, 201), answer
    assert answer.json["event"]["start"]["date"] == "2030-05-10"


def test_a_wall_time_bound_before_year_one_in_utc_is_400(api, db, exec_user, set_env):
    set_env(ORG_TIMEZONE="Australia/Sydney")
    answer = api.get("/api/calendar/events?timeMin=0001-01-01T00:00:00&timeMax=2030-01-01T00:00:00",
                     as_=exec_user)
    assert answer.status == 400, answer
    assert any(d["field"] == "timeMin" for d in answer.json["details"]), answer.json


def test_a_missing_or_null_required_date_or_bound_is_400_naming_it(api, db, exec_user):
    """The dead `date is required` / `timeMin and timeMax are required` checks are gone: pydantic's required field
    and NOT_NULL answer first, naming the field."""
    for path, body, field in (("/api/calendar/public-holidays", {"name": "Day"}, "date"),
                              ("/api/calendar/public-holidays", {"name": "Day", "date": None}, "date"),
                              ("/api/calendar/culture-events", {"title": "Offsite"}, "date"),
                              ("/api/calendar/culture-events", {"title": "Offsite", "date": None}, "date")):
        answer = api.post(path, as_=exec_user, json=body)
        assert answer.status == 400 and [d["field"] for d in answer.json["details"]] == [field], (path, body, answer)
    answer = api.get("/api/calendar/events?timeMin=2030-01-01T00:00:00Z", as_=exec_user)
    assert answer.status == 400 and [d["field"] for d in answer.json["details"]] == ["timeMax"], answer
    attendee = api.post("/api/calendar/events", as_=exec_user, json={
        "calendarId": "primary", "start": {"date": "2030-05-10"}, "end": {"date": "2030-05-11"},
        "attendees": [{"email": None}]})
    assert attendee.status == 400, attendee


def test_an_event_whose_start_cannot_be_read_sorts_last_never_a_500(api, live, user):  # noqa: F811 - fixtures
    import responses

    from tests.areas.calendar.test_google_live import API, _google_event, _token

    _token(live)
    odd = _google_event("odd", start={"dateTime": "not a time"}, end={"dateTime": "not a time"})
    early = _google_event("early", start={"dateTime": "2026-12-02T09:00:00Z"}, end={"dateTime": "2026-12-02T10:00:00Z"})
    live.add(responses.GET, f"{API}/calendars/primary/events", json={"items": [odd, _google_event("e1"), early]})
    answer = api.get("/api/calendar/events?timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z"
                     "&calendarIds=primary", as_=user)
    assert answer.status == 200, answer
    ids = [e["id"] for e in answer.json["events"] if not e.get("synthetic")]
    assert ids == ["early", "e1", "odd"], ids
