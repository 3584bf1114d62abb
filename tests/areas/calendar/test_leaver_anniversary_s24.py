"""Session 24: synthetic anniversaries and birthdays stop at a person's end_date (account still active)."""
from datetime import date

from tests.factories import make_user

RANGE = "timeMin=2026-11-23T00:00:00Z&timeMax=2027-01-04T00:00:00Z"


def _people(api, employee):
    events = api.get(f"/api/calendar/events?{RANGE}", as_=employee).json["events"]
    return [(e["type"], e["summary"], e["start"]["date"]) for e in events if e.get("type") in ("anniversary", "birthday")]


def test_no_anniversary_or_birthday_after_the_end_date(api, db):
    employee = make_user(db, name="Emma Employee")
    # Left in 2021, account still active: neither "8 years at the company" nor a birthday in 2026.
    make_user(db, name="Lou Leaver", start_date=date(2018, 12, 15), date_of_birth=date(1990, 12, 1),
              end_date=date(2021, 6, 30))
    # Leaves on 20 December 2026: the 1 December events are shown, the 28 December ones are not.
    make_user(db, name="Mia Midway", start_date=date(2019, 12, 1), date_of_birth=date(1985, 12, 28),
              end_date=date(2026, 12, 20))
    make_user(db, name="Mo Midway", start_date=date(2020, 12, 28), date_of_birth=date(1985, 12, 1),
              end_date=date(2026, 12, 20))
    # Leaves on the day itself: still shown (on or before the end date).
    make_user(db, name="Dee Dayof", start_date=date(2016, 12, 10), date_of_birth=date(1991, 12, 10),
              end_date=date(2026, 12, 10))
    # No end date: always.
    make_user(db, name="Stay Put", start_date=date(2017, 12, 5), date_of_birth=date(1980, 12, 6))
    shown = sorted(_people(api, employee))
    assert shown == sorted([
        ("anniversary", "Mia Midway: 7 years at the company", "2026-12-01"),
        ("birthday", "Mo Midway's birthday", "2026-12-01"),
        ("anniversary", "Dee Dayof: 10 years at the company", "2026-12-10"),
        ("birthday", "Dee Dayof's birthday", "2026-12-10"),
        ("anniversary", "Stay Put: 9 years at the company", "2026-12-05"),
        ("birthday", "Stay Put's birthday", "2026-12-06")]), shown
