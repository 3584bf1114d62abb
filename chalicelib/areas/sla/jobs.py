"""Background work of the SLA area: the breach scan.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations

from chalicelib.core.context import job_context


def breach_scan() -> dict:
    """Notify the assignee (`sla_breach`) of each task whose SLA deadline passed while open (a task with no
    assignee: its project's delivery manager), once per assignment. Run again: nothing new. By hand: `python -m chalicelib.cli job sla-breach-scan`."""
    from .service_tasks import scan_breaches

    with job_context() as ctx:
        noticed = scan_breaches(ctx)
    return {"noticed": noticed}
