"""Background work of the tasks area: the due-soon notice.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations

from chalicelib.core.context import job_context


def due_soon() -> dict:
    """Tell the assignee (`task_due_soon`) of each open task due today or tomorrow (ORG_TIMEZONE), once per
    assignment and due date. Run again: nothing new. By hand: `python -m chalicelib.cli job task-due-soon`."""
    from .service_due import notify_due_soon

    with job_context() as ctx:
        noticed = notify_due_soon(ctx)
    return {"noticed": noticed}
