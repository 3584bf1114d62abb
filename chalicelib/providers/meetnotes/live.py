"""Fireflies GraphQL API (`POST https://api.fireflies.ai/graphql`, `Authorization: Bearer <API key>`).

Wire format, as Fireflies documents it (https://docs.fireflies.ai):
- `transcripts(fromDate: DateTime, limit: Int, skip: Int)` (graphql-api/query/transcripts): `fromDate` is an
  ISO 8601 date-time (`2025-11-01T00:00:00.000Z`), `limit` at most 50; the list is read page by page with
  `skip` until a page shorter than `limit` (Fireflies has no cursor). A note finished while the pages are read
  shifts the others by one, so one note can come on two pages: each id is kept once (the copy of the later page,
  the more recent read); twice, the sync's one upsert failed as a whole ("ON CONFLICT DO UPDATE command cannot
  affect row a second time"). Fields read (schema/transcript):
  `id`, `title`, `date` (a Float: milliseconds since the epoch, UTC; an ISO string is read too),
  `duration` (a Float, minutes), `organizer_email`, `meeting_attendees { displayName email name }`
  (schema/meeting-attendee) and `summary { overview action_items keywords }` (schema/summary: documented as
  Strings; `action_items` is kept as text, one item a line, and a list is joined; `keywords` is read as a list
  or as a comma- or newline-separated String).
- `transcript(id: String!)` gives one note's `sentences { speaker_name text start_time end_time }`
  (schema/sentence: times are Floats, seconds).
- Errors (fundamentals/errors, miscellaneous/error-codes): GraphQL errors come in the body's `errors` array,
  each `{ message, code, friendly, extensions: { code, status, metadata } }`, with HTTP 200 or the error's
  status. `too_many_requests` (or HTTP 429) is a rate limit: 503 naming when to retry (`retry_after` in the
  body too), from `extensions.metadata.retryAfter` (its unit is not documented: a number of at least 10^11 is
  read as epoch milliseconds, at least 10^9 as epoch seconds, a smaller one as seconds to wait, a string as
  an ISO date-time or a number) or else the `Retry-After` header; `object_not_found` is 404; a timeout is
  504; anything else the provider refuses (`auth_failed`, `forbidden`, `invalid_arguments`, ...) is 502.
"""
from __future__ import annotations

import logging
import math
import os
import re
import time
from datetime import datetime, timezone

import requests

from chalicelib.core.errors import BadGateway, NotFound
from chalicelib.providers import http as provider_http

from .base import PAGE_SIZE

DEFAULT_URL = "https://api.fireflies.ai/graphql"
log = logging.getLogger("wms.meetnotes")
# 10 000 notes per listing at most. Fireflies lists newest first, so a listing cut here holds the newest notes and
# the older ones are never read (the next sync asks from the newest note's date): a first sync of a larger account
# imports its newest 10 000 notes, and the cut is logged with the oldest date read (session 32; the comment said the
# next sync would continue from there, which it cannot)
MAX_PAGES = 200

LIST_QUERY = """query Transcripts($fromDate: DateTime, $limit: Int, $skip: Int) {
  transcripts(fromDate: $fromDate, limit: $limit, skip: $skip) {
    id title date duration organizer_email
    meeting_attendees { displayName email name }
    summary { overview action_items keywords }
  }
}"""

TRANSCRIPT_QUERY = """query Transcript($transcriptId: String!) {
  transcript(id: $transcriptId) {
    id sentences { speaker_name text start_time end_time }
  }
}"""


def _date(value) -> datetime | None:
    """Fireflies' `date` is milliseconds since the epoch (a number); an ISO string is read too. A value that is
    neither (a word, a boolean, an object, a number past the calendar or not finite) raises ValueError: list_notes
    leaves that note out (session 29: the ValueError, or the OverflowError of 1e20, failed the whole sync)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"unreadable note date {value!r}")
    try:
        if isinstance(value, (int, float)):
            return datetime.fromtimestamp(value / 1000, tz=timezone.utc)
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except (OverflowError, OSError) as exc:
        raise ValueError(f"unreadable note date {value!r}") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _lines(value) -> str:
    """`summary.action_items`: a String, or a list joined one item a line; anything else (an object, a number) is
    none (session 30: it went to the meetings' text column, and the batch's write failed)."""
    if isinstance(value, list):
        return "\n".join(str(item) for item in value)
    return value if isinstance(value, str) else ""


MAX_ID = 100  # the meetings' id column (the provider's note id): a longer id is no note the sync can store


def _duration(value) -> float | None:
    """`duration`, a Float of minutes; absent (None) when it is no number, not finite or negative: a word, an
    object, a boolean (session 30: it went to the Float column and the batch's write failed, or True was stored as
    1 minute, NaN and Infinity as they came), as an unreadable attendee address is none. A numeric String is
    read as its number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return None
    return value


def _keywords(value) -> list[str]:
    """`summary.keywords`: a list, or (as schema/summary documents it) a String of comma- or newline-separated words."""
    if isinstance(value, list):
        return [str(item).strip() for item in value if item is not None and str(item).strip()]
    if isinstance(value, str):
        return [word.strip() for word in re.split(r"[,\n]", value) if word.strip()]
    return []


def _seconds_until(value, now: float | None = None) -> float | None:
    """Seconds to wait from `extensions.metadata.retryAfter`: epoch milliseconds, epoch seconds, a number of
    seconds, or an ISO date-time; None when unreadable, a non-finite number included ("Infinity", "1e999", NaN:
    session 29, an infinite wait made the 503's whole seconds int(inf), an OverflowError answered as a 500)."""
    now = time.time() if now is None else now
    if isinstance(value, str):
        text = value.strip()
        try:
            value = float(text)
        except ValueError:
            try:
                moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                return None
            moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
            return max(0.0, moment.timestamp() - now)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    if value >= 1e11:  # epoch milliseconds
        return max(0.0, value / 1000 - now)
    if value >= 1e9:  # epoch seconds
        return max(0.0, value - now)
    return max(0.0, float(value))


def note_from(item: dict) -> dict:
    """One transcript as a note; ValueError when it is not one (not an object, no id, an unreadable date)."""
    if not isinstance(item, dict) or item.get("id") in (None, "") or len(str(item["id"])) > MAX_ID:
        raise ValueError("a transcript that is not an object with an id (of at most 100 characters)")
    summary = item.get("summary")
    summary = summary if isinstance(summary, dict) else {}
    attendees = []
    listed = item.get("meeting_attendees")
    for attendee in listed if isinstance(listed, list) else []:
        if not isinstance(attendee, dict):
            continue
        email = attendee.get("email")
        email = email.strip().lower() if isinstance(email, str) else ""  # an address that is no string is none
        if email:
            name = provider_http.text(attendee.get("displayName")) or provider_http.text(attendee.get("name"))
            attendees.append({"email": email, "name": name})
    organizer = item.get("organizer_email")
    organizer = organizer if isinstance(organizer, str) else ""
    return {"id": str(item["id"]), "title": provider_http.text(item.get("title")) or "Untitled meeting",
            "date": _date(item.get("date")), "duration": _duration(item.get("duration")),
            "organizer_email": organizer.strip().lower() or None,  # as attendees' (session 32)
            "attendees": attendees, "overview": provider_http.text(summary.get("overview")) or "",
            "action_items": _lines(summary.get("action_items")),
            "keywords": _keywords(summary.get("keywords"))}


class FirefliesNotes:
    def __init__(self, *, api_key: str, url: str | None = None, timeout: float = 20.0) -> None:
        self.api_key = api_key
        # MEETNOTES_API_URL: optional override (a Fireflies-compatible stand-in); not a core setting
        self.url = url or os.environ.get("MEETNOTES_API_URL") or DEFAULT_URL
        self.timeout = timeout

    def _rate_limited(self, response, error: dict | None):
        """The 503 of a rate limit, naming when to retry: Fireflies' `extensions.metadata.retryAfter`, else the
        `Retry-After` header, else a minute."""
        extensions = (error or {}).get("extensions")
        metadata = extensions.get("metadata") if isinstance(extensions, dict) else None
        wait = _seconds_until(metadata.get("retryAfter")) if isinstance(metadata, dict) else None
        if wait is None and "Retry-After" in response.headers:  # seconds or an HTTP-date, as every adapter reads it
            wait = provider_http.retry_after(response)
        return provider_http.rate_limited("Meeting notes provider", 60.0 if wait is None else wait)

    def _query(self, query: str, variables: dict) -> dict:
        try:
            response = requests.post(self.url, json={"query": query, "variables": variables},
                                     timeout=provider_http.call_timeout(self.timeout),
                                     headers={"Authorization": f"Bearer {self.api_key}",
                                              "Content-Type": "application/json"})
        except requests.Timeout as exc:
            raise provider_http.timed_out("Meeting notes provider", exc) from exc
        except requests.RequestException as exc:  # its text (host, port, URL) is the log's, never the caller's
            raise provider_http.unreachable("Meeting notes provider", exc) from exc
        try:
            body = provider_http.read_json(response)  # no NUL, no lone surrogate (session 30)
        except ValueError as exc:
            if response.status_code == 429:
                raise self._rate_limited(response, None) from exc
            raise BadGateway(f"Meeting notes provider answered HTTP {response.status_code} without JSON") from exc
        errors = body.get("errors") if isinstance(body, dict) else None
        first = None
        if isinstance(errors, list) and errors:
            first = errors[0] if isinstance(errors[0], dict) else {"message": str(errors[0])}
        extensions = (first or {}).get("extensions")
        extensions = extensions if isinstance(extensions, dict) else {}
        code = (first or {}).get("code") or extensions.get("code") or ""
        if response.status_code == 429 or code == "too_many_requests" or extensions.get("status") == 429:
            raise self._rate_limited(response, first)
        if first is not None:
            if (code in ("object_not_found", "NOT_FOUND") or extensions.get("status") == 404
                    or "not found" in str(first.get("message", "")).lower()):
                raise NotFound(f"Meeting note not found: {first.get('message')}")
            raise BadGateway(f"Meeting notes provider refused the query: {first.get('message', 'error')}"
                             + (f" ({code})" if code else ""))
        if response.status_code >= 400 or not isinstance(body, dict) or not isinstance(body.get("data"), dict):
            raise BadGateway(f"Meeting notes provider answered HTTP {response.status_code}")
        return body["data"]

    def list_notes(self, *, since: datetime | None) -> list[dict]:
        notes: dict[str, dict] = {}  # by id: a note on two pages (the boundary shifted while paging) kept once
        from_date = since.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z") if since else None
        for page in range(MAX_PAGES):
            variables = {"limit": PAGE_SIZE, "skip": page * PAGE_SIZE}
            if from_date:
                variables["fromDate"] = from_date
            items = self._query(LIST_QUERY, variables).get("transcripts") or []
            if not isinstance(items, list):
                raise BadGateway("Meeting notes provider answered transcripts that are not a list")
            for item in items:
                try:
                    note = note_from(item)
                except ValueError as exc:  # one unreadable note never fails the sync of the others
                    log.warning("a meeting note left out of the sync: %s", exc)
                    continue
                notes[note["id"]] = note  # the later page's copy, the more recent read
            if len(items) < PAGE_SIZE:
                break
        else:
            oldest = min((note["date"] for note in notes.values() if note["date"]), default=None)
            log.warning("meeting notes listing cut at %d pages (%d notes) since %s: the notes older than %s are "
                        "not imported", MAX_PAGES, len(notes), from_date or "the beginning",
                        oldest.isoformat() if oldest else "those read")
        return sorted(notes.values(),
                      key=lambda note: (note["date"] or datetime.min.replace(tzinfo=timezone.utc), note["id"]))

    def get_transcript(self, note_id: str) -> list[dict]:
        transcript = self._query(TRANSCRIPT_QUERY, {"transcriptId": note_id}).get("transcript")
        if not transcript:
            raise NotFound("Meeting note not found")
        # a transcript that is not an object, or sentences that are not a list of objects, is the provider's 502
        # (session 29: .get on them was an AttributeError, a 500 on the transcript route)
        sentences = transcript.get("sentences") if isinstance(transcript, dict) else None
        sentences = [] if sentences is None and isinstance(transcript, dict) else sentences
        if not isinstance(sentences, list) or not all(isinstance(s, dict) for s in sentences):
            raise BadGateway("Meeting notes provider answered a transcript that is not a list of sentences")
        return [{"speaker_name": s.get("speaker_name"), "text": s.get("text") or "",
                 "start_time": s.get("start_time"), "end_time": s.get("end_time")}
                for s in sentences]
