"""Background work of the relationships area: the daily life-event auto-actions.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations

from chalicelib.core.context import job_context


def life_event_auto_actions() -> dict:
    """Creates the next occurrence's auto-action of recurring life events, once per occurrence however often
    it runs. By hand: `python -m chalicelib.cli job life-event-auto-actions`."""
    from .service_actions import due_auto_actions

    with job_context() as ctx:
        return due_auto_actions(ctx)
