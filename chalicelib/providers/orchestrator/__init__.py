"""The orchestrator and the business agents: their HTTP endpoints (live, base URLs from settings) or a sandbox
whose state lives in the database (`sandbox_outbox`, providers `orchestrator` and `business_agent`).

`get_orchestrator(db)` answers the adapter for `ORCHESTRATOR_MODE` (sandbox by default; `off` raises
ServiceUnavailable, 503). Live: `ORCHESTRATOR_URL` (503 on orchestrator calls without it),
`ORCHESTRATOR_TOKEN` (optional bearer), `ORCHESTRATOR_TIMEOUT_SECONDS`, and the business agents registry
`BUSINESS_AGENTS` (`id=https://url,...`; 503 on calls to a listed agent without a URL). Upstream failures and non-JSON answers raise BadGateway (502), a
timeout core.errors.GatewayTimeout (504).
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import OrchestratorProvider, parse_registry

__all__ = ["get_orchestrator", "OrchestratorProvider", "parse_registry"]


def get_orchestrator(db=None) -> OrchestratorProvider:
    settings = get_settings()
    mode = settings.provider_mode("orchestrator")
    if mode == "live":
        from .live import HttpOrchestrator

        return HttpOrchestrator(base_url=settings.orchestrator_url, token=settings.orchestrator_token,
                                agents=parse_registry(settings.business_agents),
                                timeout=settings.orchestrator_timeout_seconds)
    if mode == "sandbox":
        from .sandbox import SandboxOrchestrator

        return SandboxOrchestrator(db=db, agent_ids=[a["id"] for a in parse_registry(settings.business_agents)])
    raise ServiceUnavailable("The orchestrator is not configured (ORCHESTRATOR_MODE is off)")
