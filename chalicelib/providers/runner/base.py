"""The agent runner: the interface every runner adapter implements.

The request a run sends (JSON, POST to the project's runner_url, `Authorization: Bearer <runner secret>`,
`X-WMS-Run-Id: <run_id>`):
`{run_id, task_id, project_id, stage, task: {...}, agent: {...}, config: {...}, feedback, callback_url}`.
The runner answers 2xx to accept the run, then reports through POST /api/webhooks/agent-callback.
"""
from __future__ import annotations

from typing import Protocol


class RunnerUnreachable(Exception):
    """The runner did not accept the run (refused, timed out, unreachable); the message says why, never the secret."""


class RunnerProvider(Protocol):
    def start_run(self, *, runner_url: str, secret: str, payload: dict) -> dict:
        """Ask the runner to start the run described by `payload`; answer the runner's JSON answer (or `{}`).
        Raises RunnerUnreachable."""
        ...
