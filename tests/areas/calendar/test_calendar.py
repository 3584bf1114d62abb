"""Calendar at /api/calendar (document 3) against the sandbox provider: calendars, events merged with the
synthetic events, event writes, respond, settings, places, public holidays, culture events, the invite scan."""
from datetime import date, datetime, timezone

import pytest
from sqlalchemy import func, select

from chalicelib.areas.calendar.jobs import scan_invites
from chalicelib.areas.calendar.models import CultureEvent, PublicHoliday
from chalicelib.core.notify import Notification
from tests.factories import grant
from tests.factories import make_user as _make_user

RANGE = "timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z"


def make_user(db, **values):
    """A user who may write calendar events (employees have calendar:view by default)."""
    user = _make_user(db, **values)
    grant(db, user, "calendar", "update")
    return user


@pytest.fixture
def employee(db):
    return make_user(db, access_level="employee", name="Emma Employee")


def _event(**extra):
    return {"calendarId": "primary", "summary": "Planning", "start": {"dateTime": "2026-12-03T10:00:00+11:00"},
            "end": {"dateTime": "2026-12-03T11:00:00+11:00"}, **extra}


def test_calendars_and_off(api, employee, set_env):
    listed = api.get("/api/calendar/calendars", as_=employee).json["calendars"]
    assert [c["id"] for c in listed] == ["primary", "team"]
    set_env(CALENDAR_MODE="off")
    assert api.get("/api/calendar/calendars", as_=employee).json == {"calendars": []}
    refused = api.post("/api/calendar/events", as_=employee, json=_event())
    assert refused.status == 503 and set(refused.json) == {"error", "detail"}


@pytest.mark.smoke
def test_event_lifecycle_and_invitation_response(api, db, employee):
    guest = make_user(db, name="Gus Guest")
    created = api.post("/api/calendar/events", as_=employee, json=_event(
        description="Q1", location="Room 1", attendees=[{"email": guest.email, "displayName": "Gus"}]))
    assert created.status == 201, created
    event = created.json["event"]
    assert event["summary"] == "Planning" and event["htmlLink"] and event["status"] == "confirmed"
    assert [(a["email"], a["responseStatus"]) for a in event["attendees"]] == [(guest.email, "needsAction")]
    path = f"/api/calendar/events/primary/{event['id']}"

    moved = api.patch(path, as_=employee, json={"start": {"dateTime": "2026-12-03T12:00:00+11:00"},
                                                "end": {"dateTime": "2026-12-03T13:00:00+11:00"}})
    assert moved.status == 200 and moved.json["event"]["start"]["dateTime"] == "2026-12-03T12:00:00+11:00"
    assert moved.json["event"]["summary"] == "Planning"
    other = make_user(db)
    replaced = api.put(path, as_=employee, json={"summary": "Planning v2", "attendees": [{"email": other.email}]})
    assert replaced.status == 200
    assert [a["email"] for a in replaced.json["event"]["attendees"]] == [other.email]  # the whole list replaced
    assert replaced.json["event"]["location"] == "Room 1"

    # the invitee sees it on their primary calendar and answers; only their status changes
    theirs = api.get(f"/api/calendar/events?{RANGE}", as_=other).json["events"]
    assert [e["id"] for e in theirs if not e.get("synthetic")] == [event["id"]]
    answered = api.post(f"/api/calendar/events/primary/{event['id']}/respond", as_=other, json={"status": "accepted"})
    assert answered.status == 200
    assert [(a["email"], a["responseStatus"]) for a in answered.json["event"]["attendees"]] == [(other.email, "accepted")]
    told = db.scalars(select(Notification).where(Notification.user_id == employee.id,
                                                 Notification.type == "meeting_response")).all()
    assert [n.title for n in told] == [f"{other.name} accepted Planning v2"]
    assert api.post(f"/api/calendar/events/primary/{event['id']}/respond", as_=guest,
                    json={"status": "accepted"}).status == 404  # no longer invited: not on their calendar
    assert api.post(f"/api/calendar/events/primary/{event['id']}/respond", as_=other,
                    json={"status": "maybe"}).status == 400

    assert api.delete(path, as_=employee).json == {"ok": True}
    gone = api.delete(path, as_=employee)
    assert gone.status == 404 and set(gone.json) == {"error", "detail"}


def test_event_validation_and_provider_errors(api, employee):
    for bad in ({"summary": "x"}, _event(calendarId=""), _event(start={"dateTime": "tomorrow"}),
                _event(start={"date": "2026-12-01", "dateTime": "2026-12-01T10:00:00Z"}),
                _event(start={"dateTime": "2026-12-01T10:00:00Z", "timeZone": "Mars/Olympus"}),
                _event(attendees=[{"email": "not-an-address"}]), _event(attendees="x")):
        assert api.post("/api/calendar/events", as_=employee, json=bad).status == 400, bad
    refused = api.post("/api/calendar/events", as_=employee, json=_event(calendarId="someone-else@agency.test"))
    # session 28: a colleague's calendar is not shared with the caller (the sandbox answers as Google does for one)
    assert refused.status == 404 and refused.json["detail"] == "Not Found"
    missing = api.post("/api/calendar/events", as_=employee, json=_event(calendarId="invalid-calendar"))
    assert missing.status == 404 and missing.json["detail"] == "Not Found"
    backwards = api.post("/api/calendar/events", as_=employee, json=_event(
        start={"dateTime": "2026-12-03T12:00:00Z"}, end={"dateTime": "2026-12-03T11:00:00Z"}))
    assert backwards.status == 400 and backwards.json["detail"]
    assert api.patch("/api/calendar/events/primary/x", as_=employee, json={}).status == 400
    for query in ("", "timeMin=2026-12-01T00:00:00Z", "timeMin=x&timeMax=y",
                  "timeMin=2026-12-02T00:00:00Z&timeMax=2026-12-01T00:00:00Z",
                  "timeMin=2026-01-01T00:00:00Z&timeMax=2028-01-01T00:00:00Z"):
        assert api.get(f"/api/calendar/events?{query}", as_=employee).status == 400, query


def _people(db):
    make_user(db, name="Bea Birthday", date_of_birth=date(1990, 12, 10))
    make_user(db, name="Leap Day", date_of_birth=date(1992, 2, 29))
    make_user(db, name="Ann Anniversary", start_date=date(2020, 12, 15))
    make_user(db, name="Nina New", start_date=date(2026, 12, 7))
    make_user(db, name="Gone", date_of_birth=date(1990, 12, 11), is_active=False)
    db.add_all([PublicHoliday(date=date(2026, 12, 25), name="Christmas Day"),
                PublicHoliday(date=date(2027, 1, 1), name="New Year's Day"),
                CultureEvent(title="End of year party", date=date(2026, 12, 18), status="confirmed"),
                CultureEvent(title="Hackathon", date=date(2026, 11, 30), end_date=date(2026, 12, 2), status="planned"),
                CultureEvent(title="Cancelled picnic", date=date(2026, 12, 5), status="cancelled")])
    db.flush()


def test_synthetic_events_in_range_with_colours_and_toggles(api, db, employee):
    _people(db)
    api.post("/api/calendar/events", as_=employee, json=_event())
    events = api.get(f"/api/calendar/events?{RANGE}", as_=employee).json["events"]
    synthetic = [(e["type"], e["summary"], e["start"]["date"], e["color"]) for e in events if e.get("synthetic")]
    assert synthetic == [
        ("culture_event", "Hackathon", "2026-11-30", "grape"),
        ("new_starter", "Nina New starts", "2026-12-07", "basil"),
        ("birthday", "Bea Birthday's birthday", "2026-12-10", "banana"),
        ("anniversary", "Ann Anniversary: 6 years at the company", "2026-12-15", "sage"),
        ("culture_event", "End of year party", "2026-12-18", "grape"),
        ("public_holiday", "Christmas Day", "2026-12-25", "tomato")]
    assert [e["summary"] for e in events if not e.get("synthetic")] == ["Planning"]
    assert all(e["synthetic"] is True for e in events if e.get("type"))
    feb = api.get("/api/calendar/events?timeMin=2027-02-01T00:00:00Z&timeMax=2027-03-01T00:00:00Z", as_=employee)
    assert [e["start"]["date"] for e in feb.json["events"] if e.get("type") == "birthday"] == ["2027-02-28"]

    assert api.put("/api/calendar/settings", as_=employee, json={
        "show_birthdays": False, "show_public_holidays": 0, "show_events": False}).json == {"ok": True}
    kinds = {e["type"] for e in api.get(f"/api/calendar/events?{RANGE}", as_=employee).json["events"] if e.get("type")}
    assert kinds == {"new_starter", "anniversary"}


def test_approved_leave_shows_as_synthetic_events(api, db, employee):
    from tests.areas.leave.factories import make_leave

    away = make_user(db, name="Lee Away")
    approved = make_leave(db, away, status="approved", start_date=date(2026, 11, 28), end_date=date(2026, 12, 2),
                          leave_type_name="Sick Leave", notes="flu")
    make_leave(db, away, status="pending_manager", start_date=date(2026, 12, 9), end_date=date(2026, 12, 9))
    make_leave(db, away, status="rejected", start_date=date(2026, 12, 10), end_date=date(2026, 12, 10))
    make_leave(db, away, status="approved", start_date=date(2027, 3, 1), end_date=date(2027, 3, 2))  # out of range
    make_leave(db, make_user(db, name="Left", is_active=False), status="approved", start_date=date(2026, 12, 4),
               end_date=date(2026, 12, 4))
    events = api.get(f"/api/calendar/events?{RANGE}", as_=employee).json["events"]
    leave = [e for e in events if e.get("type") == "leave"]
    assert [(e["id"], e["summary"], e["start"], e["end"], e["color"], e["user_id"]) for e in leave] == [
        (f"leave-{approved.id}", "Lee Away on leave", {"date": "2026-11-28"}, {"date": "2026-12-03"}, "peacock",
         away.id)]
    assert "Sick" not in str(leave) and "flu" not in str(leave)  # the type and notes are personal
    assert api.put("/api/calendar/settings", as_=employee, json={"show_leave": False}).json == {"ok": True}
    assert not [e for e in api.get(f"/api/calendar/events?{RANGE}", as_=employee).json["events"]
                if e.get("type") == "leave"]


def test_events_merge_costs_constant_statements(api, db, employee, count_queries):
    from tests.areas.leave.factories import make_leave

    def cost(n):
        for i in range(n):
            make_user(db, date_of_birth=date(1990, 12, 1 + i % 28), start_date=date(2019, 12, 1 + i % 28))
            db.add(PublicHoliday(date=date(2026, 12, 1 + i % 28), name=f"Holiday {i}"))
            db.add(CultureEvent(title=f"Event {i}", date=date(2026, 12, 1 + i % 28), status="confirmed"))
            make_leave(db, make_user(db), status="approved", start_date=date(2026, 12, 1 + i % 28),
                       end_date=date(2026, 12, 1 + i % 28))
        db.flush()
        with count_queries() as counter:
            answer = api.get(f"/api/calendar/events?{RANGE}", as_=employee)
        assert answer.status == 200
        return counter.count

    assert cost(5) == cost(100)


def test_settings_defaults_and_upsert(api, employee):
    assert api.get("/api/calendar/settings", as_=employee).json["settings"] == {
        "default_view": "month", "visible_calendar_ids": None, "show_birthdays": 1, "show_anniversaries": 1,
        "show_leave": 1, "show_public_holidays": 1, "show_new_starters": 1, "show_events": 1, "show_weekends": 0,
        "viewed_person_ids": None}
    assert api.put("/api/calendar/settings", as_=employee, json={
        "default_view": "week", "visible_calendar_ids": ["primary", "team"], "show_weekends": True}).json == {"ok": True}
    assert api.put("/api/calendar/settings", as_=employee, json={"show_leave": False}).json == {"ok": True}
    saved = api.get("/api/calendar/settings", as_=employee).json["settings"]
    assert (saved["default_view"], saved["visible_calendar_ids"], saved["show_weekends"], saved["show_leave"]) == (
        "week", '["primary", "team"]', 1, 0)
    for bad in ({"default_view": "year"}, {"show_weekends": "yes"}, {"visible_calendar_ids": "primary"},
                {"default_view": None}):
        assert api.put("/api/calendar/settings", as_=employee, json=bad).status == 400, bad


def test_places(api, db, employee, set_env):
    results = api.get("/api/calendar/places?q=sydney&tz=Australia/Sydney", as_=employee).json["results"]
    assert len(results) == 5 and all("Australia" in r["label"] for r in results)
    anywhere = api.get("/api/calendar/places?q=sydney", as_=employee).json["results"]
    assert any("United Kingdom" in r["label"] for r in anywhere) and len(anywhere) <= 5
    assert api.get("/api/calendar/places?q=Sydney%20Street&tz=Europe/London", as_=employee).json["results"] == [
        {"id": "W1008", "label": "Sydney Street, London SW3 6NU, United Kingdom"}]
    assert api.get("/api/calendar/places?q=s", as_=employee).status == 400
    assert api.get("/api/calendar/places", as_=employee).status == 400
    set_env(PLACES_MODE="off")  # cached: the same query is answered without the provider
    assert api.get("/api/calendar/places?q=SYDNEY&tz=Australia/Sydney", as_=employee).json["results"] == results
    assert api.get("/api/calendar/places?q=melbourne", as_=employee).status == 503


def test_public_holidays_and_culture_events_crud(api, db, exec_user, employee):
    created = api.post("/api/calendar/public-holidays", as_=exec_user, json={"date": "2026-12-26", "name": "Boxing Day"})
    assert created.status == 201
    holiday = created.json["public_holiday"]
    assert (holiday["date"], holiday["name"], holiday["region"]) == ("2026-12-26", "Boxing Day", None)
    api.post("/api/calendar/public-holidays", as_=exec_user, json={"date": "2027-01-26", "name": "Australia Day",
                                                                   "region": "AU"})
    assert [h["name"] for h in api.get("/api/calendar/public-holidays?year=2026", as_=employee).json["public_holidays"]] == [
        "Boxing Day"]
    path = f"/api/calendar/public-holidays/{holiday['id']}"
    assert api.put(path, as_=exec_user, json={"region": "NSW"}).json["public_holiday"]["region"] == "NSW"
    assert api.post("/api/calendar/public-holidays", as_=employee, json={"date": "2026-12-26", "name": "x"}).status == 403
    for bad in ({"name": "x"}, {"date": "2026-12-26"}, {"date": "26/12/2026", "name": "x"}):
        assert api.post("/api/calendar/public-holidays", as_=exec_user, json=bad).status == 400, bad
    assert api.delete(path, as_=exec_user).json == {"ok": True}
    assert api.put(path, as_=exec_user, json={"name": "x"}).status == 404

    event = api.post("/api/calendar/culture-events", as_=exec_user, json={
        "title": "Summer party", "date": "2026-12-18", "location": "Rooftop"}).json["culture_event"]
    assert (event["status"], event["created_by"]) == ("planned", exec_user.id)
    epath = f"/api/calendar/culture-events/{event['id']}"
    assert api.put(epath, as_=exec_user, json={"status": "confirmed"}).json["culture_event"]["status"] == "confirmed"
    assert api.put(epath, as_=exec_user, json={"end_date": "2026-12-01"}).status == 400
    assert api.put(epath, as_=exec_user, json={"status": "done"}).status == 400
    assert [e["id"] for e in api.get("/api/calendar/culture-events?status=confirmed", as_=employee).json[
        "culture_events"]] == [event["id"]]
    assert api.delete(epath, as_=employee).status == 403
    assert api.delete(epath, as_=exec_user).json == {"ok": True}


def test_invite_scan_notifies_once_and_never_after_a_response(api, db, employee):
    invitee, other = make_user(db, name="Ivy Invitee"), make_user(db, name="Otto")
    first = api.post("/api/calendar/events", as_=employee, json={
        "calendarId": "primary", "summary": "Kick-off", "start": {"dateTime": "2099-01-05T10:00:00Z"},
        "end": {"dateTime": "2099-01-05T11:00:00Z"}, "attendees": [{"email": invitee.email}, {"email": other.email}]})
    assert first.status == 201

    def invited(user):
        return db.scalar(select(func.count()).select_from(Notification).where(
            Notification.user_id == user.id, Notification.type == "meeting_invited"))

    # past the scan window: nothing yet
    assert scan_invites()["notified"] == 0
    soon = api.post("/api/calendar/events", as_=employee, json=_event(
        start={"dateTime": _in_days(2, 10)}, end={"dateTime": _in_days(2, 11)},
        attendees=[{"email": invitee.email}, {"email": other.email}])).json["event"]
    answered = api.post(f"/api/calendar/events/primary/{soon['id']}/respond", as_=other, json={"status": "declined"})
    assert answered.status == 200
    result = scan_invites()
    assert result["notified"] == 1 and (invited(invitee), invited(other), invited(employee)) == (1, 0, 0)
    again = scan_invites()
    assert again["notified"] == 0 and invited(invitee) == 1


def test_an_invitation_notice_says_when_in_the_organisations_time():
    """The meeting_invited body read the provider's raw start ("2099-01-05T10:00:00Z"); it is the start in
    ORG_TIMEZONE as a person reads it (outbound-text audit)."""
    from chalicelib.areas.calendar.jobs import _when
    from chalicelib.core.timeutil import org_zone

    moment = datetime(2099, 1, 5, 10, tzinfo=timezone.utc).astimezone(org_zone())
    assert _when({"start": {"dateTime": "2099-01-05T10:00:00Z"}}) == \
        f"{moment:%a} {moment.day} {moment:%b %Y}, {moment:%H:%M}"
    assert _when({"start": {"date": "2099-01-05"}}) == "Mon 5 Jan 2099, all day"
    assert _when({"start": {"dateTime": "not a time"}}) == "not a time"


def _in_days(days: int, hour: int) -> str:
    from datetime import datetime, timedelta, timezone

    moment = (datetime.now(timezone.utc) + timedelta(days=days)).replace(hour=hour, minute=0, second=0, microsecond=0)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_events_range_at_the_ends_of_time_is_a_400_not_a_500(api, employee):
    """decisions.md section 4 (a bad value is a 400, 500 never on purpose): a range near year 1 or 9999 used to
    overflow the organisation's time zone and the provider's time format."""
    for query in ("timeMin=0001-01-01T00:00:00Z&timeMax=0001-01-02T00:00:00Z",
                  "timeMin=9999-12-30T00:00:00Z&timeMax=9999-12-31T23:00:00Z",
                  "timeMin=1899-12-01T00:00:00Z&timeMax=1899-12-31T00:00:00Z"):
        answer = api.get(f"/api/calendar/events?{query}", as_=employee)
        assert answer.status == 400 and answer.json["details"], query
    assert api.get("/api/calendar/events?timeMin=1990-12-01T00:00:00Z&timeMax=1990-12-31T00:00:00Z",
                   as_=employee).status == 200


def test_events_calendar_ids_past_ten_are_a_400_not_cut(api, employee):
    """docs/decisions/calendar.md: `calendarIds` names at most 10 calendars. An eleventh used to be dropped without
    a word (200 without its events); it is a 400 naming calendarIds, as the other capped comma-separated filters."""
    made = api.post("/api/calendar/events", as_=employee, json=_event(calendarId="team", summary="Tenth"))
    assert made.status in (200, 201), made.json
    ten = [f"cal{n}" for n in range(1, 10)] + ["team"]
    refused = api.get(f"/api/calendar/events?{RANGE}&calendarIds={','.join(ten + ['cal11'])}", as_=employee)
    assert refused.status == 400 and [d["field"] for d in refused.json["details"]] == ["calendarIds"], refused.json
    for ids in (ten, ten + ["team", " ", "cal1"]):  # a repeated or blank id counts once or not at all
        answer = api.get(f"/api/calendar/events?{RANGE}&calendarIds={','.join(ids)}", as_=employee)
        # session 28: cal1 to cal9 are neither the caller's calendar nor the team's (test_own_calendars_s28.py)
        assert answer.status == 400 and [d["field"] for d in answer.json["details"]] == ["calendarIds"], answer.json


def test_events_answer_at_most_500(api, db, employee):
    """decisions.md section 4: the merged events (here 501 birthdays) answer the first 500 by start."""
    from chalicelib.core.ids import new_id
    from chalicelib.core.locks import insert_rows
    from chalicelib.core.models import User

    insert_rows(db, User, [{"id": new_id(), "email": f"born{n:03d}@cap.test", "name": f"Born {n:03d}",
                            "access_level": "employee", "is_active": True,
                            "date_of_birth": date(1990, 12, 1 + n // 20)} for n in range(501)])
    db.flush()
    events = api.get(f"/api/calendar/events?{RANGE}", as_=employee).json["events"]
    assert len(events) == 500
    assert events[0]["start"]["date"] == "2026-12-01" and events[-1]["start"]["date"] == "2026-12-25"


def test_a_provider_failure_answers_its_status_and_writes_nothing(api, db, employee, monkeypatch):
    """Respond and place search call the provider before they write: a failure (502 unreachable, 504 timeout)
    answers `{error, detail}` or `{error}` and leaves no invitation record, notification or cache row."""
    from chalicelib.areas.calendar.models import CalendarInvite, PlaceSearchCache
    from chalicelib.core.errors import BadGateway
    from chalicelib.providers.calendar.base import CalendarError
    from chalicelib.providers.calendar.sandbox import SandboxCalendar
    from chalicelib.providers.places.sandbox import SandboxPlaces

    other = make_user(db, name="Olga Other")
    event = api.post("/api/calendar/events", as_=employee, json=_event(attendees=[{"email": other.email}])).json["event"]

    def timeout(self, *args, **kwargs):
        raise CalendarError("Calendar provider did not answer in time", detail="timeout", status=504)

    monkeypatch.setattr(SandboxCalendar, "patch_event", timeout)
    failed = api.post(f"/api/calendar/events/primary/{event['id']}/respond", as_=other, json={"status": "accepted"})
    assert failed.status == 504 and set(failed.json) == {"error", "detail"}
    assert db.scalar(select(func.count()).select_from(CalendarInvite).where(CalendarInvite.user_id == other.id)) == 0
    assert db.scalar(select(func.count()).select_from(Notification).where(Notification.type == "meeting_response")) == 0

    def unreachable(self, query, *, country):
        raise BadGateway("Place search unreachable (ConnectionError)")

    monkeypatch.setattr(SandboxPlaces, "search", unreachable)
    refused = api.get("/api/calendar/places?q=sydney&tz=Australia/Sydney", as_=employee)
    assert refused.status == 502 and refused.json == {"error": "Place search unreachable (ConnectionError)"}
    assert db.scalar(select(func.count()).select_from(PlaceSearchCache)) == 0


def test_culture_event_ending_on_the_last_representable_day(api, db, exec_user, employee):
    """A culture event may run to 9999-12-31; every events range it overlaps showed it, and its exclusive end (the
    next day) overflowed: GET /api/calendar/events answered 500 for every range from its start on. Its end is the
    last representable day instead (docs/decisions/calendar.md)."""
    made = api.post("/api/calendar/culture-events", as_=exec_user, json={
        "title": "Forever", "date": "2026-12-20", "end_date": "9999-12-31", "status": "confirmed"})
    assert made.status == 201, made
    answer = api.get(f"/api/calendar/events?{RANGE}", as_=employee)
    assert answer.status == 200, answer
    forever = [e for e in answer.json["events"] if e.get("type") == "culture_event"]
    assert [(e["start"], e["end"]) for e in forever] == [({"date": "2026-12-20"}, {"date": "9999-12-31"})]


def test_events_are_ordered_by_their_start_instant_whatever_the_offset(api, employee, set_env):
    """docs/decisions/calendar.md, Events: the answer is ordered by start (an all-day date before that day's timed
    events). Events of several calendars or time zones carry other offsets: 10:00 at +11:00 (23:00 UTC the day
    before) starts before 23:30 UTC, though its text sorts after it."""
    set_env(ORG_TIMEZONE="Australia/Sydney")
    early = api.post("/api/calendar/events", as_=employee, json=_event(
        summary="Sydney morning", start={"dateTime": "2026-12-03T10:00:00+11:00"},
        end={"dateTime": "2026-12-03T10:30:00+11:00"})).json["event"]
    late = api.post("/api/calendar/events", as_=employee, json=_event(
        summary="UTC late evening", start={"dateTime": "2026-12-02T23:30:00Z"},
        end={"dateTime": "2026-12-03T00:30:00Z"})).json["event"]
    day = api.post("/api/calendar/events", as_=employee, json=_event(
        summary="All day", start={"date": "2026-12-03"}, end={"date": "2026-12-04"})).json["event"]
    events = api.get(f"/api/calendar/events?{RANGE}", as_=employee).json["events"]
    assert [e["id"] for e in events if not e.get("synthetic")] == [day["id"], early["id"], late["id"]]


def test_synthetic_events_end_with_the_range_whose_time_max_is_exclusive(api, db, employee, set_env):
    """A month view asks [the 1st 00:00, the next month's 1st 00:00) in local time: timeMax is exclusive (as
    Google's), so the next month's first day is not in the range and its synthetic events are not answered."""
    set_env(ORG_TIMEZONE="Australia/Sydney")
    db.add_all([PublicHoliday(date=date(2026, 12, 25), name="Christmas Day"),
                PublicHoliday(date=date(2027, 1, 1), name="New Year's Day")])
    make_user(db, name="Jan First", date_of_birth=date(1990, 1, 1))
    db.flush()
    month = "timeMin=2026-12-01T00:00:00%2B11:00&timeMax=2027-01-01T00:00:00%2B11:00"
    events = api.get(f"/api/calendar/events?{month}", as_=employee).json["events"]
    assert [e["summary"] for e in events if e.get("synthetic")] == ["Christmas Day"]
    january = "timeMin=2027-01-01T00:00:00%2B11:00&timeMax=2027-02-01T00:00:00%2B11:00"
    assert sorted(e["summary"] for e in api.get(f"/api/calendar/events?{january}", as_=employee).json["events"]
                  if e.get("synthetic")) == ["Jan First's birthday", "New Year's Day"]


def test_an_event_time_outside_the_representable_range_is_a_400_not_a_500(api, employee):
    """decisions.md section 4 (a bad value is a 400, 500 never on purpose): a dateTime whose offset moves it out of
    the years 1 to 9999 in UTC failed when the event was stored."""
    for moment in ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00"):
        created = api.post("/api/calendar/events", as_=employee, json=_event(
            start={"dateTime": moment}, end={"dateTime": moment}))
        assert created.status == 400 and created.json["details"][0]["field"] == "start.dateTime", (moment, created)
        moved = api.patch("/api/calendar/events/primary/x", as_=employee, json={"end": {"dateTime": moment}})
        assert moved.status == 400 and moved.json["details"][0]["field"] == "end.dateTime", (moment, moved)


def test_each_synthetic_kind_is_toggled_by_its_own_setting(api, db, employee):
    """Document 3, synthetic event types, each toggled by a setting: birthday (show_birthdays), anniversary
    (show_anniversaries), leave (show_leave), public_holiday (show_public_holidays), new_starter
    (show_new_starters), culture_event (show_events)."""
    from tests.areas.leave.factories import make_leave

    _people(db)
    make_leave(db, make_user(db, name="Lee Away"), status="approved", start_date=date(2026, 12, 9),
               end_date=date(2026, 12, 9))
    every = {"birthday", "anniversary", "leave", "public_holiday", "new_starter", "culture_event"}

    def kinds():
        return {e["type"] for e in api.get(f"/api/calendar/events?{RANGE}", as_=employee).json["events"]
                if e.get("synthetic")}

    assert kinds() == every
    for setting, kind in (("show_birthdays", "birthday"), ("show_anniversaries", "anniversary"),
                          ("show_leave", "leave"), ("show_public_holidays", "public_holiday"),
                          ("show_new_starters", "new_starter"), ("show_events", "culture_event")):
        assert api.put("/api/calendar/settings", as_=employee, json={setting: False}).json == {"ok": True}
        assert kinds() == every - {kind}, setting
        assert api.put("/api/calendar/settings", as_=employee, json={setting: True}).json == {"ok": True}


def test_an_events_range_longer_than_400_days_by_a_part_day_is_a_400(api, employee):
    """docs/decisions/calendar.md, Events: timeMin and timeMax at most 400 days apart. The length was compared in
    whole days, so 400 days and 12 hours passed (date audit)."""
    longer = api.get("/api/calendar/events?timeMin=2026-01-01T00:00:00Z&timeMax=2027-02-05T12:00:00Z", as_=employee)
    assert longer.status == 400 and longer.json["details"], longer
    assert "at most 400 days" in str(longer.json["details"])
    assert api.get("/api/calendar/events?timeMin=2026-01-01T00:00:00Z&timeMax=2027-02-05T00:00:00Z",
                   as_=employee).status == 200  # exactly 400 days


def test_events_range_within_the_years_1900_to_2200_in_any_time_zone(api, employee, set_env):
    """docs/decisions/calendar.md, Events: the years 1900 to 2200 bound the instants, in some time zone. They were
    the UTC years, so the first of January 1900 at +11:00 (1899 in UTC) and the exclusive end of 2200
    (2201-01-01T00:00Z) were refused (date audit)."""
    set_env(ORG_TIMEZONE="Australia/Sydney")
    for query in ("timeMin=1900-01-01T00:00:00%2B11:00&timeMax=1900-02-01T00:00:00%2B11:00",
                  "timeMin=1900-01-01T00:00:00%2B14:00&timeMax=1900-01-02T00:00:00Z",
                  "timeMin=2200-12-01T00:00:00Z&timeMax=2201-01-01T00:00:00Z",
                  "timeMin=2200-12-31T00:00:00-12:00&timeMax=2201-01-01T00:00:00-12:00"):
        answer = api.get(f"/api/calendar/events?{query}", as_=employee)
        assert answer.status == 200, (query, answer)
    for query in ("timeMin=1899-12-31T23:59:59%2B14:00&timeMax=1900-01-02T00:00:00Z",
                  "timeMin=2200-12-31T00:00:00Z&timeMax=2201-01-01T00:00:01-12:00"):
        answer = api.get(f"/api/calendar/events?{query}", as_=employee)
        assert answer.status == 400 and "between the years 1900 and 2200" in str(answer.json["details"]), query


def test_culture_events_of_a_year_are_those_overlapping_it(api, exec_user, employee):
    """docs/decisions/calendar.md, culture events: `year` lists the events overlapping the year. It filtered on the
    start date only, so an event from 28 December to 2 January was missing from the next year's list, though the
    events view of January showed it (date audit)."""
    def make(title, day, end=None):
        made = api.post("/api/calendar/culture-events", as_=exec_user, json={
            "title": title, "date": day, "end_date": end, "status": "confirmed"})
        assert made.status == 201, made
        return made.json["culture_event"]["id"]

    shutdown = make("Shutdown", "2026-12-28", "2027-01-02")
    march = make("Offsite", "2027-03-01")
    make("Earlier", "2026-06-01", "2026-12-31")
    make("Later", "2028-01-01")
    listed = {year: [e["id"] for e in api.get(f"/api/calendar/culture-events?year={year}", as_=employee).json[
        "culture_events"]] for year in (2026, 2027)}
    assert listed[2027] == [shutdown, march]  # by date, as before
    assert shutdown in listed[2026] and march not in listed[2026]


def test_lists_past_the_cap_keep_the_latest_dates(api, db, employee):
    """Without `year` the holiday and culture event lists grow every year; past the 500 cap they kept the oldest
    dates and cut the upcoming ones (paging audit). They keep the latest 500, in date order."""
    from datetime import timedelta

    first = date(2000, 1, 3)
    db.add_all([PublicHoliday(date=first + timedelta(days=7 * i), name=f"H{i:03d}") for i in range(500)])
    db.add_all([CultureEvent(title=f"E{i:03d}", date=first + timedelta(days=7 * i), status="planned")
                for i in range(500)])
    db.add_all([PublicHoliday(date=date(2027, 12, 25), name="Upcoming Christmas"),
                CultureEvent(title="Upcoming party", date=date(2027, 12, 17), status="planned")])
    db.flush()
    holidays = api.get("/api/calendar/public-holidays", as_=employee).json["public_holidays"]
    assert len(holidays) == 500 and holidays[-1]["name"] == "Upcoming Christmas" and holidays[0]["name"] == "H001"
    assert [h["date"] for h in holidays] == sorted(h["date"] for h in holidays)
    events = api.get("/api/calendar/culture-events", as_=employee).json["culture_events"]
    assert len(events) == 500 and events[-1]["title"] == "Upcoming party" and events[0]["title"] == "E001"
