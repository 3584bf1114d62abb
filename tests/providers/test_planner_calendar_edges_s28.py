"""The planner's booking lookup at the calendar's first and last day (session 28's dates audit): it asked for the day
before a leave's start and the day after its end, which overflowed (a 500 on every retry and reversal) for a leave
from 0001-01-01 or to 9999-12-31."""
from urllib.parse import parse_qs, urlparse

import responses

from chalicelib.providers.planner.live import DEFAULT_BASE_URL, ProductivePlanner


@responses.activate
def test_find_booking_of_a_leave_at_the_calendars_ends_asks_within_them():
    responses.get(f"{DEFAULT_BASE_URL}/bookings", json={"data": [], "meta": {"total_pages": 1}})
    planner = ProductivePlanner(api_token="PT", organization_id="4242")
    assert planner.find_booking(person_id="11", started_on="0001-01-01", ended_on="9999-12-31",
                                note="Leave: Annual Leave (ref r-1)") is None
    query = parse_qs(urlparse(responses.calls[0].request.url).query)
    assert query["filter[after]"] == ["0001-01-01"] and query["filter[before]"] == ["9999-12-31"]
