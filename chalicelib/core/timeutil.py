"""The organisation's time zone: today, this week (Monday to Sunday), ISO formatting; jobs' time budgets and a
request's deadline."""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from .settings import get_settings


def org_zone() -> ZoneInfo:
    return ZoneInfo(get_settings().org_timezone)


def org_now() -> datetime:
    return datetime.now(timezone.utc).astimezone(org_zone())


def org_today() -> date:
    return org_now().date()


def week_bounds(day: date | None = None) -> tuple[date, date]:
    """Monday and Sunday of the organisation's week containing `day` (default today)."""
    day = day or org_today()
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def iso(value: datetime | date | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    return value.isoformat()


clock = time.monotonic  # tests replace it


class TimeBudget:
    """How long a scheduled job may go on starting work: a run killed at its function's timeout (infra/areas.json)
    keeps nothing of the call in flight, and Lambda's retries of the event meet the same kill, so a job stops
    starting items once `spent()` and leaves the rest to its next run (session 22's retries audit)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.until = clock() + seconds

    def spent(self) -> bool:
        return clock() >= self.until


def in_batches(step, *, size: int, budget: TimeBudget) -> tuple[int, bool]:
    """Run `step()` (one batch of a job, in a transaction of its own; it answers how many rows it read) until a batch
    reads fewer than `size` (none left), or `budget` is spent before the next one starts. Answers (rows read, more),
    `more` true when the budget stopped it: the job's next run goes on. The first batch always runs."""
    done = 0
    while True:
        read = step()
        done += read
        if read < size:
            return done, False
        if budget.spent():
            return done, True


REQUEST_SECONDS = 25.0
"""How long a request may spend calling providers, from the endpoint decorator's start: API Gateway answers 504 at
29 s (and each API function stops at 29 s, infra/areas.json), so what is left (4 s) is the database's, to roll back
or commit and answer (session 30: docs/decisions/infra.md, "A request's deadline")."""
_deadline: ContextVar[float | None] = ContextVar("wms_request_deadline", default=None)


@contextmanager
def _deadline_at(deadline: float | None) -> Iterator[None]:
    token = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(token)


def request_deadline(seconds: float = REQUEST_SECONDS):
    """Within it, `time_left()` counts down from `seconds` (`clock`, monotonic): the endpoint decorator sets it around
    each request. Jobs set none, so their provider calls keep their own timeouts."""
    return _deadline_at(clock() + seconds)


def no_deadline():
    """Within it there is no request deadline (`time_left()` is None): the work a request leaves for after its
    commit (core.db.UnitOfWork.commit's callbacks) keeps its calls' own timeouts, as a job's do. Bounding it by
    the request's deadline made its provider calls fail once the time was spent, and those failures were recorded
    as the work's own (a meetings sync-now storing notes unanalysed for good, a portal sync marking connections
    failed and telling the manager; session 30's review)."""
    return _deadline_at(None)


def time_left() -> float | None:
    """Seconds left before the current request's deadline (0 or less once passed), or None outside a request."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - clock()
