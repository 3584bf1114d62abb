"""The live runner: one HTTP POST to the project's runner_url through `requests`, with a timeout.

Sent: the JSON payload with `Authorization: Bearer <runner secret>`, `Accept: application/json` and
`X-WMS-Run-Id: <run_id>`. Redirects are not followed. 2xx accepts the run and answers the runner's JSON object
(`{}` for an empty body, a body that is not JSON or JSON that is not an object). A 429 (its Retry-After named in
the message in whole seconds, as providers.http reads it), any other status outside 2xx (3xx included), a timeout
or a connection failure raise RunnerUnreachable; nothing is retried, and the run is then marked failed by the
caller. The secret travels only in the header. The runner_url's host is checked again just before the call
(`runner_host_problem`: a stored name may now resolve to the metadata service): refused, nothing is sent
(RunnerUnreachable).
"""
from __future__ import annotations


import requests

from chalicelib.providers import http

from .base import RunnerUnreachable, runner_host_problem


class HttpRunner:
    def __init__(self, *, timeout: float = 10.0) -> None:
        self.timeout = timeout

    def start_run(self, *, runner_url: str, secret: str, payload: dict) -> dict:
        problem = runner_host_problem(runner_url)
        if problem:
            raise RunnerUnreachable(f"the runner_url is refused: its host {problem}")
        headers = {"Authorization": f"Bearer {secret}", "Content-Type": "application/json",
                   "Accept": "application/json", "X-WMS-Run-Id": str(payload.get("run_id", ""))}
        try:
            response = requests.post(runner_url, json=payload, headers=headers, timeout=http.call_timeout(self.timeout),
                                     allow_redirects=False)
        except http.OutOfTime as exc:
            raise RunnerUnreachable(f"the runner was not called: {exc}") from exc
        except requests.Timeout as exc:
            raise RunnerUnreachable(f"the runner did not answer within {self.timeout:g} s") from exc
        except requests.RequestException as exc:
            raise RunnerUnreachable(f"the runner cannot be reached ({type(exc).__name__})") from exc
        if response.status_code == 429:
            # whole seconds as every adapter names them (providers.http.retry_after); the raw header, any text the
            # runner sent, went into the run's error (session 30)
            if "Retry-After" not in response.headers:
                raise RunnerUnreachable("the runner is rate limiting")
            retry = http.whole_seconds(http.retry_after(response))
            raise RunnerUnreachable(f"the runner is rate limiting (retry after {retry} s)")
        if not 200 <= response.status_code < 300:
            raise RunnerUnreachable(f"the runner answered HTTP {response.status_code}")
        try:
            data = response.json() if response.content else {}
        except ValueError:
            data = {}
        return data if isinstance(data, dict) else {}
