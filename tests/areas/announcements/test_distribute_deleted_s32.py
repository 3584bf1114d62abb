"""Session 32 (audit: a provider sequence that fails halfway). A distribution calls the providers with no
transaction open, so the announcement may be deleted while they answer. The delete removes the announcement's team
calendar event only when a distribution row names the calendar (session 27), and the distribution's own rows are
never written on an announcement gone: an event the distribution made then stayed on the team calendar for good,
for an announcement that no longer exists, with no row anywhere naming it. Now the distribution removes it (after
its commit) when it finds the announcement gone."""
from __future__ import annotations

from sqlalchemy import delete, select

from chalicelib.areas.announcements.models import Announcement
from chalicelib.areas.announcements.service import calendar_event_id
from chalicelib.providers.calendar.models import SandboxCalendarEvent
from tests.areas.announcements.factories import make_announcement


def _team_events(db):
    db.expire_all()
    return sorted(db.scalars(select(SandboxCalendarEvent.id).where(SandboxCalendarEvent.calendar_id == "team")))


def test_an_event_made_for_an_announcement_deleted_meanwhile_leaves_the_team_calendar(api, db, exec_user,
                                                                                        monkeypatch):
    from chalicelib.providers.calendar.sandbox import SandboxCalendar

    announcement = make_announcement(db, author_id=exec_user.id, title="Town hall")
    kept = make_announcement(db, author_id=exec_user.id, title="Offsite")
    insert_event = SandboxCalendar.insert_event

    def deleted_meanwhile(self, user_email, calendar_id, event):
        made = insert_event(self, user_email, calendar_id, event)
        if event["id"] == calendar_event_id(announcement.id):
            # the delete committed while the calendar answered: no distribution row named the calendar yet, so it
            # had no event to remove
            db.execute(delete(Announcement).where(Announcement.id == announcement.id))
        return made

    monkeypatch.setattr(SandboxCalendar, "insert_event", deleted_meanwhile)
    answer = api.post(f"/api/announcements/{announcement.id}/distribute", as_=exec_user,
                      json={"chat": True, "calendar": {"date": "2026-12-04"}})
    assert answer.status == 200, answer
    assert {channel: result["status"] for channel, result in answer.json["results"].items()} == {
        "chat": "sent", "calendar": "sent"}
    theirs = api.post(f"/api/announcements/{kept.id}/distribute", as_=exec_user,
                      json={"calendar": {"date": "2026-12-04"}})
    assert theirs.status == 200, theirs
    assert _team_events(db) == [calendar_event_id(kept.id)], \
        "the event of the announcement deleted meanwhile is still on the team calendar"


def test_an_event_whose_answer_was_lost_for_an_announcement_deleted_meanwhile_is_removed_too(api, db, exec_user,
                                                                                               monkeypatch):
    """The calendar's answer lost (a timeout: the channel `failed`) may stand for an event Google made: its derived id
    is removed as well, as the delete removes it."""
    from chalicelib.core.errors import GatewayTimeout
    from chalicelib.providers.calendar.sandbox import SandboxCalendar

    from chalicelib.areas.announcements import service

    announcement = make_announcement(db, author_id=exec_user.id)
    event = {"id": calendar_event_id(announcement.id), "summary": announcement.title,
             "start": {"date": "2026-12-04"}, "end": {"date": "2026-12-05"}}
    # Google made the event and its answer was lost (the sandbox's own write would be rolled back with the channel's
    # savepoint, so it is made beforehand, as the session 27 test of a lost answer makes it afterwards)
    SandboxCalendar(db=db).insert_event(exec_user.email, "team", event)

    def lost(self, user_email, calendar_id, event):
        raise GatewayTimeout("The calendar did not answer in time")

    lock_row = service.lock_row

    def deleted_meanwhile(session, model, *args, **kwargs):
        if model is Announcement:  # the delete committed while the calendar was asked
            session.execute(delete(Announcement).where(Announcement.id == announcement.id))
        return lock_row(session, model, *args, **kwargs)

    monkeypatch.setattr(SandboxCalendar, "insert_event", lost)
    monkeypatch.setattr(service, "lock_row", deleted_meanwhile)
    answer = api.post(f"/api/announcements/{announcement.id}/distribute", as_=exec_user,
                      json={"calendar": {"date": "2026-12-04"}})
    assert answer.status == 200, answer
    assert answer.json["results"]["calendar"]["status"] == "failed"
    assert _team_events(db) == [], "the event made for the announcement deleted meanwhile is still on the team calendar"
