"""Session 23 (time budgets of the scheduled jobs): `leave-cache-refresh` starts no ledger call once
jobs.CACHE_REFRESH_SECONDS are spent (a batch of 50 users is 50 calls, each up to ~25 s), and
`leave-reverse-abandoned` starts no request's reversal once jobs.REVERSE_SECONDS are spent (a reversal is up to four
provider calls). The function has 300 s (infra/areas.json): a run killed there kept nothing of the batch in flight,
and EventBridge's two retries met the same kill. Each answers `more`; what it did is committed, and the next run goes
on with the rest. The clock (core.timeutil.clock) advances 60 s per provider call here, the budgets patched to 150 s:
work is started at 0, 60 and 120 s, none at 180 s."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from chalicelib.areas.leave import jobs
from chalicelib.areas.leave.models import LeaveBalance, LeaveRequest
from chalicelib.core import timeutil
from chalicelib.core.ids import utcnow
from chalicelib.providers.calendar.sandbox import SandboxCalendar
from chalicelib.providers.payroll.sandbox import SandboxPayroll
from tests.factories import make_user

from .factories import make_leave, map_user


class Clock:
    now, step = 1000.0, 60.0  # the time a provider call takes

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(timeutil, "clock", clock)
    monkeypatch.setattr(jobs, "CACHE_REFRESH_SECONDS", 150, raising=False)
    monkeypatch.setattr(jobs, "REVERSE_SECONDS", 150, raising=False)
    return clock


def _slow(monkeypatch, cls, name, clock):
    """`cls.name` taking clock.step on the patched clock; answers the clock times the calls started at."""
    original, started = getattr(cls, name), []

    def call(self, *args, **kwargs):
        started.append(clock.now)
        clock.now += clock.step
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, call)
    return started


def test_the_cache_refresh_stops_at_its_budget_and_the_next_run_goes_on(db, monkeypatch, clock):
    jobs.cache_refresh()  # the types cached first: the runs below ask for balances only
    users = [make_user(db) for _ in range(5)]
    for n, user in enumerate(users):
        map_user(db, user, ledger_id=f"EMP-{n:04d}")
    started = _slow(monkeypatch, SandboxPayroll, "leave_balances", clock)

    begun = clock.now
    first = jobs.cache_refresh()
    assert first == {"types": 0, "balances_refreshed": 3, "balances_failed": 0, "more": True}, first
    assert started == [begun, begun + 60, begun + 120]  # one batch of 5: no user's call started at 180 s
    db.expire_all()
    assert db.scalar(select(func.count(func.distinct(LeaveBalance.user_id)))) == 3  # written

    started.clear()
    assert jobs.cache_refresh() == {"types": 0, "balances_refreshed": 2, "balances_failed": 0}  # the 2 left
    assert len(started) == 2
    db.expire_all()
    assert dict(db.execute(select(LeaveBalance.user_id, func.count()).group_by(LeaveBalance.user_id)).all()) == {
        user.id: 3 for user in users}
    started.clear()
    assert jobs.cache_refresh() == {"types": 0, "balances_refreshed": 0, "balances_failed": 0}  # within the hour
    assert started == []


def _abandoned(db, count):
    """`count` cancelled requests whose integrations run stopped holding the claim (11 minutes ago), each with a
    team calendar event left to reverse."""
    user = make_user(db)
    made = [make_leave(db, user, status="cancelled", calendar_event_id=f"evt-abandoned-{n}",
                       integrations_running_since=utcnow() - timedelta(minutes=11, seconds=count - n))
            for n in range(count)]
    return made


def test_reversing_abandoned_cancellations_stops_at_its_budget_and_the_next_run_goes_on(db, monkeypatch, clock):
    requests = _abandoned(db, 5)
    deleted = []

    def delete_event(self, user_email, calendar_id, event_id):
        deleted.append((clock.now, event_id))
        clock.now += clock.step

    monkeypatch.setattr(SandboxCalendar, "delete_event", delete_event)
    begun = clock.now
    first = jobs.reverse_abandoned()
    assert first == {"found": 5, "reversed": 3, "failed": 0, "more": True}, first
    assert deleted == [(begun + 60 * n, f"evt-abandoned-{n}") for n in range(3)]  # the oldest claims first
    db.expire_all()
    assert [db.get(LeaveRequest, r.id).calendar_event_id for r in requests] == [None] * 3 + [
        "evt-abandoned-3", "evt-abandoned-4"]  # committed; the 2 left keep their stale claims for the next run

    deleted.clear()
    assert jobs.reverse_abandoned() == {"found": 2, "reversed": 2, "failed": 0}
    assert [event for _, event in deleted] == ["evt-abandoned-3", "evt-abandoned-4"]
    assert jobs.reverse_abandoned() == {"found": 0, "reversed": 0, "failed": 0}
    db.expire_all()
    assert all(db.get(LeaveRequest, r.id).calendar_event_id is None for r in requests)
