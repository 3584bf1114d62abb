"""Background work of the leave area: the hourly refresh of leave types and balances from the leave ledger.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations

from chalicelib.core.context import job_context

# of the leave jobs' 300 s (infra/areas.json), session 23: no user's ledger call (up to ~25 s, a retry included) is
# started after CACHE_REFRESH_SECONDS, no request's reversal (up to four provider calls) after REVERSE_SECONDS
CACHE_REFRESH_SECONDS = 240
REVERSE_SECONDS = 180


def cache_refresh() -> dict:
    """Refresh the leave types and each mapped user's balances older than an hour (decisions.md section 8). Run
    again within the hour: nothing is fetched. Types that fail are reported (`types_failed`) and the balances still
    refreshed; only a ledger that is off or not connected answers `skipped`. No user's ledger call is started after
    CACHE_REFRESH_SECONDS (`more`: the next run goes on with the users still stale). By hand:
    `python -m chalicelib.cli job leave-cache-refresh`."""
    from chalicelib.core.errors import DomainError
    from chalicelib.core.timeutil import TimeBudget

    from .service_cache import refresh_stale

    budget = TimeBudget(CACHE_REFRESH_SECONDS)
    with job_context() as ctx:
        try:
            return refresh_stale(ctx, budget=budget)
        except DomainError as exc:  # the ledger is off or not connected (raised before any call): said plainly
            return {"types": 0, "balances_refreshed": 0, "balances_failed": 0, "skipped": exc.message}


def reverse_abandoned() -> dict:
    """Reverse what cancelled requests have left (service_integrations.abandoned_cancellations, one read): those
    whose run stopped while it held the request (a stale claim, docs/decisions/leave.md: the cancellation left the
    reversal to that run); since session 26 those whose reversal failed (an id kept with `Reversal: ...`, no claim)
    and whose last attempt is older than an hour (service_integrations.RETRY_REVERSAL_AFTER); since session 27
    those whose reversal never ran (the function died between the cancellation's commit and its claim), once the
    cancellation is older than NEVER_REVERSED_AFTER, and a failed chat cancellation post, which is posted again
    until it succeeds, never after. A request whose reversal was recorded REVERSAL_ATTEMPTS times is left (the
    executives who retry leave integrations were told by the last attempt). Each request in its own transaction
    (`reversal_outcome`: claimed, what is left read again under the claim), the providers called with none open;
    run again, nothing is found (a success clears the id and its error, a failure is tried an hour later). Every
    15 minutes; by hand: `python -m chalicelib.cli job leave-reverse-abandoned`. No request's reversal is started
    after REVERSE_SECONDS (`more`: the requests left are found by the next run). `reversed` counts only what this
    run reversed, `failed` a request whose reversal raised or failed again, `skipped` (when some) one another run
    held, or with nothing left, when this run came to it."""
    from chalicelib.core.timeutil import TimeBudget

    from . import service_integrations

    budget = TimeBudget(REVERSE_SECONDS)
    with job_context() as ctx:
        due = service_integrations.abandoned_cancellations(ctx.db)
    counts = {"reversed": 0, "failed": 0, "skipped": 0}
    started = 0
    for request_id in due:
        if budget.spent():
            break
        started += 1
        counts[service_integrations.reversal_outcome(request_id)] += 1  # a failure leaves the others
    answer = {"found": len(due), "reversed": counts["reversed"], "failed": counts["failed"]}
    if counts["skipped"]:
        answer["skipped"] = counts["skipped"]
    if started < len(due):
        answer["more"] = True
    return answer
