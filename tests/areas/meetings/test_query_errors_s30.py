"""Session 30 (audit: the same situation answered the same way). An unreadable query value is a 400 naming the
parameter, in every list route. The meetings list's date_from and date_to (a date or a timestamp) named pydantic's
two union branches instead: `date_from.function-before[_calendar_date(), nullable[date]]` and
`date_from.function-after[_utc_timestamp(), ...]`, which no client can match to its parameter."""
import pytest

from tests.factories import grant, make_user


@pytest.mark.parametrize("name", ["date_from", "date_to"])
@pytest.mark.parametrize("value", ["notadate", "2026-13-45", "2026-02-30T10:00:00Z"])
def test_an_unreadable_date_is_a_400_naming_the_parameter(api, db, name, value):
    reader = make_user(db, access_level="employee")
    grant(db, reader, "meetings", "view")
    response = api.get(f"/api/meetings?{name}={value}", as_=reader)
    assert response.status == 400, response
    assert [detail["field"] for detail in response.json["details"]] == [name]
    assert "date" in response.json["details"][0]["message"]


@pytest.mark.parametrize("value", ["2026-03-05", "2026-03-05T10:00:00Z", "2026-03-05T10:00:00%2B11:00"])
def test_a_date_or_a_timestamp_is_still_read(api, db, value):
    reader = make_user(db, access_level="employee")
    grant(db, reader, "meetings", "view")
    response = api.get(f"/api/meetings?date_from={value}", as_=reader)
    assert response.status == 200, response
