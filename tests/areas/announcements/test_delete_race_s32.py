"""Session 32 (audit: a provider sequence that fails halfway), the delete's side of a distribution still answering.

A distribution calls the calendar with no transaction open, then takes the announcement's row (FOR UPDATE) and
writes its rows, the team calendar event's among them. The delete read which events to remove (the distribution rows
naming the calendar) before it took the row, in its own earlier snapshot: a distribution that committed its rows
while the delete waited for the row was not seen; its rows went with the cascade and its event stayed on the team
calendar for good, named by no row. Now the delete takes the announcement's row first and reads the rows after it,
so it waits for the distribution's commit and removes the event it recorded.

Against the real server of tests/concurrency (each request commits; Postgres only)."""
from __future__ import annotations

import secrets

from sqlalchemy import select, text

from chalicelib.areas.announcements.service import calendar_event_id
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from tests.areas.announcements.factories import make_announcement
from tests.concurrency.conftest import live  # noqa: F401 - the real server the race below needs (Postgres only)
from tests.concurrency.test_concurrency import _call, _token, executive, pytestmark, while_held  # noqa: F401


def test_a_delete_waiting_on_a_distribution_removes_the_event_it_recorded(live):  # noqa: F811
    from chalicelib.providers.calendar.sandbox import SandboxCalendar

    base, sessions = live
    user = executive(sessions)
    with sessions() as db:
        announcement = make_announcement(db, author_id=user.id, title=f"Town hall {secrets.token_hex(4)}")
        db.commit()
    event_id = calendar_event_id(announcement.id)
    with sessions() as db:  # the event the distribution made on the team calendar (Google holds it: committed)
        SandboxCalendar(db=db).insert_event(user.email, "team", {
            "id": event_id, "summary": announcement.title, "start": {"date": "2026-12-04"},
            "end": {"date": "2026-12-05"}})
        db.commit()
    # the distribution's end: the announcement's row taken, its calendar row written, not yet committed
    record = [text("SELECT id FROM announcements WHERE id = :id FOR UPDATE").bindparams(id=announcement.id),
              text("INSERT INTO announcement_distributions (id, announcement_id, channel, status, external_id, "
                   "sent_by, sent_at) VALUES (:row, :id, 'calendar', 'sent', :event, :user, now())")
              .bindparams(row=secrets.token_hex(16), id=announcement.id, event=event_id, user=user.id)]
    status, body = while_held(sessions, record, lambda: _call(
        base, "DELETE", f"/api/announcements/{announcement.id}", _token(user)))
    assert (status, body) == (200, {"ok": True}), body
    with sessions() as db:
        left = db.scalar(select(SandboxCalendarEvent.id).where(SandboxCalendarEvent.id == event_id))
    assert left is None, "the event the distribution recorded while the delete waited is still on the team calendar"
