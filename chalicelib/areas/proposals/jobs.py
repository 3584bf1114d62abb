"""Background work of the proposals area: the hourly proposal expiry and the daily purge of password attempts.

Lambda may import this module without app.py; it sets itself up through core (`core.context.job_context()`).
"""
from __future__ import annotations

from chalicelib.core.context import job_context


def proposal_expiry() -> dict:
    """Mark `expired` every proposal past valid_until still in review, approved, sent or viewed (one history
    entry each). Run again: nothing new. By hand: `python -m chalicelib.cli job proposal-expiry`."""
    from .service_public import expire_due

    with job_context() as ctx:
        expired = expire_due(ctx)
    return {"expired": expired}


PURGE_BATCH = 10_000  # rows a DELETE removes at most (one statement, one short transaction each)
PURGE_SECONDS = 60  # of the proposals jobs' 120 s (infra/areas.json): no batch is started past them


def proposal_attempts_purge(*, batch: int = PURGE_BATCH, seconds: float = PURGE_SECONDS) -> dict:
    """Delete the wrong-password attempts older than a day (the throttle counts those of ATTEMPT_WINDOW, 15 minutes;
    twice the window at least, whatever it becomes). Batches of at most `batch` rows, one DELETE and one transaction
    each, until a batch deletes fewer; none started after `seconds` (`more`: the next run goes on). Run again:
    nothing. By hand: `python -m chalicelib.cli job proposal-attempts-purge`."""
    from datetime import timedelta

    from sqlalchemy import delete, select

    from chalicelib.core.ids import utcnow
    from chalicelib.core.timeutil import TimeBudget, in_batches

    from .models import ProposalPasswordAttempt
    from .service_public import ATTEMPT_WINDOW

    before = utcnow() - max(timedelta(days=1), 2 * ATTEMPT_WINDOW)

    def step() -> int:
        with job_context() as ctx:
            ids = select(ProposalPasswordAttempt.id).where(ProposalPasswordAttempt.created_at < before).limit(batch)
            return ctx.db.execute(delete(ProposalPasswordAttempt).where(ProposalPasswordAttempt.id.in_(ids))
                                  .execution_options(synchronize_session=False)).rowcount

    deleted, more = in_batches(step, size=batch, budget=TimeBudget(seconds))
    return {"password_attempts": deleted, **({"more": True} if more else {})}
