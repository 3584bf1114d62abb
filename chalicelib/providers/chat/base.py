"""Team chat: the interface every chat adapter implements."""
from __future__ import annotations

from typing import Protocol


class ChatProvider(Protocol):
    def post_message(self, *, channel: str, text: str, blocks: list | None = None) -> dict:
        """Post to a channel (or a user id, for a direct message); answer `{channel, ts}`.
        Raises BadGateway when the provider refuses (Slack `ok: false`) or cannot be reached."""
        ...

    def lookup_user_by_email(self, email: str) -> str | None:
        """The chat user id of a workspace member with this e-mail address, or None."""
        ...

    def auth_test(self) -> dict:
        """Check the bot token (Slack `auth.test`): `{team, team_id, user_id, bot_id}`; BadRequest (400) with
        Slack's error when the token is refused."""
        ...
