"""Session 32: an event the sandbox calendar inserts, changes or deletes is Google's doing, kept whatever becomes of
the caller's transaction (the sandbox wrote it in the caller's, so a request failing after Google answered undid
it: an event made for a request that then failed was gone from the sandbox, kept by Google)."""
import pytest

from chalicelib.core.db import unit_of_work
from chalicelib.core.errors import Conflict
from chalicelib.providers.calendar import CalendarError
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from chalicelib.providers.calendar.sandbox import SandboxCalendar

OWNER = "owner@agency.test"
EVENT = {"summary": "Planning", "start": {"dateTime": "2026-12-07T09:00:00+11:00"},
         "end": {"dateTime": "2026-12-07T10:00:00+11:00"}}


def _failing(call):
    with pytest.raises(Conflict), unit_of_work() as uow:
        call(SandboxCalendar(db=uow.session))
        raise Conflict("The request failed after the calendar answered")


def _held(db, event_id):
    db.expire_all()
    return db.get(SandboxCalendarEvent, event_id)


def test_an_inserted_event_is_kept_when_the_callers_transaction_rolls_back(db):
    _failing(lambda calendar: calendar.insert_event(OWNER, "team", {**EVENT, "id": "s32event0001"}))
    assert _held(db, "s32event0001") is not None
    with pytest.raises(CalendarError) as refused:  # a retry meets Google's 409 duplicate
        SandboxCalendar(db=db).insert_event(OWNER, "team", {**EVENT, "id": "s32event0001"})
    assert refused.value.status == 409 and refused.value.reason == "duplicate"


def test_an_update_is_kept_when_the_callers_transaction_rolls_back(db):
    SandboxCalendar(db=db).insert_event(OWNER, "team", {**EVENT, "id": "s32event0002"})
    _failing(lambda calendar: calendar.update_event(OWNER, "team", "s32event0002", {**EVENT, "summary": "Moved"}))
    assert _held(db, "s32event0002").event["summary"] == "Moved"


def test_a_deleted_event_stays_deleted_when_the_callers_transaction_rolls_back(db):
    SandboxCalendar(db=db).insert_event(OWNER, "team", {**EVENT, "id": "s32event0003"})
    _failing(lambda calendar: calendar.delete_event(OWNER, "team", "s32event0003"))
    assert _held(db, "s32event0003") is None


def _many(db, count):
    """`count` events on the team calendar on 2026-12-07, written straight into the sandbox's table."""
    from datetime import datetime, timezone

    from sqlalchemy import insert

    start = datetime(2026, 12, 6, 22, 0, tzinfo=timezone.utc)
    db.execute(insert(SandboxCalendarEvent), [
        {"id": f"s32many{index:06d}", "calendar_id": "team", "organizer_email": OWNER, "attendee_emails": "",
         "start_at": start, "end_at": start, "event": {"id": f"s32many{index:06d}", "summary": "Many"}}
        for index in range(count)])


def test_a_range_is_listed_whole_up_to_what_the_live_adapter_reads(db):
    """Live reads 20 pages of 250 events (5000); the sandbox cut the range at 2500 and answered that as whole."""
    _many(db, 2501)
    events = SandboxCalendar(db=db).list_events(OWNER, "team", time_min="2026-12-06T00:00:00Z",
                                                time_max="2026-12-08T00:00:00Z")
    assert len(events) == 2501


def test_a_range_past_what_the_live_adapter_reads_is_a_502_not_a_partial_list(db):
    _many(db, 5001)
    with pytest.raises(CalendarError) as refused:
        SandboxCalendar(db=db).list_events(OWNER, "team", time_min="2026-12-06T00:00:00Z",
                                           time_max="2026-12-08T00:00:00Z")
    assert refused.value.status == 502 and "too many pages" in refused.value.message
