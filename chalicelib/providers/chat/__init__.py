"""Team chat: the Slack Web API (live) or a sandbox that keeps posts in `sandbox_outbox`.

`get_chat(db=None)` answers the adapter for `CHAT_MODE` (sandbox by default); `off`, or `live`
without `CHAT_BOT_TOKEN`, raises ServiceUnavailable (503). Failures raise BadGateway (502).
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import ChatProvider


def chat_for_token(token: str, db=None) -> ChatProvider:
    """The adapter of `CHAT_MODE` speaking with this bot token (connections check a token before storing it)."""
    mode = get_settings().provider_mode("chat")
    if mode == "live":
        from .live import SlackChat

        return SlackChat(token=token)
    if mode == "sandbox":
        from .sandbox import SandboxChat

        return SandboxChat(db=db, token=token)
    raise ServiceUnavailable("Team chat is not configured")


def default_channel(db=None) -> str | None:
    """The channel stored with the chat connection, if any."""
    if db is None:
        return None
    from chalicelib.areas.connections import service as connections_service

    stored = connections_service.credentials(db, "chat")
    return (stored or {}).get("channel_id")


def get_chat(db=None) -> ChatProvider:
    """Live: the bot token of the stored connection (connections area) first, `CHAT_BOT_TOKEN` second."""
    settings = get_settings()
    mode = settings.provider_mode("chat")
    if mode == "live":
        token = None
        if db is not None:
            from chalicelib.areas.connections import service as connections_service

            token = (connections_service.credentials(db, "chat") or {}).get("bot_token")
        token = token or settings.chat_bot_token
        if not token:
            raise ServiceUnavailable("Team chat is not configured")
        from .live import SlackChat

        return SlackChat(token=token)
    if mode == "sandbox":
        from .sandbox import SandboxChat

        return SandboxChat(db=db)
    raise ServiceUnavailable("Team chat is not configured")
