"""Session 28 (dates audit): an events range without an offset is read in ORG_TIMEZONE, as an event time without
one is; birthdays fall only after the person was born and once they have started."""
from datetime import date

from tests.factories import grant, make_user


def _birthdays(api, user, window):
    answer = api.get(f"/api/calendar/events?{window}", as_=user)
    assert answer.status == 200, answer
    return [(e["summary"], e["start"]["date"]) for e in answer.json["events"] if e.get("type") == "birthday"]


def test_no_birthday_before_the_person_was_born(api, db):
    viewer = make_user(db, name="Vera Viewer")
    make_user(db, name="Young Yuri", date_of_birth=date(2001, 6, 15))
    assert _birthdays(api, viewer, "timeMin=1999-06-01T00:00:00Z&timeMax=1999-07-01T00:00:00Z") == []
    # the day of birth is no birthday either; the first is a year later
    assert _birthdays(api, viewer, "timeMin=2001-06-01T00:00:00Z&timeMax=2001-07-01T00:00:00Z") == []
    assert _birthdays(api, viewer, "timeMin=2002-06-01T00:00:00Z&timeMax=2002-07-01T00:00:00Z") == [
        ("Young Yuri's birthday", "2002-06-15")]


def test_no_birthday_before_the_person_starts(api, db):
    """The mirror of the leavers' cut (session 24: the calendar is the company's): a hire whose account exists before
    their start date had their birthday on the company calendar weeks before they joined."""
    viewer = make_user(db, name="Vera Viewer")
    make_user(db, name="Nina Newhire", date_of_birth=date(1995, 12, 5), start_date=date(2027, 1, 11))
    assert _birthdays(api, viewer, "timeMin=2026-11-30T13:00:00Z&timeMax=2026-12-31T13:00:00Z") == []
    assert _birthdays(api, viewer, "timeMin=2027-11-30T13:00:00Z&timeMax=2027-12-31T13:00:00Z") == [
        ("Nina Newhire's birthday", "2027-12-05")]


def test_a_range_without_offsets_is_read_in_the_organisations_zone_as_event_times_are(api, db):
    """A dateTime without an offset is a wall time of ORG_TIMEZONE (Australia/Sydney in the tests; session 18); the
    range's timeMin/timeMax without one were read as UTC: "11 December" was 11:00 on the 11th to 11:00 on the 12th in
    Sydney, missing that day's 09:00 stand-up and showing the 12th's birthday."""
    viewer = make_user(db, name="Vera Viewer")
    grant(db, viewer, "calendar", "update")
    made = api.post("/api/calendar/events", as_=viewer, json={
        "calendarId": "primary", "summary": "Stand-up", "start": {"dateTime": "2026-12-11T09:00:00"},
        "end": {"dateTime": "2026-12-11T09:15:00"}})
    assert made.status == 201, made
    make_user(db, name="Twelve Tess", date_of_birth=date(1990, 12, 12), start_date=date(2020, 1, 6))
    answer = api.get("/api/calendar/events?timeMin=2026-12-11T00:00:00&timeMax=2026-12-12T00:00:00", as_=viewer)
    assert answer.status == 200, answer
    summaries = [e["summary"] for e in answer.json["events"]]
    assert "Stand-up" in summaries, summaries
    assert "Twelve Tess's birthday" not in summaries, summaries
