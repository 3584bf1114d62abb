"""Calendar: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The merged events list is tested in test_calendar.py."""
from datetime import date

from chalicelib.areas.calendar.models import CultureEvent, PublicHoliday
from chalicelib.core.locks import insert_rows
from tests.factories import assert_constant, make_user


def test_public_holidays(api, db, exec_user, count_queries):
    def grow(n):
        insert_rows(db, PublicHoliday, [{"date": date(2031, 1 + i % 12, 1 + i % 28), "name": f"H{i}",
                                         "region": "NSW"} for i in range(n)])

    assert_constant(api, count_queries, exec_user, "/api/calendar/public-holidays?year=2031", grow,
                    lambda b: len(b["public_holidays"]))


def test_culture_events(api, db, exec_user, count_queries):
    def grow(n):
        insert_rows(db, CultureEvent, [{"title": f"E{i}", "date": date(2031, 1 + i % 12, 1 + i % 28),
                                        "created_by": make_user(db).id} for i in range(n)])

    assert_constant(api, count_queries, exec_user, "/api/calendar/culture-events?year=2031", grow,
                    lambda b: len(b["culture_events"]))
