"""The agent runner: the HTTP endpoint at each project's `runner_url` (live), or a sandbox that records what it
was asked in `sandbox_outbox` (provider `runner`) and can be driven to report back through the real callback
route (`sandbox.callback_for`).

`get_runner()` answers the adapter for `RUNNER_MODE` (sandbox by default); `off` raises ServiceUnavailable (503).
A runner that refuses, times out or cannot be reached raises RunnerUnreachable.
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import RunnerProvider, RunnerUnreachable

__all__ = ["get_runner", "RunnerProvider", "RunnerUnreachable"]


def get_runner() -> RunnerProvider:
    settings = get_settings()
    mode = settings.provider_mode("runner")
    if mode == "live":
        from .live import HttpRunner

        return HttpRunner(timeout=settings.runner_timeout_seconds)
    if mode == "sandbox":
        from .sandbox import SandboxRunner

        return SandboxRunner()
    raise ServiceUnavailable("The agent runner is not configured (RUNNER_MODE is off)")
