"""Sandbox team chat: keeps each post in `sandbox_outbox` (provider `chat`), answers Slack-like ids.

Behaves like Slack for the cases tests need: an empty channel, or one starting with
`C_INVALID`, is `channel_not_found` (502); an e-mail at the domain `nochat.test` has no member.
"""
from __future__ import annotations

import hashlib
import itertools
import time

from chalicelib.core.errors import BadGateway
from chalicelib.core.notify_outbox import record

_counter = itertools.count(1)


class SandboxChat:
    def __init__(self, *, db=None, token: str | None = None) -> None:
        self.db = db
        self.token = token

    def auth_test(self) -> dict:
        """Any token but one containing `invalid` (refused as Slack refuses it: `invalid_auth`)."""
        from chalicelib.core.errors import BadRequest

        if self.token is not None and "invalid" in self.token.lower():
            raise BadRequest("Team chat refused the bot token: invalid_auth")
        digest = hashlib.sha1((self.token or "sandbox").encode()).hexdigest()
        return {"team": "Sandbox Workspace", "team_id": "T" + digest[:8].upper(), "user_id": "U" + digest[8:16].upper(),
                "bot_id": "B" + digest[16:24].upper()}

    def post_message(self, *, channel: str, text: str, blocks: list | None = None) -> dict:
        if not channel or channel.upper().startswith("C_INVALID"):
            raise BadGateway("Team chat refused chat.postMessage: channel_not_found")
        ts = f"{int(time.time())}.{next(_counter):06d}"
        record(self.db, provider="chat", target=channel, subject=None, body=text,
               payload={"blocks": blocks} if blocks else None, external_id=ts)
        return {"channel": channel, "ts": ts}

    def lookup_user_by_email(self, email: str) -> str | None:
        if email.lower().endswith("@nochat.test"):
            return None
        return "U" + hashlib.sha1(email.lower().encode()).hexdigest()[:10].upper()
