"""Twilio Messages API: `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` through `requests`.

Form-encoded `To`, `From`, `Body` and `MediaUrl` (MMS), HTTP basic auth with the account SID and auth token.
A configured sender that is a Messaging Service SID (`MG` followed by 32 hex digits) is sent as
`MessagingServiceSid` instead of `From`: Twilio reads `From` as a phone number, alphanumeric sender id or channel
address and requires it only when `MessagingServiceSid` is absent
(https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource); such a message answers
`status: accepted`. The message app is WhatsApp: `To` and a `From` number carry the `whatsapp:` prefix (a
Messaging Service keeps its SID unprefixed). Twilio answers 201 with the message resource (`sid`, `status`); an
error answers a JSON body `{code, message, more_info, status}`.
Mapping: 401/403 (20003 authentication) and other refusals -> 502 naming Twilio's code; 429 (20429) ->
503 with Retry-After; 5xx -> 502; no answer in time -> 504.
"""
from __future__ import annotations

import math
import re

import requests

from chalicelib.core.errors import BadGateway, ServiceUnavailable
from chalicelib.core.serialize import kept_id
from chalicelib.providers import http as provider_http

DEFAULT_BASE_URL = "https://api.twilio.com"

# Twilio error codes worth a clearer message (https://www.twilio.com/docs/errors)
ERROR_MESSAGES = {
    20003: "Twilio refused the account SID or auth token",
    20429: "Twilio rate limit reached",
    21211: "the 'To' number is not a valid phone number",
    21408: "sending to this region is not enabled on the Twilio account",
    21606: "the 'From' number cannot send messages",
    21610: "the recipient has unsubscribed (replied STOP)",
    21614: "the 'To' number cannot receive SMS",
    21620: "the media URL is not valid",
    63016: "WhatsApp refuses free-form messages outside the 24-hour window",
}


_SERVICE_SID = re.compile(r"MG[0-9a-fA-F]{32}")


def _is_service(sender: str) -> bool:
    return bool(_SERVICE_SID.fullmatch(sender))


def _sender(sender: str) -> tuple[str, str]:
    """The form field naming the sender: a Messaging Service SID (`MG` + 32 hex) is `MessagingServiceSid`
    (Twilio: `From` is required only when `MessagingServiceSid` is not passed), anything else `From`."""
    return ("MessagingServiceSid", sender) if _is_service(sender) else ("From", sender)


SID_MAX = 100  # relationship_messages.provider_message_id


class TwilioSms:
    def __init__(self, *, account_sid: str, auth_token: str, from_number: str, msgapp_from: str | None = None,
                 base_url: str = DEFAULT_BASE_URL, timeout: float = 10.0) -> None:
        self.account_sid = account_sid
        self.auth = (account_sid, auth_token)
        self.from_number = from_number
        self.msgapp_from = msgapp_from or from_number
        self.url = f"{base_url.rstrip('/')}/2010-04-01/Accounts/{account_sid}/Messages.json"
        self.timeout = timeout

    def send(self, *, channel: str, to: str, body: str, media_url: str | None = None) -> dict:
        data: list[tuple[str, str]] = [("Body", body)]
        if channel == "msgapp":
            sender = self.msgapp_from.removeprefix("whatsapp:")
            data += [("To", f"whatsapp:{to}"), _sender(sender if _is_service(sender) else f"whatsapp:{sender}")]
        else:
            data += [("To", to), _sender(self.from_number)]
        if media_url:
            data.append(("MediaUrl", media_url))
        try:
            response = requests.post(self.url, data=data, auth=self.auth,
                                     timeout=provider_http.call_timeout(self.timeout))
        except requests.Timeout as exc:
            raise provider_http.timed_out("The SMS provider", exc) from exc
        except requests.RequestException as exc:
            raise BadGateway("The SMS provider could not be reached") from exc
        if response.status_code in (200, 201):
            try:
                message = provider_http.read_json(response)
                sid, status = message["sid"], message.get("status")
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise BadGateway("The SMS provider's answer could not be read") from exc
            # the Message resource's sid is a 34-character string and its status a short word. Twilio took the
            # message (201): a sid that is no string or past the 100 characters it is kept in is no id (None), a
            # status that cannot be read is `queued`, as an absent one (session 30: either failed the write after
            # the send, and the message stayed `queued` for good)
            return {"sid": kept_id(sid, SID_MAX),
                    "status": status if isinstance(status, str) and 0 < len(status) <= 20 else "queued"}
        try:
            error = provider_http.read_json(response)  # cleaned: stored on the message (session 30)
        except ValueError:
            error = {}
        code = error.get("code") if isinstance(error, dict) else None
        text = ERROR_MESSAGES.get(code) or (error.get("message") if isinstance(error, dict) else None) or "refused"
        if response.status_code == 429:
            # whole seconds, as every adapter names them (providers.http.retry_after: seconds or an HTTP-date, 1 s
            # when unreadable); the raw header was answered as it came (session 29)
            if "Retry-After" not in response.headers:
                raise ServiceUnavailable(f"SMS provider busy: {text}")
            retry = math.ceil(provider_http.retry_after(response))
            raise ServiceUnavailable(f"SMS provider busy: {text} (retry after {retry} s)", extra={"retry_after": retry})
        if response.status_code >= 500:
            raise BadGateway(f"SMS provider failed (HTTP {response.status_code})")
        raise BadGateway(f"SMS provider refused the message: {code or response.status_code} {text}")
