"""Calendar races against a real HTTP server on Postgres (the server and helpers of test_concurrency.py): a culture
event change that waited for another transaction moving the event's date checks its end_date against the date
that transaction committed, so the two changes never leave an end_date before the date."""
from __future__ import annotations

import secrets
import threading
import time
from datetime import date

from sqlalchemy import select, update

from tests.concurrency.test_concurrency import _call, _token
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
    answers = []
    with sessions() as other:  # another change moving the event a week later, holding its row until it commits
        other.execute(update(CultureEvent).where(CultureEvent.id == event.id)
                      .values(date=date(2026, 6, 8), end_date=date(2026, 6, 10)))
        request = threading.Thread(target=lambda: answers.append(
            _call(base, "PUT", f"/api/calendar/culture-events/{event.id}", _token(executive),
                  {"end_date": "2026-06-02"})))  # after the date it read, before the date being committed
        request.start()
        time.sleep(1.0)  # the request has read the event and waits on its row
        assert request.is_alive()
        other.commit()
    request.join(timeout=20)
    [(status, body)] = answers
    assert status == 400, body
    with sessions() as db:
        stored = db.execute(select(CultureEvent.date, CultureEvent.end_date).where(CultureEvent.id == event.id)).one()
    assert tuple(stored) == (date(2026, 6, 8), date(2026, 6, 10))
