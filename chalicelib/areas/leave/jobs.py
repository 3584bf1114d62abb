"""Background work of the leave area: the hourly refresh of leave types and balances from the leave ledger.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations

from chalicelib.core.context import job_context


def cache_refresh() -> dict:
    """Refresh the leave types and each mapped user's balances older than an hour (decisions.md section 8). Run
    again within the hour: nothing is fetched. Types that fail are reported (`types_failed`) and the balances still
    refreshed; only a ledger that is off or not connected answers `skipped`. By hand:
    `python -m chalicelib.cli job leave-cache-refresh`."""
    from chalicelib.core.errors import DomainError

    from .service_cache import refresh_stale

    with job_context() as ctx:
        try:
            return refresh_stale(ctx)
        except DomainError as exc:  # the ledger is off or not connected (raised before any call): said plainly
            return {"types": 0, "balances_refreshed": 0, "balances_failed": 0, "skipped": exc.message}


def reverse_abandoned() -> dict:
    """Reverse the integrations of cancelled requests whose run stopped while it held the request (a stale claim,
    docs/decisions/leave.md): the cancellation left the reversal to that run. Each request in its own transaction,
    the providers called with none open; run again, nothing is found (the reversal lets the claim go). Every
    15 minutes; by hand: `python -m chalicelib.cli job leave-reverse-abandoned`."""
    from .service_integrations import abandoned_cancellations, in_job, reverse

    with job_context() as ctx:
        ids = abandoned_cancellations(ctx.db)
    done = sum(in_job(reverse, request_id) for request_id in ids)  # a failure leaves the others; its claim stays
    return {"found": len(ids), "reversed": done, "failed": len(ids) - done}
