"""Background work of the action items area: the urgency refresh, and the retry of a failed unstar at the source.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.db.unit_of_work()`).
"""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update

from chalicelib.core.db import unit_of_work
from chalicelib.core.ids import utcnow
from chalicelib.core.timeutil import org_today

from .models import ActionItem
from .queries import urgency_expression


def refresh_urgency() -> dict:
    """Recompute the urgency of every open item with a due date from today in ORG_TIMEZONE (one UPDATE of
    the rows whose urgency changes, `urgency_on` today), so the stored column follows the day and a urgency
    given by hand to an item with a due date is replaced. Reads do not wait for it: they answer today's urgency
    of an item whose urgency was written before today (queries.current_urgency). Run again the same day:
    nothing changes. By hand: `python -m chalicelib.cli job action-items-urgency`."""
    today = org_today()
    computed = urgency_expression(today)
    with unit_of_work() as uow:
        result = uow.session.execute(update(ActionItem)
                                .where(ActionItem.is_completed.is_(False), ActionItem.due_date.is_not(None),
                                       ActionItem.urgency != computed)
                                .values(urgency=computed, urgency_on=today)
                                .execution_options(synchronize_session=False))
        updated = result.rowcount
    return {"today": today.isoformat(), "updated": updated}


UNSTAR_ATTEMPTS = 5                 # unstar_failed entries of an item after which the job gives up on it
UNSTAR_BACKOFF = timedelta(hours=1)  # a failure is asked again once it is this old (the job runs hourly)
UNSTAR_BATCH = 100                  # items asked again in one run at most (oldest failure first)
UNSTAR_SECONDS = 60                 # of the job's 120 s (infra/areas.json defaults): no item is started past them


def retry_unstar(*, seconds: float = UNSTAR_SECONDS) -> dict:
    """Ask the actions agent again to unstar, at its source, each completed chat or mail item whose latest unstar
    outcome is a failure older than UNSTAR_BACKOFF, with fewer than UNSTAR_ATTEMPTS failures in its history (the
    first ask and every retry, by a completion or by this job, count): at most UNSTAR_BATCH items a run, each in its
    own transaction, for the person whose ask failed (service.retry_unstar: `unstar_retried` on the history, the
    call after commit, a new `unstar_failed` if it fails again). Run again: an item whose retry succeeded, or whose
    new failure is recent, is not asked (session 26). A person no longer active is not asked for.
    By hand: `python -m chalicelib.cli job action-items-unstar-retry`."""
    from chalicelib.core.auth import principals_of
    from chalicelib.core.context import job_context
    from chalicelib.core.timeutil import TimeBudget

    from . import service

    budget = TimeBudget(seconds)  # each item is an agent call: the rest waits for the next run (session 26 review)
    with unit_of_work() as uow:
        candidates = service.unstar_retry_candidates(uow.session, before=utcnow() - UNSTAR_BACKOFF,
                                                     attempts=UNSTAR_ATTEMPTS, limit=UNSTAR_BATCH)
        principals = principals_of(uow.session, [actor for _, actor in candidates if actor])
    asked, more = 0, False
    for item_id, actor in candidates:
        if budget.spent():
            more = True
            break
        principal = principals.get(actor)
        if principal is None:
            continue
        with job_context(principal) as ctx:
            asked += service.retry_unstar_of(ctx, item_id)
    return {"candidates": len(candidates), "asked": asked, "more": more}
