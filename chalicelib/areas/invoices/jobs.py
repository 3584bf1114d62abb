"""Background work of the invoices area: the hourly ledger invoice sync (decisions.md section 8) and the hourly
overdue scan (docs/decisions/invoices.md, "Notifications").

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations

from chalicelib.core.context import job_context

# no ledger call is started after this many seconds of the invoices jobs' 300 s (infra/areas.json): a call is up to
# ~25 s (a retry included), then the page's writes and the run's record (session 23)
LEDGER_SYNC_SECONDS = 240


def ledger_invoice_sync() -> dict:
    """Sync every ledger-linked invoice (status, amounts paid and due, payments) and record the run
    (`invoice_ledger_sync_runs`: when, how many changed, what failed). Run again: nothing new changes. No ledger
    call is started after LEDGER_SYNC_SECONDS (`more`: the next run goes on with the invoices least recently
    synced). By hand: `python -m chalicelib.cli job ledger-invoice-sync`."""
    from chalicelib.core.timeutil import TimeBudget

    from .service_ledger_sync import sync_all

    with job_context() as ctx:
        return sync_all(ctx, trigger="schedule", budget=TimeBudget(LEDGER_SYNC_SECONDS))


def invoice_overdue_scan() -> dict:
    """Tell (`invoice_overdue`) about every invoice issued to the client and not paid whose due date is before today
    in ORG_TIMEZONE: its project's owner and delivery manager and its creator who may read it, once per invoice and
    due date. Run again: nothing new. By hand: `python -m chalicelib.cli job invoice-overdue-scan`."""
    from .service_notices import scan_overdue

    with job_context() as ctx:
        return scan_overdue(ctx)
