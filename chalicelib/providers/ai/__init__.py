"""AI text generation: an OpenAI-compatible chat-completions endpoint (live) or a deterministic sandbox.

`get_ai()` answers the adapter for `AI_MODE` (sandbox by default); with `off` it raises
ServiceUnavailable (503). Adapters raise BadGateway (502) when the provider fails, ServiceUnavailable (503,
with `retry_after`) when it keeps rate limiting, and GatewayTimeout (504) when it does not answer in time
(live.py's docstring says which answer is which).
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import AIProvider


def get_ai() -> AIProvider:
    settings = get_settings()
    mode = settings.provider_mode("ai")
    if mode == "live":
        if not settings.ai_api_key:
            raise ServiceUnavailable("AI capability is not configured")
        from .live import LiveAI

        return LiveAI(base_url=settings.ai_base_url, api_key=settings.ai_api_key, model=settings.ai_model,
                      timeout=settings.ai_timeout_seconds)
    if mode == "sandbox":
        from .sandbox import SandboxAI

        return SandboxAI()
    raise ServiceUnavailable("AI capability is not configured")
