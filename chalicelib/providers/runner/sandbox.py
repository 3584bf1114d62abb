"""The sandbox runner: records each run it is asked for in `sandbox_outbox` (provider `runner`, external id =
run id), and builds the callback a real runner would send (`callback_for`), for tests and `make run` to post
through the real callback route.

It behaves like an unreachable runner for a runner_url whose host contains `unreachable` or `invalid`
(RunnerUnreachable), so that failure paths work offline. The runner secret is kept encrypted in the record
(core.crypto), as the runner would hold it, and never in clear.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from chalicelib.core import crypto
from chalicelib.core.notify_outbox import messages, record

from .base import RunnerUnreachable

PROVIDER = "runner"


class SandboxRunner:
    def start_run(self, *, runner_url: str, secret: str, payload: dict) -> dict:
        host = (urlsplit(runner_url).hostname or "").lower()
        if "unreachable" in host or "invalid" in host:
            raise RunnerUnreachable("the runner cannot be reached (ConnectionError)")
        record(None, provider=PROVIDER, target=runner_url[:1000], subject=f"{payload.get('stage')} run",
               body=None, payload={**payload, "authorization": crypto.encrypt(secret)},
               external_id=str(payload["run_id"]))
        return {"accepted": True, "run_id": payload["run_id"]}


def requests_made(db) -> list[dict]:
    """What the sandbox runner was asked, oldest first (payloads without the stored secret)."""
    return [{key: value for key, value in (message.payload or {}).items() if key != "authorization"}
            | {"runner_url": message.target} for message in messages(db, provider=PROVIDER)]


def callback_for(db, run_id: str, *, status: str = "success", result: dict | None = None,
                 stage: str | None = None) -> tuple[dict, dict]:
    """(headers, body) of the callback the runner would send for the recorded run `run_id`."""
    found = [m for m in messages(db, provider=PROVIDER) if m.external_id == run_id]
    if not found:
        raise KeyError(f"the sandbox runner was never asked for run {run_id}")
    payload = found[-1].payload or {}
    secret = crypto.decrypt(payload["authorization"])
    body = {"task_id": payload["task_id"], "project_id": payload["project_id"],
            "stage": stage or payload["stage"], "status": status, "run_id": run_id, "result": result or {}}
    return {"Authorization": f"Bearer {secret}", "Content-Type": "application/json"}, body
