"""The orchestrator and business agents: the interface every adapter implements.

Every call answers `(status, body)`: the upstream's HTTP status (2xx or 4xx; a 5xx is a failure) and its JSON
answer. `caller` is the identity passed on: `{id, email, name, access_level}`.
"""
from __future__ import annotations

from typing import Any, Protocol


class OrchestratorProvider(Protocol):
    def orchestrator(self, method: str, path: str, *, caller: dict, body: Any = None,
                     params: dict | None = None) -> tuple[int, Any]:
        """Forward to the orchestrator's `path` (`/status`, `/pause`, `/resume`, `/restart`, `/tasks`)."""
        ...

    def agents(self) -> list[dict]:
        """The registered business agents: `[{id, name}]`."""
        ...

    def agent(self, agent_id: str, method: str, path: str, *, caller: dict, body: Any = None,
              params: dict | None = None) -> tuple[int, Any]:
        """Forward to the named agent's `path` (`/health`, `/command`, `/logs`, `/trigger/<name>`); NotFound for
        an agent not in the registry."""
        ...


def parse_registry(value: str | None) -> list[dict]:
    """`BUSINESS_AGENTS` = `id=https://url,id2=https://url2` (or bare ids for the sandbox): `[{id, name, url}]`."""
    agents = []
    seen = set()
    for part in (value or "").split(","):
        part = part.strip()
        if not part:
            continue
        agent_id, _, url = part.partition("=")
        agent_id = agent_id.strip()
        if agent_id and agent_id not in seen:
            seen.add(agent_id)
            agents.append({"id": agent_id, "name": agent_id.replace("-", " ").replace("_", " ").title(),
                           "url": url.strip() or None})
    return agents
