"""Session 32 (the same thing written two ways): a public holiday falls to the requester whose `location` is its
region "case and spaces aside" (calendar's public_holiday_dates). The region and the location are both typed by
staff: one spelled with a doubled space, or an accent composed in one and decomposed in the other (NFC "Î" against
NFD "I" + U+0302), names the same region, and the holiday is not a working day of the planner booking."""
import pytest

from tests.areas.leave.factories import mapped_team
from tests.areas.leave.test_dates import _approved_booking_hours


@pytest.mark.parametrize("location, region", [
    ("New South Wales", "New  South Wales "),            # a doubled space inside
    ("\u00cele-de-France", "I\u0302le-de-France"),       # NFC against NFD
    ("\u00eele-de-france", "I\u0302LE-DE-FRANCE"),       # and the case as well
])
def test_a_holiday_of_the_same_region_spelled_otherwise_is_not_a_working_day(api, db, location, region):
    people = mapped_team(db, location=location)
    answer = api.post("/api/calendar/public-holidays", as_=people["exec"],
                      json={"date": "2026-05-05", "name": "Local show day", "region": region})
    assert answer.status == 201, answer.json
    # Mon 4 to Wed 6 May with the Tuesday a holiday of the requester's region: two working days of 7.6 hours
    assert _approved_booking_hours(api, db, people, "2026-05-04", "2026-05-06", total_hours=15.2) == 7.6


def test_a_holiday_of_another_region_is_still_a_working_day(api, db):
    people = mapped_team(db, location="New South Wales")
    answer = api.post("/api/calendar/public-holidays", as_=people["exec"],
                      json={"date": "2026-05-05", "name": "Local show day", "region": "New  South Walesx"})
    assert answer.status == 201, answer.json
    # three working days: 15.2 hours is 304 minutes a day
    assert round(_approved_booking_hours(api, db, people, "2026-05-04", "2026-05-06", total_hours=15.2) * 60) == 304
