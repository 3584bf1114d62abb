"""Team chat: the interface every chat adapter implements."""
from __future__ import annotations

from typing import Protocol


def escape(text: str) -> str:
    """Text of ours (a title, a name, an announcement) as Slack's message text: `&`, `<` and `>` escaped, as Slack
    requires (https://docs.slack.dev/messaging/formatting-message-text#escaping), so that a `<!channel>` or a
    `<https://...|label>` someone typed is shown as typed and never pings a channel or makes a link. The links
    and mentions the service writes itself are added around the escaped text."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


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
