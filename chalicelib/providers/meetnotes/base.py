"""Meeting notes: the interface every adapter implements.

A note is `{id, title, date (aware datetime), duration (minutes or None), organizer_email, attendees:
[{email, name}], overview, action_items (the provider's text, one item a line), keywords: [str]}`.
A transcript is `[{speaker_name, text, start_time, end_time}]` (seconds).
"""
from __future__ import annotations

from datetime import datetime
from typing import Protocol

PAGE_SIZE = 50  # Fireflies: `limit` at most 50 per transcripts query


class MeetNotesProvider(Protocol):
    def list_notes(self, *, since: datetime | None) -> list[dict]:
        """Every note dated at or after `since` (all when None), oldest first, read page by page."""
        ...

    def get_transcript(self, note_id: str) -> list[dict]:
        """The note's sentences; NotFound when the provider has no such note."""
        ...
