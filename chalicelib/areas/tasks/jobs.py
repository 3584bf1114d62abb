"""Background work of the tasks area: the due-soon notice.

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations

from chalicelib.core.context import job_context

DUE_SOON_BATCH = 200  # tasks a batch reads at most: core notify's CLAIM_MOST (its claim is skipped above that)
DUE_SOON_SECONDS = 60  # of the tasks jobs' 120 s (infra/areas.json defaults): no batch is started past them


def due_soon(*, batch: int = DUE_SOON_BATCH, seconds: float = DUE_SOON_SECONDS) -> dict:
    """Tell the assignee (`task_due_soon`) of each open task due today or tomorrow (ORG_TIMEZONE), once per
    assignment and due date. Batches of at most `batch` tasks, one transaction each (read and lock, mark,
    notify, commit), until a batch is short; none started after `seconds` (`more`: the next run goes on).
    Run again: nothing new. By hand: `python -m chalicelib.cli job task-due-soon`."""
    from chalicelib.core.timeutil import TimeBudget, in_batches

    from . import service_due

    noticed, after = 0, None

    def step() -> int:
        nonlocal noticed, after
        with job_context() as ctx:
            read, told, after = service_due.notify_due_soon(ctx, limit=batch, after=after)
        noticed += told
        return read

    _, more = in_batches(step, size=batch, budget=TimeBudget(seconds))
    return {"noticed": noticed, **({"more": True} if more else {})}
