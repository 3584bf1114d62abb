"""Fireflies GraphQL API (`POST https://api.fireflies.ai/graphql`, `Authorization: Bearer <API key>`).

`transcripts(fromDate, limit, skip)` is read page by page (limit 50, the API's maximum) until a short page;
`transcript(id)` gives one note's sentences. GraphQL errors come in the body's `errors` (with HTTP 200 or
4xx); HTTP 429 (or the error code `too_many_requests`) is a rate limit: 503 naming Retry-After; a timeout
is 504; anything else the provider refuses is 502.
"""
from __future__ import annotations

import os
from datetime import datetime, timezone

import requests

from chalicelib.core.errors import BadGateway, GatewayTimeout, NotFound, ServiceUnavailable

from .base import PAGE_SIZE

DEFAULT_URL = "https://api.fireflies.ai/graphql"
MAX_PAGES = 200  # 10 000 notes per sync at most; the next sync continues from the last note's date

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
    """Fireflies' `date` is milliseconds since the epoch (a number); an ISO string is read too."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value / 1000, tz=timezone.utc)
    moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _lines(value) -> str:
    if isinstance(value, list):
        return "\n".join(str(item) for item in value)
    return value or ""


def note_from(item: dict) -> dict:
    summary = item.get("summary") or {}
    keywords = summary.get("keywords") or []
    attendees = []
    for attendee in item.get("meeting_attendees") or []:
        email = (attendee.get("email") or "").strip().lower()
        if email:
            attendees.append({"email": email, "name": attendee.get("displayName") or attendee.get("name")})
    return {"id": str(item["id"]), "title": item.get("title") or "Untitled meeting", "date": _date(item.get("date")),
            "duration": item.get("duration"), "organizer_email": (item.get("organizer_email") or "").lower() or None,
            "attendees": attendees, "overview": summary.get("overview") or "",
            "action_items": _lines(summary.get("action_items")),
            "keywords": keywords if isinstance(keywords, list) else [str(keywords)]}


class FirefliesNotes:
    def __init__(self, *, api_key: str, url: str | None = None, timeout: float = 20.0) -> None:
        self.api_key = api_key
        # MEETNOTES_API_URL: optional override (a Fireflies-compatible stand-in); not a core setting
        self.url = url or os.environ.get("MEETNOTES_API_URL") or DEFAULT_URL
        self.timeout = timeout

    def _query(self, query: str, variables: dict) -> dict:
        try:
            response = requests.post(self.url, json={"query": query, "variables": variables}, timeout=self.timeout,
                                     headers={"Authorization": f"Bearer {self.api_key}",
                                              "Content-Type": "application/json"})
        except requests.Timeout as exc:
            raise GatewayTimeout("Meeting notes provider timed out") from exc
        except requests.RequestException as exc:
            raise BadGateway(f"Meeting notes provider unreachable: {exc}") from exc
        if response.status_code == 429:
            raise ServiceUnavailable("Meeting notes provider rate limited the service "
                                     f"(retry after {response.headers.get('Retry-After', '?')} s)")
        try:
            body = response.json()
        except ValueError as exc:
            raise BadGateway(f"Meeting notes provider answered HTTP {response.status_code} without JSON") from exc
        errors = body.get("errors") if isinstance(body, dict) else None
        if errors:
            first = errors[0] if isinstance(errors[0], dict) else {"message": str(errors[0])}
            code = first.get("code") or (first.get("extensions") or {}).get("code") or ""
            if code == "too_many_requests":
                raise ServiceUnavailable(f"Meeting notes provider rate limited the service: {first.get('message')}")
            if code in ("object_not_found", "NOT_FOUND") or "not found" in str(first.get("message", "")).lower():
                raise NotFound(f"Meeting note not found: {first.get('message')}")
            raise BadGateway(f"Meeting notes provider refused the query: {first.get('message', 'error')}"
                             + (f" ({code})" if code else ""))
        if response.status_code >= 400 or not isinstance(body, dict) or not isinstance(body.get("data"), dict):
            raise BadGateway(f"Meeting notes provider answered HTTP {response.status_code}")
        return body["data"]

    def list_notes(self, *, since: datetime | None) -> list[dict]:
        notes: list[dict] = []
        from_date = since.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z") if since else None
        for page in range(MAX_PAGES):
            variables = {"limit": PAGE_SIZE, "skip": page * PAGE_SIZE}
            if from_date:
                variables["fromDate"] = from_date
            items = self._query(LIST_QUERY, variables).get("transcripts") or []
            notes.extend(note_from(item) for item in items)
            if len(items) < PAGE_SIZE:
                break
        notes.sort(key=lambda note: (note["date"] or datetime.min.replace(tzinfo=timezone.utc), note["id"]))
        return notes

    def get_transcript(self, note_id: str) -> list[dict]:
        transcript = self._query(TRANSCRIPT_QUERY, {"transcriptId": note_id}).get("transcript")
        if not transcript:
            raise NotFound("Meeting note not found")
        return [{"speaker_name": s.get("speaker_name"), "text": s.get("text") or "",
                 "start_time": s.get("start_time"), "end_time": s.get("end_time")}
                for s in transcript.get("sentences") or []]
