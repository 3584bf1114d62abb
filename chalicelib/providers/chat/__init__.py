"""Team chat: the Slack Web API (live) or a sandbox that keeps posts in `sandbox_outbox`.

`get_chat(db=None)` answers the adapter for `CHAT_MODE` (sandbox by default); `off`, or `live`
without `CHAT_BOT_TOKEN`, raises ServiceUnavailable (503). Failures raise BadGateway (502).
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import ChatProvider


def get_chat(db=None) -> ChatProvider:
    settings = get_settings()
    mode = settings.provider_mode("chat")
    if mode == "live":
        if not settings.chat_bot_token:
            raise ServiceUnavailable("Team chat is not configured")
        from .live import SlackChat

        return SlackChat(token=settings.chat_bot_token)
    if mode == "sandbox":
        from .sandbox import SandboxChat

        return SandboxChat(db=db)
    raise ServiceUnavailable("Team chat is not configured")
