"""calendar-invite-scan under Lambda's timeout and retries (session 22's retries audit). The scan read every active
user's calendar before writing anything, then wrote everything in one transaction: a run killed at its 300 s kept
nothing, and each retry and tick asked everyone again from the first user and was killed again. Now what a run has
read is written in short transactions as it goes (a user with an invitation awaiting them at once, the others
every CHUNK_USERS users), no user is started after SCAN_SECONDS, and the next run starts after the last user
written (a cursor), going round."""
import pytest
from sqlalchemy import func, select

from chalicelib.areas.calendar.models import CalendarInvite
from chalicelib.core.notify import Notification
from tests.factories import make_user


class Killed(BaseException):
    """The function's timeout: nothing after it runs in this invocation."""


class Fake:
    """Each active user has one invitation awaiting their answer; every call takes `seconds` of the clock."""

    def __init__(self, clock=None, seconds=0, kill_at=None, session=None):
        self.calls: list[str] = []
        self.clock, self.seconds, self.kill_at, self.session = clock, seconds, kill_at, session
        self.open_transactions = []

    def list_events(self, email, calendar_id, *, time_min, time_max):
        self.calls.append(email)
        if self.session is not None:
            self.open_transactions.append(self.session.in_transaction())
        if self.kill_at is not None and len(self.calls) == self.kill_at:
            raise Killed()
        if self.clock is not None:
            self.clock["t"] += self.seconds
        return [{"id": f"ev-{email}", "summary": "Meeting", "status": "confirmed",
                 "organizer": {"email": "boss@elsewhere.test"}, "start": {"dateTime": "2099-01-05T10:00:00Z"},
                 "attendees": [{"email": email, "responseStatus": "needsAction"}]}]


@pytest.fixture
def clock(monkeypatch):
    from chalicelib.core import timeutil

    now = {"t": 1000.0}
    monkeypatch.setattr(timeutil, "clock", lambda: now["t"])
    return now


def _users(db, n):
    users = [make_user(db, email=f"scan{i}@agency.test") for i in range(n)]
    return sorted(users, key=lambda u: u.id)  # the scan's order


def _told(db, users):
    return [db.scalar(select(func.count()).select_from(Notification).where(
        Notification.user_id == u.id, Notification.type == "meeting_invited")) for u in users]


def test_a_run_killed_part_way_keeps_what_it_read_and_the_retry_goes_on_from_there(db, monkeypatch):
    from chalicelib.areas.calendar import jobs
    from chalicelib.providers import calendar as calendar_pkg

    users = _users(db, 4)
    fake = Fake(kill_at=3)
    monkeypatch.setattr(calendar_pkg, "get_calendar", lambda db=None: fake)
    with pytest.raises(Killed):
        jobs.scan_invites()
    db.expire_all()
    assert _told(db, users) == [1, 1, 0, 0]  # the first two users' invitations are kept and told
    assert db.scalar(select(func.count()).select_from(CalendarInvite)) == 2
    fake.calls, fake.kill_at = [], None
    retry = jobs.scan_invites()  # Lambda's retry: it starts with the user it was killed at
    assert fake.calls == [u.email for u in users[2:] + users[:2]]
    assert (retry["notified"], retry["awaiting"], retry["users"]) == (2, 4, 4)
    again = jobs.scan_invites()  # run again: nothing new
    assert again["notified"] == 0
    assert _told(db, users) == [1, 1, 1, 1]


def test_the_scan_stops_starting_users_past_its_budget_and_the_next_run_starts_where_it_stopped(db, clock,
                                                                                                monkeypatch):
    from chalicelib.areas.calendar import jobs
    from chalicelib.providers import calendar as calendar_pkg

    users = _users(db, 5)
    fake = Fake(clock=clock, seconds=jobs.SCAN_SECONDS / 2 + 1)  # two users spend the budget
    monkeypatch.setattr(calendar_pkg, "get_calendar", lambda db=None: fake)
    first = jobs.scan_invites()
    assert fake.calls == [u.email for u in users[:2]]
    assert (first["notified"], first["left"]) == (2, 3)
    fake.calls = []
    second = jobs.scan_invites()
    assert fake.calls == [u.email for u in users[2:4]]
    assert (second["notified"], second["left"]) == (2, 3)
    fake.calls = []
    third = jobs.scan_invites()  # round again: the last user, then the first (told already)
    assert fake.calls == [users[4].email, users[0].email]
    assert third["notified"] == 1
    assert _told(db, users) == [1, 1, 1, 1, 1]


def test_users_without_invitations_are_written_in_chunks_and_no_call_runs_in_a_transaction(db, monkeypatch):
    """Users with nothing awaiting them only move the cursor, every CHUNK_USERS users; no provider call is made
    while the scan's session holds a transaction open."""
    from chalicelib.areas.calendar import jobs
    from chalicelib.core import db as core_db
    from chalicelib.providers import calendar as calendar_pkg

    monkeypatch.setattr(jobs, "CHUNK_USERS", 2)
    users = _users(db, 5)
    sessions = []
    real_session = core_db.new_session

    def tracked():
        session = real_session()
        sessions.append(session)
        return session

    monkeypatch.setattr(core_db, "new_session", tracked)

    class Nothing(Fake):
        def list_events(self, email, calendar_id, *, time_min, time_max):
            self.calls.append(email)
            self.open_transactions.append([s.in_transaction() for s in sessions])
            return []

    fake = Nothing()
    monkeypatch.setattr(calendar_pkg, "get_calendar", lambda db=None: fake)
    writes = []
    real_record = jobs._record

    def record(pending, cursor):
        writes.append(cursor)
        return real_record(pending, cursor)

    monkeypatch.setattr(jobs, "_record", record)
    result = jobs.scan_invites()
    assert (result["awaiting"], result["notified"], result["failed"]) == (0, 0, 0)
    assert writes == [users[1].id, users[3].id, users[4].id]
    assert not any(any(open_) for open_ in fake.open_transactions), fake.open_transactions
