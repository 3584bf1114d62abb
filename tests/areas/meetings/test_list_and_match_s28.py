"""Meetings (session 28): a date range that ends before it starts is a 400 naming date_to, as the time entries'
is; and a meeting matched to a deal, company or contact names it in `match.entity_name` only to a reader who may
view the `deals` tool (the name is null otherwise, as for a project the reader cannot see)."""
import pytest

from tests.areas.deals.factories import make_company, make_contact, make_deal
from tests.areas.meetings.factories import make_meeting
from tests.factories import grant, make_user


@pytest.mark.parametrize("date_from, date_to", [
    ("2026-03-06", "2026-03-05"),
    ("2026-03-05T12:00:00Z", "2026-03-05T11:59:59Z"),
    ("2026-03-10T00:00:00Z", "2026-03-05"),
])
def test_a_date_range_ending_before_it_starts_is_refused_naming_date_to(api, exec_user, date_from, date_to):
    answer = api.get(f"/api/meetings?date_from={date_from}&date_to={date_to}", as_=exec_user)
    assert answer.status == 400, answer
    assert [detail["field"] for detail in answer.json["details"]] == ["date_to"]


@pytest.mark.parametrize("date_from, date_to", [
    ("2026-03-05", "2026-03-05"),
    ("2026-03-05T12:00:00Z", "2026-03-05T12:00:00Z"),
    ("2026-03-05T12:00:00Z", "2026-03-05"),
])
def test_a_range_of_one_day_or_one_instant_is_answered(api, exec_user, date_from, date_to):
    answer = api.get(f"/api/meetings?date_from={date_from}&date_to={date_to}", as_=exec_user)
    assert answer.status == 200, answer


def _matched(db, kind, attendees):
    record, name = {
        "deal": lambda: (make_deal(db, title="Secret merger"), "Secret merger"),
        "company": lambda: (make_company(db, name="Secret merger Ltd"), "Secret merger Ltd"),
        "contact": lambda: (make_contact(db, first_name="Secret", last_name="Merger"), "Secret Merger"),
    }[kind]()
    return make_meeting(db, attendees=attendees, entity_type=kind, entity_id=record.id), record, name


@pytest.mark.parametrize("kind", ["deal", "company", "contact"])
def test_the_match_does_not_name_a_record_of_a_tool_the_reader_may_not_view(api, db, kind):
    attendee = make_user(db)
    grant(db, attendee, "meetings", "view")
    grant(db, attendee, "deals", "none")  # an override: this attendee may not view deals, companies or contacts
    meeting, record, name = _matched(db, kind, [attendee])
    answer = api.get(f"/api/meetings/{meeting.id}", as_=attendee)
    assert answer.status == 200, answer
    assert answer.json["meeting"]["match"] == {"entity_type": kind, "entity_id": record.id, "entity_name": None}
    assert name not in str(answer.json)


@pytest.mark.parametrize("kind", ["deal", "company", "contact"])
def test_the_match_names_the_record_to_a_reader_who_may_view_deals(api, db, kind):
    attendee = make_user(db)
    grant(db, attendee, "meetings", "view")
    grant(db, attendee, "deals", "view")
    meeting, _, name = _matched(db, kind, [attendee])
    answer = api.get(f"/api/meetings/{meeting.id}", as_=attendee)
    assert answer.status == 200, answer
    assert answer.json["meeting"]["match"]["entity_name"] == name
