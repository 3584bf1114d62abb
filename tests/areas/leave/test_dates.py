"""Dates of leave: the planner booking spreads the request's hours over its working days, which leave out weekends
and the public holidays of the requester's region (docs/decisions/leave.md, Integrations)."""
from datetime import date

import pytest
from sqlalchemy import select

from chalicelib.areas.calendar.models import PublicHoliday
from chalicelib.providers.payroll.sandbox import LEAVE_TYPES
from tests.areas.leave.factories import mapped_team


@pytest.fixture
def people(db):
    return mapped_team(db, location="NSW")


def _approved_booking_hours(api, db, people, start, end, total_hours=None) -> float:
    from chalicelib.providers.planner.models import PlannerSandboxBooking

    body = {"leave_type_id": LEAVE_TYPES[0]["id"], "leave_type_name": "Annual Leave", "start_date": start,
            "end_date": end, "total_hours": total_hours}
    created = api.post("/api/leave/requests", as_=people["employee"], json=body)
    assert created.status == 201, created
    path = f"/api/leave/requests/{created.json['request']['id']}"
    for _ in range(2):
        assert api.post(f"{path}/approve", as_=people["exec"]).status == 200
    request = api.get(path, as_=people["exec"]).json["request"]
    assert request["planner_booking_id"], request["integration_errors"]
    booking = db.scalar(select(PlannerSandboxBooking).where(PlannerSandboxBooking.id == request["planner_booking_id"]))
    return booking.minutes_per_day / 60


def test_public_holidays_are_not_working_days_of_the_booking(api, db, people):
    db.add_all([PublicHoliday(date=date(2026, 12, 25), name="Christmas Day"),
                PublicHoliday(date=date(2026, 12, 28), name="Boxing Day (observed)", region="nsw"),
                PublicHoliday(date=date(2026, 12, 29), name="Another state's day", region="VIC")])
    db.flush()
    # Thu 24 to Tue 29 December: Thu, Fri (Christmas), Mon (NSW holiday), Tue: two working days for a NSW person
    assert _approved_booking_hours(api, db, people, "2026-12-24", "2026-12-29", total_hours=15.2) == 7.6


def test_a_request_across_the_new_year_counts_the_weekdays_of_both_years(api, db, people):
    db.add(PublicHoliday(date=date(2027, 1, 1), name="New Year's Day"))
    db.flush()
    # Wed 30 December 2026 to Tue 5 January 2027: Wed, Thu, (Fri holiday), Mon, Tue: four working days
    assert _approved_booking_hours(api, db, people, "2026-12-30", "2027-01-05", total_hours=30.4) == 7.6


def test_the_time_a_day_is_exact_and_rounded_up_to_the_minute(api, db, people):
    # 2.5 hours over Mon 4 to Thu 7 May is 37.5 minutes a day: 38, never 37 (round(0.625, 2) in binary floating
    # point is 0.62 hours, a booking 2 minutes short of the request)
    assert round(_approved_booking_hours(api, db, people, "2026-05-04", "2026-05-07", total_hours=2.5) * 60) == 38


def test_the_booking_is_never_short_of_the_request(api, db, people):
    # 1.1 hours (66 minutes) over Mon 4 to Fri 8 May is 13.2 minutes a day: 14 (70 minutes); 13 would book 65
    minutes = _approved_booking_hours(api, db, people, "2026-05-04", "2026-05-08", total_hours=1.1) * 60
    assert round(minutes) == 14 and round(minutes) * 5 >= 66
