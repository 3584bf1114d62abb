"""Sandbox meeting notes: a handful of deterministic notes, as Fireflies would hold them.

Each note's internal attendees are active users of the service (the first ones by e-mail), so attendees
match users by e-mail where possible; each has an external attendee too. Action items name their owner
first (`Name: what`), as Fireflies' summaries do. An API key containing `invalid` is refused (502), as the
provider would refuse it. The notes' dates are fixed, so a second sync since the first finds nothing new.
"""
from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import select

from chalicelib.core.errors import BadGateway, NotFound

NOTES = (
    ("sandbox-note-1", "Acme weekly status", datetime(2026, 11, 2, 23, 0, tzinfo=timezone.utc), 30,
     "Reviewed the Acme website rebuild: design signed off, build on track for December.",
     "{0}: send the updated timeline to the client\n{1}: book the launch review", "client@acme.test"),
    ("sandbox-note-2", "Sprint planning", datetime(2026, 11, 4, 22, 0, tzinfo=timezone.utc), 45,
     "Planned the next sprint: twelve tasks accepted, two carried over.",
     "{0}: split the search epic into tasks", None),
    ("sandbox-note-3", "Globex discovery call", datetime(2026, 11, 6, 1, 0, tzinfo=timezone.utc), 60,
     "Discovery with Globex about a new proposal for an e-commerce store and its pricing.",
     "{1}: draft the proposal for Globex\n{0}: collect reference projects", "buyer@globex.test"),
    ("sandbox-note-4", "One-on-one", datetime(2026, 11, 9, 4, 0, tzinfo=timezone.utc), 30,
     "A one-on-one catch-up about goals, feedback and the next review.", "", None),
    ("sandbox-note-5", "Team standup", datetime(2026, 11, 11, 22, 30, tzinfo=timezone.utc), 15,
     "Daily standup: blockers on the API integration were raised.",
     "{2}: unblock the API integration", None),
)


class SandboxNotes:
    def __init__(self, *, db=None, api_key: str | None = None) -> None:
        self.db = db
        self.api_key = api_key or ""

    def _check_key(self) -> None:
        if "invalid" in self.api_key.lower():
            raise BadGateway("Meeting notes provider refused the query: Invalid API key (auth_failed)")

    def _people(self) -> list[tuple[str, str]]:
        from chalicelib.core.models import User

        if self.db is None:
            return []
        return [(email.lower(), name) for email, name in self.db.execute(
            select(User.email, User.name).where(User.is_active.is_(True)).order_by(User.email).limit(3))]

    def list_notes(self, *, since: datetime | None) -> list[dict]:
        self._check_key()
        people = self._people()
        names = [name for _, name in people] + ["Someone"] * 3
        notes = []
        for note_id, title, date, duration, overview, actions, external in NOTES:
            if since is not None and date < since:
                continue
            attendees = [{"email": email, "name": name} for email, name in people]
            if external:
                attendees.append({"email": external, "name": external.split("@")[0].title()})
            notes.append({"id": note_id, "title": title, "date": date, "duration": duration,
                          "organizer_email": people[0][0] if people else external,
                          "attendees": attendees, "overview": overview,
                          "action_items": actions.format(*names), "keywords": []})
        return notes

    def get_transcript(self, note_id: str) -> list[dict]:
        self._check_key()
        note = next((note for note in NOTES if note[0] == note_id), None)
        if note is None:
            raise NotFound("Meeting note not found")
        people = [name for _, name in self._people()] or ["Speaker 1"]
        sentences = [f"Welcome to {note[1]}.", note[4], "Let's go through the action items.", "Thanks, everyone."]
        return [{"speaker_name": people[index % len(people)], "text": text, "start_time": float(index * 12),
                 "end_time": float(index * 12 + 10)} for index, text in enumerate(sentences)]
