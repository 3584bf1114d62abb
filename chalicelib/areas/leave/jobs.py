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
    """Reverse the integrations of cancelled requests whose run stopped while it held the request (a stale claim,
    docs/decisions/leave.md): the cancellation left the reversal to that run. Since session 26 also cancelled
    requests whose reversal failed (an id kept with `Reversal: ...`, no claim) and whose last attempt is older than
    an hour (service_integrations.RETRY_REVERSAL_AFTER): what they still hold is reversed again (not the chat post).
    One read finds both; each request in its own transaction, the providers called with none open; run again,
    nothing is found (the reversal lets the claim go; a success clears the id and its error, a failure is tried
    an hour later). Every 15 minutes; by hand: `python -m chalicelib.cli job leave-reverse-abandoned`. No request's
    reversal is started after REVERSE_SECONDS (`more`: the requests left keep their stale claims or failed
    reversals, and the next run finds them). `failed` counts a request whose reversal raised or failed again."""
    from chalicelib.core.timeutil import TimeBudget

    from .service_integrations import abandoned_cancellations, in_job, reverse, reversed_again

    budget = TimeBudget(REVERSE_SECONDS)
    with job_context() as ctx:
        due = abandoned_cancellations(ctx.db)
    started = done = 0
    for request_id, abandoned in due:
        if budget.spent():
            break
        started += 1
        # a failure leaves the others; its claim stays (abandoned), or its id and error (failed again)
        done += in_job(reverse if abandoned else reversed_again, request_id)
    answer = {"found": len(due), "reversed": done, "failed": started - done}
    if started < len(due):
        answer["more"] = True
    return answer
