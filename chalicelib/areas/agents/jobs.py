"""Background work of the agents area: giving up runs the runner took and never reported (session 26).

Lambda may import this module without app.py; it sets itself up through core (settings and the database
engine are created lazily by `core.context.job_context()`).
"""
from __future__ import annotations

from chalicelib.core.context import job_context

# a run queued or running and not heard of this long is given up on: the clock runs from its last report (session 27:
# each `running` report, a repeated one too, is a heartbeat), so a long build whose runner keeps reporting is not; a
# run given up on that reports later is not reopened and moves nothing (docs/decisions/agents.md)
STALE_RUN_MINUTES = 240
STALE_BATCH = 50  # runs a batch reads at most (one transaction: each task put back, its history and notices)
STALE_SECONDS = 60  # of the agents jobs' 120 s (infra/areas.json defaults): no batch is started past them


def stale_runs(*, minutes: int = STALE_RUN_MINUTES, batch: int = STALE_BATCH, seconds: float = STALE_SECONDS) -> dict:
    """Give up each agent task's latest run of the stage it is in, queued or running and not heard of for more than
    `minutes` (since its last report, or its creation when none): the run is failed ("the runner did not report in N
    minutes") and the task goes back to the stage the run's start left, as a runner's failed report (service_stale).
    Batches of at most `batch` runs, one transaction each, until a batch is short; none started after `seconds`
    (`more`: the next run goes on). Run again: nothing. Every 15 minutes; by hand:
    `python -m chalicelib.cli job agents-stale-runs`."""
    from chalicelib.core.timeutil import TimeBudget, in_batches

    from .service_stale import give_up_stale_runs

    given_up, after = 0, None

    def step() -> int:
        nonlocal given_up, after
        with job_context() as ctx:
            read, done, after = give_up_stale_runs(ctx, minutes=minutes, limit=batch, after=after)
        given_up += done
        return read

    _, more = in_batches(step, size=batch, budget=TimeBudget(seconds))
    return {"given_up": given_up, **({"more": True} if more else {})}
