"""Request and read models of the pages area (unknown fields are ignored)."""
from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StringConstraints, field_validator

from chalicelib.core.schemas import (Flag, Flag01, Id, Input, IsoTimestamp, PageQuery, QueryFlag, Read, Search, Text,
                                     choice)

EntityType = Text(50)


def _kind_code(value: str) -> str:
    """A page's entity_type as stored: trimmed, lower case (session 32, "labels" audit). The kinds the area gives
    meaning to (`project`, `company`, `proposal`: the link's checks, the proposal page's scope, the client portal's
    pages) are compared exactly, so "Project" or " proposal" skipped the checks and the page was no record's."""
    return value.strip().lower()


# a created page's link (the list filter takes the typed spelling too: service.list_pages)
EntityKind = Annotated[EntityType, AfterValidator(_kind_code)]


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def rich_text(value: Any) -> str | None:
    """Rich editor content is stored as JSON text; a client may also send the JSON value itself. Null and an empty
    (blank) string are kept as sent; any other string must be JSON text of an object or an array (the editor's
    document), else 400: it is served to readers, portal clients and the public proposal viewer, and HTML stored here
    would be rendered by whichever of them trusts it (session 22 audit)."""
    if value is None:
        return value
    if isinstance(value, str):
        if value.strip():
            try:
                parsed = json.loads(value, parse_constant=_no_constant)
            except ValueError:
                raise ValueError("must be rich editor JSON text (a JSON array or object)") from None
            if not isinstance(parsed, (list, dict)):
                raise ValueError("must be rich editor JSON text (a JSON array or object)")
        return value
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    raise ValueError("must be rich editor JSON text, a JSON array or object, or null")


def _empty_is_none(value: Any) -> Any:
    """An empty or blank id means none (a page moved to the root sends `parent_id: ""`)."""
    return None if isinstance(value, str) and not value.strip() else value


class PageListQuery(PageQuery):
    """`favourites` and `archived` are query flags (true/false/1/0; anything else is a 400)."""

    search: Search | None = None
    favourites: QueryFlag = None
    entity_type: EntityType | None = None
    entity_id: Id | None = None
    archived: QueryFlag = None

    _ids = field_validator("entity_type", "entity_id", mode="before")(_empty_is_none)


class PageVersionListQuery(PageQuery):
    """The spec's cap: the 50 newest versions per request (`offset` walks back to older ones)."""

    limit: int = Field(50, ge=1, le=50)


class PageCreate(Input):
    title: Text(500) | None = None
    content: str | None = None
    content_rich: str | None = None
    parent_id: Id | None = None
    entity_type: EntityKind | None = None
    entity_id: Id | None = None
    icon: Text(200) | None = None

    _rich = field_validator("content_rich", mode="before")(rich_text)
    _ids = field_validator("parent_id", mode="before")(_empty_is_none)


class PageUpdate(Input):
    NOT_NULL = frozenset({"is_archived", "full_width", "small_text", "lock_page", "toc", "text_style", "is_published",
                          "position"})

    title: Text(500) | None = None
    content: str | None = None
    content_rich: str | None = None
    icon: Text(200) | None = None
    cover_image: Text(2000) | None = None
    is_archived: Flag | None = None
    full_width: Flag | None = None
    small_text: Flag | None = None
    lock_page: Flag | None = None
    toc: Flag | None = None
    text_style: str | None = Field(default=None, min_length=1, max_length=50)
    is_published: Flag | None = None
    parent_id: Id | None = None
    position: float | None = Field(default=None, strict=True)

    _rich = field_validator("content_rich", mode="before")(rich_text)
    _ids = field_validator("parent_id", mode="before")(_empty_is_none)

    @field_validator("position")
    @classmethod
    def _finite(cls, value):
        if value is not None and (value != value or value in (float("inf"), float("-inf"))):
            raise ValueError("must be a finite number")
        return value


# a discussion's quoted passage and a comment (plain, and as rich editor JSON): bounded as a task's text (security
# audit S6; limits audit: two comments of 3.5 MB made the page's discussions an answer no function could return)
CommentText = Text(20_000)
CommentRich = Text(100_000)


class DiscussionCreate(Input):
    id: Id | None = None
    document_content: CommentText | None = None
    document_content_rich: CommentRich | None = None
    comment: CommentText | None = None
    comment_rich: CommentRich | None = None

    _rich = field_validator("document_content_rich", "comment_rich", mode="before")(rich_text)


class CommentCreate(Input):
    id: Id | None = None
    content: Annotated[str, StringConstraints(min_length=1, max_length=20_000)]
    content_rich: CommentRich | None = None

    _rich = field_validator("content_rich", mode="before")(rich_text)


class CommentUpdate(Input):
    content: Annotated[str, StringConstraints(min_length=1, max_length=20_000)]
    content_rich: CommentRich | None = None

    _rich = field_validator("content_rich", mode="before")(rich_text)


class MessagePart(Input):
    type: str = Field(max_length=50)
    text: str | None = Field(default=None, max_length=20000)  # the provider is paid per character (audit S6)


class ChatMessage(Input):
    role: Literal["user", "assistant", "system"]
    parts: list[MessagePart] = Field(default_factory=list, max_length=20)


class CommandContext(Input):
    children: list = Field(default_factory=list)
    selection: dict | None = None
    toolName: choice("edit", "generate") | None = None  # the spec's two tools


class AICommand(Input):
    ctx: CommandContext
    messages: list[ChatMessage] = Field(min_length=1, max_length=50)


class CopilotRequest(Input):
    prompt: str = Field(min_length=1, max_length=20000)
    system: str | None = Field(default=None, max_length=20000)


# --- uploads ----------------------------------------------------------------------------------------

class UploadPresign(Input):
    """A direct upload to the bucket: what the browser is about to send."""

    file_name: Annotated[str, StringConstraints(max_length=255)] | None = None
    content_type: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    size: Annotated[int, Field(ge=1, strict=True)]
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


# --- read models ----------------------------------------------------------------------------------

class PageRead(Read):
    """A page in a list; a search result also carries `content_preview`."""
    id: str
    title: str
    icon: str | None
    parent_id: str | None
    position: float
    entity_type: str | None
    entity_id: str | None
    created_by: str | None
    updated_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    cover_image: str | None
    text_style: str
    published_at: IsoTimestamp | None
    is_archived: Flag01
    full_width: Flag01
    small_text: Flag01
    lock_page: Flag01
    toc: Flag01
    is_published: Flag01
    created_by_name: str | None
    updated_by_name: str | None
    children_count: int
    is_favourited: bool
    content_preview: str | None = Field(None, description="search results only: the first 200 characters")


class PageFullRead(PageRead):
    """A page with its content (detail, create and update)."""
    content: str
    content_rich: str | None


class FavouriteToggled(Read):
    is_favourited: bool


class CopilotText(Read):
    type: Literal["text"]
    text: str


class CopilotAnswer(Read):
    text: str
    content: list[CopilotText]


class CommentRead(Read):
    id: str
    discussion_id: str
    user_id: str | None
    content: str
    content_rich: str | None
    is_edited: Flag01
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    user_name: str | None
    user_avatar: str | None


class DiscussionRead(Read):
    id: str
    page_id: str
    user_id: str | None
    document_content: str | None
    document_content_rich: str | None
    is_resolved: bool
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    user_name: str | None
    user_avatar: str | None
    comments: list[CommentRead]


class DiscussionCreated(Read):
    id: str
    page_id: str


class CommentCreated(Read):
    id: str


class ResolveToggled(Read):
    is_resolved: bool


class PageVersionRead(Read):
    id: str
    page_id: str
    user_id: str | None
    title: str
    created_at: IsoTimestamp
    user_name: str | None


class PageVersionFullRead(PageVersionRead):
    content_rich: str | None


class PageVersionCreated(Read):
    id: str
    page_id: str
