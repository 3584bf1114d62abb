"""Slack Web API: `chat.postMessage`, `users.lookupByEmail` and `auth.test` through `requests`.

Wire format (checked against https://docs.slack.dev/reference/methods/chat.postMessage,
.../users.lookupByEmail and .../auth.test): the bot token goes in `Authorization: Bearer`; `chat.postMessage` and
`auth.test` are POSTs with a JSON body (`application/json; charset=utf-8`, both accept it), `users.lookupByEmail` a
GET with `email` in the query. Answers read: `channel` and `ts` of a post (a direct message to a user id answers its
`D...` channel), `user.id` of a lookup (`users_not_found` is "no member", None), `team`, `team_id`, `user_id`,
`bot_id` of `auth.test` (`invalid_auth`, `not_authed`, `account_inactive`, `token_revoked`, `token_expired` are a
refused token, 400). Text is sent as given: escaping `&`, `<` and `>` is the caller's, since the callers write
Slack's `<url|label>` links themselves.

Slack answers HTTP 200 with `{"ok": false, "error": "..."}` for most failures; those are failures
here too (BadGateway). HTTP 429 carries Retry-After: a wait of at most MAX_RETRY_WAIT seconds is waited and the
call made once more; a longer one (or a second 429) is reported as a failure to retry later (502, so that the
notification worker keeps the delivery `failed` for its retry: it reads 503 as `skipped`). No answer in time is
504; an unreachable Slack 502.
"""
from __future__ import annotations

import os


from chalicelib.core.errors import BadGateway, ServiceUnavailable
from chalicelib.providers import http

DEFAULT_BASE_URL = "https://slack.com/api"
MAX_RETRY_WAIT = 5.0  # seconds of a 429's Retry-After waited before the one retry


class SlackChat:
    def __init__(self, *, token: str, base_url: str | None = None, timeout: float = 10.0) -> None:
        self.token = token
        # CHAT_API_BASE_URL: optional override (a Slack-compatible stand-in); not a core setting
        self.base_url = (base_url or os.environ.get("CHAT_API_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.timeout = timeout

    def _call(self, method: str, *, json: dict | None = None, params: dict | None = None) -> dict:
        headers = {"Authorization": f"Bearer {self.token}"}
        url = f"{self.base_url}/{method}"
        if json is not None:
            headers["Content-Type"] = "application/json; charset=utf-8"
        try:
            response = http.send("POST" if json is not None else "GET", url, name="Team chat",
                                 max_wait=MAX_RETRY_WAIT, timeout=self.timeout, json=json, params=params,
                                 headers=headers)
        except ServiceUnavailable as exc:  # still rate limited: a failure the notification worker retries later
            raise BadGateway(f"Team chat rate limited ({exc})") from exc
        if response.status_code >= 400:
            raise BadGateway(f"Team chat answered HTTP {response.status_code}")
        try:
            data = http.read_json(response)  # no NUL, no lone surrogate (session 30)
        except ValueError as exc:
            raise BadGateway("Team chat answered a body that is not JSON") from exc
        if not isinstance(data, dict):  # every Web API answer is an object (session 29: .get on a list was a 500)
            raise BadGateway(f"Team chat answered {method} with a body that is not a JSON object")
        if not data.get("ok"):
            raise BadGateway(f"Team chat refused {method}: {data.get('error', 'unknown_error')}")
        return data

    def post_message(self, *, channel: str, text: str, blocks: list | None = None) -> dict:
        body: dict = {"channel": channel, "text": text, "unfurl_links": False}
        if blocks:
            body["blocks"] = blocks
        data = self._call("chat.postMessage", json=body)
        ts = data.get("ts")  # a string (chat.postMessage); anything else is no id of the message posted (session 30)
        return {"channel": data.get("channel", channel), "ts": ts if isinstance(ts, str) else None}

    def lookup_user_by_email(self, email: str) -> str | None:
        try:
            data = self._call("users.lookupByEmail", params={"email": email})
        except BadGateway as exc:
            if "users_not_found" in str(exc):
                return None
            raise
        # a User object whose id is a string (users.lookupByEmail); anything else is the provider's 502 (session 30:
        # `.get` on a string was an AttributeError, the delivery failed with the exception's type)
        user = data.get("user")
        if user is None:
            return None
        if not isinstance(user, dict) or not isinstance(user.get("id"), (str, type(None))):
            raise BadGateway("Team chat answered users.lookupByEmail with a user that cannot be read")
        return user.get("id")

    def auth_test(self) -> dict:
        from chalicelib.core.errors import BadRequest

        try:
            data = self._call("auth.test", json={})
        except BadGateway as exc:
            if any(code in exc.message for code in ("invalid_auth", "not_authed", "account_inactive",
                                                     "token_revoked", "token_expired")):
                raise BadRequest(f"Team chat refused the bot token: {exc.message.rsplit(': ', 1)[-1]}") from exc
            raise
        # auth.test's `team` and `team_id` are strings: a name that is none is no name (a label), an id that cannot be
        # read (no string, or past the 100 characters it is stored in) is the provider's 502 (session 30: a 500, or a
        # 400 for a working token)
        team_id = data.get("team_id")
        if team_id is not None and (not isinstance(team_id, str) or len(team_id) > 100):
            raise BadGateway("Team chat answered auth.test with a team_id that cannot be read")
        team = data.get("team")
        return {"team": team if isinstance(team, str) else None, "team_id": team_id,
                "user_id": data.get("user_id"), "bot_id": data.get("bot_id")}
