"""Google Calendar API v3 through a service account with domain-wide delegation.

Each call acts as a user of the organisation: a JWT (RS256, signed with the service account's private key
through pyjwt) with `iss` the service account, `sub` the user, `scope` calendar, `aud` the token URL, `iat` and
`exp` (an hour) is exchanged at `https://oauth2.googleapis.com/token` (form `grant_type=
urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>`; answer `{access_token, expires_in, token_type}`,
no refresh token: a new assertion is the refresh) for an access token, cached per user until a minute before it
expires. A 401 from the API (an expired or revoked token) drops the cached token and retries once with a new one.
(https://developers.google.com/identity/protocols/oauth2/service-account#httprest)

Calls (https://developers.google.com/workspace/calendar/api/v3/reference/events, base
`https://www.googleapis.com/calendar/v3`, ids percent-encoded in the path, `Authorization: Bearer <token>`):
- list: `GET /calendars/{calendarId}/events?timeMin&timeMax` (RFC 3339 with offset; timeMin bounds the end,
  timeMax the start, exclusive) `&singleEvents=true&orderBy=startTime&maxResults=250`, then `pageToken` =
  the answer's `nextPageToken` until an answer without one; events are the answer's `items`. At most MAX_PAGES
  pages: a listing that names a next page after them is a 502 (CalendarError), as the ledger's and the planner's
  page bounds, never a partial list.
- get: `GET .../events/{eventId}`; insert: `POST .../events?sendUpdates=all` (the event's `id`, when the caller
  chooses it, is sent in the body: Google takes a client id of base32hex characters, a-v and 0-9, 5 to 1024 long,
  and answers 409 with reason `duplicate` when the calendar holds it already; session 27); update: `PUT
  .../events/{eventId}?sendUpdates=all` (a full replacement: the calendar area sends the read event merged with
  the change); patch: `PATCH .../events/{eventId}?sendUpdates=all` (arrays such as attendees are replaced
  whole); delete: `DELETE .../events/{eventId}?sendUpdates=all` (204, no body).
- respond: reads the event (400 when the caller is not an attendee), then PATCHes only the caller's attendee
  entry with its new `responseStatus` and `attendeesOmitted: true` ("when updating an event, this can be used
  to only update the participant's response"), so the other attendees are never rewritten from a copy that may
  be stale or itself truncated (an event read with `attendeesOmitted`).
- calendarList is not called: the calendars offered are `primary` and the team calendar (docs/decisions/calendar.md).

Errors (https://developers.google.com/workspace/calendar/api/guides/errors): the body is `{"error": {"code",
"message", "errors": [{"domain", "reason", "message"}]}}`; they come back as CalendarError `{ error, detail }`
with Google's `error.message` in detail: its 400, 403, 404 and 409 keep their status (410 Gone is 404) and
Google's first `reason` (CalendarError.reason: `duplicate` tells an id in use); a rate
limit (429, or 403 with reason `rateLimitExceeded` / `userRateLimitExceeded` / `quotaExceeded`) is 503 naming
Retry-After when given; a timeout 504; anything else (and a refused token exchange, whose body is
`{error, error_description}`) 502. A timeout or an unreachable provider names only the exception's type in
`detail` (`ConnectionError`): its text names the host, port and URL and is logged, never answered (session 22).
"""
from __future__ import annotations

import logging
import math
import os
import threading
import time

import jwt
import requests

from chalicelib.providers.http import call_timeout, read_json, segment

from .base import CalendarError, team_calendar_id, with_own_response

TOKEN_URL = "https://oauth2.googleapis.com/token"
API_URL = "https://www.googleapis.com/calendar/v3"
SCOPE = "https://www.googleapis.com/auth/calendar"
RATE_REASONS = ("rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded")
MAX_PAGES = 20  # 250 events a page: 5000 events in one range at most; more is a 502, never a partial list

log = logging.getLogger("wms.calendar")
_tokens: dict[tuple[str, str], tuple[str, float]] = {}
_lock = threading.Lock()


def _transport_error(exc: requests.RequestException) -> CalendarError:
    """A timeout (504) or an unreachable provider (502) naming only the exception's type in `detail`: its text
    (host, port, URL; an overridden CALENDAR_API_URL may be an internal proxy) is logged, never answered."""
    log.warning("calendar provider request failed: %s", exc)
    if isinstance(exc, requests.Timeout):
        return CalendarError("Calendar provider timed out", detail=type(exc).__name__, status=504)
    return CalendarError("Calendar provider unreachable", detail=type(exc).__name__)


def _lifetime(value) -> float:
    """Seconds an access token lasts: the answer's `expires_in`, or Google's documented hour (3600) when it is
    absent or unreadable (a word, null, a boolean, a number that is not finite; session 29: int() of it raised,
    a 500)."""
    if isinstance(value, bool):
        return 3600.0
    try:
        seconds = float(value if value is not None else 3600)
    except (TypeError, ValueError):
        return 3600.0
    return seconds if math.isfinite(seconds) else 3600.0


EVENT_OBJECTS = ("start", "end", "organizer", "creator")  # Events resource: objects when present
TEXTS = {"start": ("date", "dateTime", "timeZone"), "end": ("date", "dateTime", "timeZone"),
         "organizer": ("email",), "creator": ("email",)}


def _event_error(event: dict, what: str) -> CalendarError | None:
    """An event as Google's Events resource has it (https://developers.google.com/workspace/calendar/api/v3/reference/
    events#resource): `start`, `end`, `organizer`, `creator` objects whose dates, zone and e-mail are strings,
    `attendees` a list of objects whose e-mail is a string, `id` a string. Anything else is the provider's failure
    (502 naming the field; session 30: the calendar area's `start.get`, `(email or "").lower()` and
    `dict(attendee)` on them were 500s on the event list, the invitation scan and the response route)."""
    def wrong(field):
        return CalendarError("Calendar provider answered an event outside its documented shape",
                             detail=f"{what}: {field} cannot be read")

    if not isinstance(event.get("id") or "", str):
        return wrong("id")
    for name in EVENT_OBJECTS:
        value = event.get(name)
        if value is None:
            continue
        if not isinstance(value, dict):
            return wrong(name)
        for key in TEXTS[name]:
            if not isinstance(value.get(key) or "", str):
                return wrong(f"{name}.{key}")
    attendees = event.get("attendees")
    if attendees is not None:
        if not isinstance(attendees, list) or not all(isinstance(a, dict) for a in attendees):
            return wrong("attendees")
        if not all(isinstance(a.get("email") or "", str) for a in attendees):
            return wrong("attendees.email")
    return None


def _checked(event, what: str):
    """`event` (None for an answer without a body) when it is in the Events resource's shape, else its 502."""
    error = _event_error(event, what) if event is not None else None
    if error is not None:
        raise error
    return event


def clear_token_cache() -> None:
    with _lock:
        _tokens.clear()


class GoogleCalendar:
    def __init__(self, *, client_email: str, private_key: str, timeout: float = 15.0) -> None:
        self.client_email = client_email
        self.private_key = private_key.replace("\\n", "\n")  # a key from an environment variable keeps \n escaped
        # CALENDAR_API_URL / CALENDAR_TOKEN_URL: optional overrides (a compatible stand-in); not core settings
        self.api_url = (os.environ.get("CALENDAR_API_URL") or API_URL).rstrip("/")
        self.token_url = os.environ.get("CALENDAR_TOKEN_URL") or TOKEN_URL
        self.timeout = timeout

    # ------------------------------------------------------------ auth

    def _assertion(self, user_email: str) -> str:
        now = int(time.time())
        claims = {"iss": self.client_email, "sub": user_email, "scope": SCOPE, "aud": self.token_url,
                  "iat": now, "exp": now + 3600}
        return jwt.encode(claims, self.private_key, algorithm="RS256")

    def _token(self, user_email: str, *, fresh: bool = False) -> str:
        key = (self.client_email, user_email.lower())
        with _lock:
            cached = _tokens.get(key)
        if cached and not fresh and cached[1] > time.time():
            return cached[0]
        try:
            response = requests.post(self.token_url, timeout=call_timeout(self.timeout), data={
                "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": self._assertion(user_email)})
        except requests.RequestException as exc:
            raise _transport_error(exc) from exc
        try:
            body = read_json(response)
        except ValueError:
            body = {}
        if not isinstance(body, dict):  # a JSON list or string is no token answer (session 29: .get was a 500)
            body = {}
        token = body.get("access_token")
        if response.status_code != 200 or not token or not isinstance(token, str):
            detail = body.get("error_description") or body.get("error") or f"HTTP {response.status_code}"
            raise CalendarError("Calendar authorisation failed", detail=str(detail))
        with _lock:
            _tokens[key] = (token, time.time() + _lifetime(body.get("expires_in")) - 60)
        return token

    # ------------------------------------------------------------ calls

    def _error(self, response) -> CalendarError:
        try:
            body = read_json(response)
        except ValueError:
            body = {}
        # an answer outside Google's error shape (a JSON list, a number, an `error` that is neither an object nor
        # a string) is read as one without a body (session 29: .get on it was a 500)
        error = (body.get("error") if isinstance(body, dict) else None) or {}
        if isinstance(error, str):
            error = {"message": error}
        if not isinstance(error, dict):
            error = {}
        message = str(error.get("message") or f"HTTP {response.status_code}")
        errors = error.get("errors")
        reasons = [e.get("reason") for e in errors if isinstance(e, dict)] if isinstance(errors, list) else []
        if response.status_code == 429 or (response.status_code == 403 and set(reasons) & set(RATE_REASONS)):
            retry = response.headers.get("Retry-After")
            return CalendarError("Calendar provider rate limited the request",
                                 detail=f"{message}" + (f" (retry after {retry} s)" if retry else ""), status=503)
        if response.status_code in (400, 403, 404, 409, 410):
            return CalendarError("Calendar provider refused the request", detail=message,
                                 status=404 if response.status_code == 410 else response.status_code,
                                 reason=next((reason for reason in reasons if reason), None))
        return CalendarError("Calendar provider request failed", detail=message)

    def _call(self, method: str, user_email: str, path: str, *, params: dict | None = None,
              json: dict | None = None) -> dict | None:
        url = f"{self.api_url}{path}"
        for attempt in (1, 2):
            token = self._token(user_email, fresh=attempt == 2)
            try:
                response = requests.request(method, url, params=params, json=json, timeout=call_timeout(self.timeout),
                                            headers={"Authorization": f"Bearer {token}"})
            except requests.RequestException as exc:
                raise _transport_error(exc) from exc
            if response.status_code == 401 and attempt == 1:
                continue  # the token expired or was revoked: a new one, once
            if response.status_code >= 400:
                raise self._error(response)
            if response.status_code == 204 or not response.content:
                return None
            try:
                body = read_json(response)  # no NUL, no lone surrogate (session 30)
            except ValueError as exc:
                raise CalendarError("Calendar provider answered without JSON",
                                    detail=f"HTTP {response.status_code}") from exc
            if not isinstance(body, dict):  # an event and a listing are objects (session 29: .get was a 500)
                raise CalendarError("Calendar provider answered without a JSON object",
                                    detail=f"HTTP {response.status_code}")
            return body
        # not reached: the second attempt returns or raises (a second 401 is the provider's error, 502 with Google's
        # message); a trailing "refused twice" error here never ran (removed in session 29)

    @staticmethod
    def _events(calendar_id: str, event_id: str | None = None) -> str:
        """The events path of a calendar (and event), each id one segment (providers.http.segment: `..`, which a
        client can send as a calendar id, is refused rather than reaching another path of the API)."""
        path = f"/calendars/{segment(calendar_id)}/events"
        return f"{path}/{segment(event_id)}" if event_id else path

    # ------------------------------------------------------------ the interface

    def list_calendars(self, user_email: str) -> list[dict]:
        return [{"id": "primary", "label": user_email}, {"id": team_calendar_id(), "label": "Team calendar"}]

    def list_events(self, user_email: str, calendar_id: str, *, time_min: str, time_max: str) -> list[dict]:
        events: list[dict] = []
        params = {"timeMin": time_min, "timeMax": time_max, "singleEvents": "true", "orderBy": "startTime",
                  "maxResults": 250}
        for _ in range(MAX_PAGES):
            body = self._call("GET", user_email, self._events(calendar_id), params=params) or {}
            items = body.get("items") or []
            if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
                raise CalendarError("Calendar provider answered events that are not a list of objects",
                                    detail=f"from {time_min} to {time_max}")
            events.extend(_checked(item, f"event {index + 1} from {time_min} to {time_max}")
                          for index, item in enumerate(items, start=len(events)))
            token = body.get("nextPageToken")
            if not token:
                return events
            if not isinstance(token, str):  # a string (session 30: any other value was sent back to Google as is)
                raise CalendarError("Calendar provider answered a page token that cannot be read",
                                    detail=f"from {time_min} to {time_max}")
            params = {**params, "pageToken": token}
        # as the ledger's and the planner's bound: a listing cut short is a 502, never a partial list answered as whole
        raise CalendarError("Calendar provider answered too many pages of events",
                            detail=f"more than {MAX_PAGES} pages of {params['maxResults']} events from {time_min} "
                                   f"to {time_max}; ask for a shorter range")

    def get_event(self, user_email: str, calendar_id: str, event_id: str) -> dict:
        return _checked(self._call("GET", user_email, self._events(calendar_id, event_id)), "the event")

    def insert_event(self, user_email: str, calendar_id: str, event: dict) -> dict:
        made = _checked(self._call("POST", user_email, self._events(calendar_id), params={"sendUpdates": "all"},
                                   json=event), "the event made")
        if not made or not made.get("id"):  # the leave integration keeps it (session 30: a KeyError or a TypeError)
            raise CalendarError("Calendar provider answered no event id", detail="the event made")
        return made

    def update_event(self, user_email: str, calendar_id: str, event_id: str, event: dict) -> dict:
        return _checked(self._call("PUT", user_email, self._events(calendar_id, event_id),
                                   params={"sendUpdates": "all"}, json=event), "the event updated")

    def patch_event(self, user_email: str, calendar_id: str, event_id: str, patch: dict) -> dict:
        return _checked(self._call("PATCH", user_email, self._events(calendar_id, event_id),
                                   params={"sendUpdates": "all"}, json=patch), "the event updated")

    def delete_event(self, user_email: str, calendar_id: str, event_id: str) -> None:
        self._call("DELETE", user_email, self._events(calendar_id, event_id), params={"sendUpdates": "all"})

    def respond(self, user_email: str, calendar_id: str, event_id: str, status: str) -> dict:
        """Only the caller's attendee entry, with `attendeesOmitted` (Google's way to update only the
        participant's response): the other attendees are left as Google holds them."""
        event = self.get_event(user_email, calendar_id, event_id)
        attendees = with_own_response(event, user_email, status)  # 400 when the caller is not invited
        own = [{key: value for key, value in attendee.items() if key not in ("self", "organizer")}
               for attendee in attendees
               if (attendee.get("email") or "").lower() == user_email.lower() or attendee.get("self")]
        return self.patch_event(user_email, calendar_id, event_id, {"attendees": own, "attendeesOmitted": True})
