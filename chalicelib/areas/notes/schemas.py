"""Request and read models of notes (unknown fields are ignored)."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import Field, StringConstraints

from chalicelib.core.models import ACCESS_LEVELS
from chalicelib.core.schemas import Id, Input, IsoTimestamp, Read, choice

Content = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=20000)]
# `client`: the note is shown in the client portal (docs/decisions/portal.md)
Level = choice(*ACCESS_LEVELS, "client")


class NoteCreate(Input):
    NOT_NULL = frozenset({"content", "mentions"})

    content: Content
    visibility: Optional[list[Level]] = Field(None, max_length=(len(ACCESS_LEVELS) + 1) * 2)
    mentions: list[Id] = Field(default_factory=list, max_length=100)
    parent_id: Optional[Id] = None


class NoteUpdate(Input):
    NOT_NULL = frozenset({"content"})

    content: Content
    visibility: Optional[list[Level]] = Field(None, max_length=(len(ACCESS_LEVELS) + 1) * 2)


class NoteRead(Read):
    id: str
    resource_type: str
    resource_id: str
    author_id: str | None
    content: str
    visibility: list[str]
    mentions: list[str]
    parent_id: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    author_name: str | None
    author_picture: str | None


class NoteCreated(Read):
    id: str
