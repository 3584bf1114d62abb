"""Background work of the proposals area: the hourly proposal expiry.

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
