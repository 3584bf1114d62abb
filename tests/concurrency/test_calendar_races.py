"""Calendar races against a real HTTP server on Postgres (the server and helpers of test_concurrency.py): a culture
event change that waited for another transaction moving the event's date checks its end_date against the date
that transaction committed, so the two changes never leave an end_date before the date."""
from __future__ import annotations

import secrets
from datetime import date

from sqlalchemy import insert, select, update

from tests.concurrency.test_concurrency import _call, _token, while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def test_an_end_date_change_that_waited_for_a_date_change_is_checked_against_it(live):
    from chalicelib.areas.calendar.models import CultureEvent
    from tests.factories import make_user

    base, sessions = live
    with sessions() as db:
        executive = make_user(db, access_level="executive", email=f"exec-{secrets.token_hex(4)}@agency.test")
        event = CultureEvent(title="Offsite", date=date(2026, 6, 1), end_date=date(2026, 6, 3), status="planned")
        db.add(event)
        db.commit()
    # another change moving the event a week later, holding its row until it commits; the request's end date is
    # after the date it read, before the date being committed
    status, body = while_held(sessions, update(CultureEvent).where(CultureEvent.id == event.id)
                              .values(date=date(2026, 6, 8), end_date=date(2026, 6, 10)),
                              lambda: _call(base, "PUT", f"/api/calendar/culture-events/{event.id}", _token(executive),
                                            {"end_date": "2026-06-02"}))
    assert status == 400, body
    with sessions() as db:
        stored = db.execute(select(CultureEvent.date, CultureEvent.end_date).where(CultureEvent.id == event.id)).one()
    assert tuple(stored) == (date(2026, 6, 8), date(2026, 6, 10))


def test_an_invite_scan_that_meets_a_response_being_recorded_still_notifies_the_others(live, db_connection):
    """The invite scan reads which invitations it has seen, then records the new ones. A response recorded between
    the two (the respond endpoint records its invitation without the scan's lock) made the scan's INSERT collide:
    the whole run failed and nobody was notified. Now the collision is skipped and the others are notified."""
    from datetime import datetime, timedelta, timezone

    from chalicelib.areas.calendar.jobs import scan_invites
    from chalicelib.areas.calendar.models import CalendarInvite
    from chalicelib.core import db as core_db
    from chalicelib.core.notify import Notification
    from tests.factories import grant, make_user

    base, sessions = live
    with sessions() as db:
        organiser = make_user(db, access_level="employee", email=f"org-{secrets.token_hex(4)}@agency.test")
        grant(db, organiser, "calendar", "update")
        invitees = [make_user(db, email=f"inv{n}-{secrets.token_hex(4)}@agency.test") for n in range(2)]
        db.commit()
    start = (datetime.now(timezone.utc) + timedelta(days=2)).replace(minute=0, second=0, microsecond=0)
    status, made = _call(base, "POST", "/api/calendar/events", _token(organiser), {
        "calendarId": "primary", "summary": "Kick-off", "start": {"dateTime": start.strftime("%Y-%m-%dT%H:%M:%SZ")},
        "end": {"dateTime": (start + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")},
        "attendees": [{"email": user.email} for user in invitees]})
    assert status == 201, made
    event_id = made["event"]["id"]
    connection = sessions.kw["bind"].connect()
    transaction = connection.begin()
    core_db.override_bind(connection)  # the scan runs here, on the server's database
    try:
        # the first invitee's response, being recorded while the scan runs: the scan has read what it has seen
        # and waits on the response's key
        outcome = while_held(sessions, insert(CalendarInvite).values(
            user_id=invitees[0].id, event_id=event_id, responded_at=datetime.now(timezone.utc), response="accepted"),
            scan_invites, wait=1.5)
        assert isinstance(outcome, dict), outcome
        transaction.commit()
    finally:
        core_db.override_bind(db_connection)
        connection.close()
    with sessions() as db:
        notified = set(db.scalars(select(Notification.user_id).where(
            Notification.type == "meeting_invited", Notification.user_id.in_([u.id for u in invitees]))))
    assert notified == {invitees[1].id}  # the one who answered is not told of it
