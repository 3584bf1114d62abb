"""The sandbox orchestrator and business agents: state in `sandbox_outbox` (the request's transaction), so that
pause, resume, restart, tasks, agent status, commands, logs and triggers behave consistently offline.

Orchestrator: `GET /status` says `running` or `paused` (the last pause or resume), restarts and queued tasks;
pause and resume are idempotent; restart runs it again. `POST /tasks` needs a non-empty `title` (400 as an
orchestrator would answer) and queues the task (201 `{task}`); `GET /tasks` lists the newest 500, newest first
(`status` filter). Business agents: the ids of `BUSINESS_AGENTS`, or `actions`, `reporting` and `research`; an agent
whose id contains `down` is unhealthy and refuses commands and triggers (503 from the agent). `/command` needs
a non-empty `command` (200 `{command}`); a trigger answers 202 `{run}`; commands and triggers complete at once
and appear in `/logs`, newest first (`limit`, 50 by default, at most 500). Any other path answers 404.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from chalicelib.core.errors import NotFound
from chalicelib.core.ids import new_id
from chalicelib.core.notify_models import SandboxOutboxMessage
from chalicelib.core.notify_outbox import record
from chalicelib.core.timeutil import iso

DEFAULT_AGENTS = ("actions", "reporting", "research")
ORCHESTRATOR = "orchestrator"
AGENT = "business_agent"
STATE_EVENTS = ("pause", "resume", "restart")
LOG_LIMIT = 500


def _name(agent_id: str) -> str:
    return agent_id.replace("-", " ").replace("_", " ").title()


class SandboxOrchestrator:
    def __init__(self, *, db=None, agent_ids=None) -> None:
        self.db = db
        self.agent_ids = list(agent_ids or DEFAULT_AGENTS)

    # --- state --------------------------------------------------------------------------------------

    def _records(self, provider: str, *, target: str | None = None, subjects=None, limit: int | None = None):
        stmt = select(SandboxOutboxMessage).where(SandboxOutboxMessage.provider == provider)
        if target is not None:
            stmt = stmt.where(SandboxOutboxMessage.target == target)
        if subjects is not None:
            stmt = stmt.where(SandboxOutboxMessage.subject.in_(list(subjects)))
        stmt = stmt.order_by(SandboxOutboxMessage.created_at.desc(), SandboxOutboxMessage.id.desc())
        return list(self.db.scalars(stmt.limit(limit) if limit else stmt))

    def _add(self, provider: str, target: str, subject: str, payload: dict) -> SandboxOutboxMessage:
        return record(self.db, provider=provider, target=target, subject=subject, body=None, payload=payload,
                      external_id=payload["id"])

    def _state(self) -> dict:
        events = self._records(ORCHESTRATOR, target="orchestrator", subjects=STATE_EVENTS)
        last_switch = next((e for e in events if e.subject in ("pause", "resume")), None)
        restarts = [e for e in events if e.subject == "restart"]
        queued = self.db.scalar(select(func.count()).select_from(SandboxOutboxMessage).where(
            SandboxOutboxMessage.provider == ORCHESTRATOR, SandboxOutboxMessage.subject == "task"))
        paused = last_switch is not None and last_switch.subject == "pause"
        return {"status": "paused" if paused else "running", "paused": paused, "restarts": len(restarts),
                "last_restart_at": iso(restarts[0].created_at) if restarts else None,
                "queued_tasks": int(queued or 0), "agents": len(self.agent_ids), "mode": "sandbox"}

    def _event(self, subject: str, caller: dict) -> None:
        self._add(ORCHESTRATOR, "orchestrator", subject, {"id": new_id(), "requested_by": caller.get("id")})

    # --- orchestrator -------------------------------------------------------------------------------

    def orchestrator(self, method: str, path: str, *, caller: dict, body: Any = None, params: dict | None = None):
        if (method, path) == ("GET", "/status"):
            return 200, self._state()
        if method == "POST" and path in ("/pause", "/resume"):
            want_paused = path == "/pause"
            if self._state()["paused"] != want_paused:
                self._event(path[1:], caller)
            return 200, self._state()
        if (method, path) == ("POST", "/restart"):
            self._event("restart", caller)
            return 200, self._state()
        if (method, path) == ("GET", "/tasks"):
            tasks = [m.payload for m in self._records(ORCHESTRATOR, subjects=("task",), limit=LOG_LIMIT)]
            wanted = (params or {}).get("status")
            return 200, {"tasks": [t for t in tasks if not wanted or t.get("status") == wanted]}
        if (method, path) == ("POST", "/tasks"):
            title = body.get("title") if isinstance(body, dict) else None
            if not isinstance(title, str) or not title.strip():
                return 400, {"error": "title is required"}
            task = {"id": new_id(), "title": title.strip()[:500], "description": body.get("description"),
                    "priority": body.get("priority"), "input": body.get("input"), "status": "queued",
                    "requested_by": caller.get("id")}
            message = self._add(ORCHESTRATOR, "orchestrator", "task", task)
            return 201, {"task": {**task, "created_at": iso(message.created_at)}}
        return 404, {"error": f"No such orchestrator endpoint: {method} {path}"}

    # --- business agents ----------------------------------------------------------------------------

    def agents(self) -> list[dict]:
        return [{"id": agent_id, "name": _name(agent_id)} for agent_id in self.agent_ids]

    def _log(self, message: SandboxOutboxMessage) -> dict:
        return {**(message.payload or {}), "kind": message.subject, "created_at": iso(message.created_at)}

    def agent(self, agent_id: str, method: str, path: str, *, caller: dict, body: Any = None,
              params: dict | None = None):
        if agent_id not in self.agent_ids:
            raise NotFound("Business agent not found")
        healthy = "down" not in agent_id
        if (method, path) == ("GET", "/health"):
            last = self._records(AGENT, target=agent_id, limit=1)
            return 200, {"id": agent_id, "name": _name(agent_id), "status": "healthy" if healthy else "unhealthy",
                         "last_run_at": iso(last[0].created_at) if last else None, "mode": "sandbox"}
        if (method, path) == ("GET", "/logs"):
            try:
                limit = max(1, min(int((params or {}).get("limit") or 50), LOG_LIMIT))
            except ValueError:
                return 400, {"error": "limit must be a number"}
            return 200, {"logs": [self._log(m) for m in self._records(AGENT, target=agent_id, limit=limit)]}
        if method == "POST" and (path == "/command" or path.startswith("/trigger/")):
            if not healthy:
                return 503, {"error": f"{agent_id} is not running"}
            if path == "/command":
                command = body.get("command") if isinstance(body, dict) else None
                if not isinstance(command, str) or not command.strip():
                    return 400, {"error": "command is required"}
                entry = {"id": new_id(), "agent_id": agent_id, "command": command.strip()[:200],
                         "args": body.get("args"), "status": "completed", "output": f"{command.strip()[:200]}: done",
                         "requested_by": caller.get("id")}
                message = self._add(AGENT, agent_id, "command", entry)
                return 200, {"command": {**entry, "created_at": iso(message.created_at)}}
            name = path[len("/trigger/"):]
            entry = {"id": new_id(), "agent_id": agent_id, "trigger": name, "input": body if body else None,
                     "status": "completed", "requested_by": caller.get("id")}
            message = self._add(AGENT, agent_id, "trigger", entry)
            return 202, {"run": {**entry, "created_at": iso(message.created_at)}}
        return 404, {"error": f"No such agent endpoint: {method} {path}"}
