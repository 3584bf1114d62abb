"""Request models of the pages area (unknown fields are ignored)."""
from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, field_validator

from chalicelib.core.schemas import Input, Read


def rich_text(value: Any) -> str | None:
    """Rich editor content is stored as JSON text; a client may also send the JSON value itself."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    raise ValueError("must be rich editor JSON text, a JSON array or object, or null")


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("true", "1", "yes")


class PageListQuery(Input):
    search: str | None = Field(default=None, max_length=200)
    favourites: str | None = None
    entity_type: str | None = Field(default=None, max_length=50)
    entity_id: str | None = Field(default=None, max_length=36)
    archived: str | None = None

    @property
    def only_favourites(self) -> bool:
        return _truthy(self.favourites)

    @property
    def only_archived(self) -> bool:
        return _truthy(self.archived)


class PageCreate(Input):
    title: str | None = Field(default=None, max_length=500)
    content: str | None = None
    content_rich: str | None = None
    parent_id: str | None = Field(default=None, max_length=36)
    entity_type: str | None = Field(default=None, max_length=50)
    entity_id: str | None = Field(default=None, max_length=36)
    icon: str | None = Field(default=None, max_length=200)

    _rich = field_validator("content_rich", mode="before")(rich_text)


class PageUpdate(Input):
    NOT_NULL = frozenset({"is_archived", "full_width", "small_text", "lock_page", "toc", "text_style", "is_published",
                          "position"})

    title: str | None = Field(default=None, max_length=500)
    content: str | None = None
    content_rich: str | None = None
    icon: str | None = Field(default=None, max_length=200)
    cover_image: str | None = Field(default=None, max_length=2000)
    is_archived: bool | None = None
    full_width: bool | None = None
    small_text: bool | None = None
    lock_page: bool | None = None
    toc: bool | None = None
    text_style: str | None = Field(default=None, min_length=1, max_length=50)
    is_published: bool | None = None
    parent_id: str | None = Field(default=None, max_length=36)
    position: float | None = None

    _rich = field_validator("content_rich", mode="before")(rich_text)

    @field_validator("position")
    @classmethod
    def _finite(cls, value):
        if value is not None and (value != value or value in (float("inf"), float("-inf"))):
            raise ValueError("must be a finite number")
        return value


class DiscussionCreate(Input):
    id: str | None = None
    document_content: str | None = None
    document_content_rich: str | None = None
    comment: str | None = None
    comment_rich: str | None = None

    _rich = field_validator("document_content_rich", "comment_rich", mode="before")(rich_text)


class CommentCreate(Input):
    id: str | None = None
    content: str = Field(min_length=1)
    content_rich: str | None = None

    _rich = field_validator("content_rich", mode="before")(rich_text)


class CommentUpdate(Input):
    content: str = Field(min_length=1)
    content_rich: str | None = None

    _rich = field_validator("content_rich", mode="before")(rich_text)


class MessagePart(Input):
    type: str
    text: str | None = None


class ChatMessage(Input):
    role: Literal["user", "assistant", "system"]
    parts: list[MessagePart] = Field(default_factory=list)


class CommandContext(Input):
    children: list = Field(default_factory=list)
    selection: dict | None = None
    toolName: str | None = None


class AICommand(Input):
    ctx: CommandContext
    messages: list[ChatMessage] = Field(min_length=1)


class CopilotRequest(Input):
    prompt: str = Field(min_length=1, max_length=20000)
    system: str | None = Field(default=None, max_length=20000)



# --- uploads ----------------------------------------------------------------------------------------

class UploadPresign(Input):
    """A direct upload to the bucket: what the browser is about to send."""

    file_name: Annotated[str, StringConstraints(max_length=255)] | None = None
    content_type: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    size: Annotated[int, Field(ge=1)]
    page_id: Annotated[str, StringConstraints(max_length=64)] | None = None


class UploadConfirm(Input):
    key: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    file_name: Annotated[str, StringConstraints(max_length=255)] | None = None


class UploadRead(Read):
    url: str
    appUrl: str  # noqa: N815 - the spec's name
    name: str
    size: int
    type: str
    key: str


class PresignRead(Read):
    key: str
    url: str
    fields: dict[str, str]
    expires_in: int
    max_bytes: int
