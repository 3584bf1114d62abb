"""`meeting_invited` for two invitations whose provider event ids share their first 36 characters (a Google event id
runs to 1,024 characters; an invitation imported from Outlook/Exchange gets a long id encoding its iCalUID, whose
leading characters are the same for every such invite). The notice's resource id was cut to 36 characters, so the
5-minute de-duplication took the second for the first and it was never told, though recorded as told (conformance
audit). notifications_0002 widens the column; the id is kept whole."""
from sqlalchemy import func, select

from chalicelib.areas.calendar.models import CalendarInvite
from chalicelib.core.notify import Notification
from tests.factories import make_user

# An Exchange/Outlook invitation's iCalUID starts with the GlobalObjectId header 040000008200E00074C5B7101A82E008
# and eight zeros; the calendar's id of such an imported event carries it (lower case), so two of them share at least
# their first 40 characters.
PREFIX = "040000008200e00074c5b7101a82e00800000000"


class _FakeCalendar:
    def __init__(self, email):
        self.email = email.lower()

    def list_events(self, user_email, calendar_id, *, time_min, time_max):
        if user_email.lower() != self.email:
            return []
        return [{"id": f"{PREFIX}{suffix}", "summary": summary, "status": "confirmed",
                 "start": {"dateTime": "2030-01-0%sT10:00:00Z" % day}, "end": {"dateTime": "2030-01-0%sT11:00:00Z" % day},
                 "organizer": {"email": "someone@outside.test"},
                 "attendees": [{"email": self.email, "responseStatus": "needsAction"}]}
                for suffix, summary, day in (("aaaa", "Board meeting", 2), ("bbbb", "Client workshop", 3))]


def test_two_distinct_invitations_are_each_notified(db, monkeypatch):
    from chalicelib.areas.calendar import jobs
    from chalicelib.providers import calendar as calendar_provider

    invitee = make_user(db, name="Ivy Invitee")
    monkeypatch.setattr(calendar_provider, "get_calendar", lambda db=None: _FakeCalendar(invitee.email))
    result = jobs.scan_invites()
    assert result["awaiting"] == 2
    recorded = db.scalar(select(func.count()).select_from(CalendarInvite).where(CalendarInvite.user_id == invitee.id))
    assert recorded == 2  # both recorded as told: neither is told again by a later scan
    titles = sorted(db.scalars(select(Notification.title).where(Notification.user_id == invitee.id,
                                                                Notification.type == "meeting_invited")))
    # document 3: a meeting_invited notification per invitation (de-duplication is per user, type and resource)
    assert titles == ["Invitation: Board meeting", "Invitation: Client workshop"]
    ids = set(db.scalars(select(Notification.resource_id).where(Notification.user_id == invitee.id)))
    assert ids == {f"{PREFIX}aaaa", f"{PREFIX}bbbb"}  # the provider's ids, whole


BASE = "x" * 300  # a long base id (an imported invitation's encoded iCalUID), shared by every instance of a series


class _FakeSeries(_FakeCalendar):
    def list_events(self, user_email, calendar_id, *, time_min, time_max):
        if user_email.lower() != self.email:
            return []
        return [{"id": f"{BASE}_2030010{day}T100000Z", "summary": "Weekly sync", "status": "confirmed",
                 "start": {"dateTime": "2030-01-0%sT10:00:00Z" % day}, "end": {"dateTime": "2030-01-0%sT11:00:00Z" % day},
                 "organizer": {"email": "someone@outside.test"},
                 "attendees": [{"email": self.email, "responseStatus": "needsAction"}]}
                for day in (2, 9)]


def test_each_instance_of_a_long_id_recurring_invitation_is_its_own(db, monkeypatch):
    """The instances of a recurring event are "<base id>_<start>"; with a base id past 255 characters the invitations
    were keyed by the first 255 (calendar_invites.event_id), so the series was one invitation and only its first
    instance was told (conformance audit). calendar_0003 keys them by the whole id."""
    from chalicelib.areas.calendar import jobs
    from chalicelib.providers import calendar as calendar_provider

    invitee = make_user(db, name="Ivy Invitee")
    monkeypatch.setattr(calendar_provider, "get_calendar", lambda db=None: _FakeSeries(invitee.email))
    assert jobs.scan_invites()["awaiting"] == 2
    told = set(db.scalars(select(Notification.resource_id).where(Notification.user_id == invitee.id,
                                                                 Notification.type == "meeting_invited")))
    assert told == {f"{BASE}_20300102T100000Z", f"{BASE}_20300109T100000Z"}
    assert set(db.scalars(select(CalendarInvite.event_id).where(CalendarInvite.user_id == invitee.id))) == told
    jobs.scan_invites()  # run again: one effect
    assert db.scalar(select(func.count()).select_from(Notification).where(Notification.user_id == invitee.id)) == 2
