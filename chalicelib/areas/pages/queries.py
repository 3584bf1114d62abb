"""The pages area's leaf module: the scope clause `visible` (pages are shared by every holder of
pages:view, except a proposal's page: only with the proposal), the load-or-404 helpers `load_page`, `load_discussion`, `load_comment` and `load_version`,
the record builders and the read queries. The services import it, never the reverse."""
from __future__ import annotations

import json
from functools import cache

from sqlalchemy import and_, bindparam, func, or_, select
from sqlalchemy.orm import aliased

from chalicelib.core.errors import not_found
from chalicelib.core.models import User
from chalicelib.core.lookup import ids_read
from chalicelib.core.query import Read, in_scope, record_sets, visible_row
from chalicelib.core.readers import readers
from chalicelib.core.scoping import sees_all
from chalicelib.core.serialize import value_out

from .models import Page, PageComment, PageDiscussion, PageFavourite, PageVersion

PREVIEW_LENGTH = 200
FLAGS = ("is_archived", "full_width", "small_text", "lock_page", "toc", "is_published")
LIST_FIELDS = ("id", "title", "icon", "parent_id", "position", "entity_type", "entity_id", "created_by",
               "updated_by", "created_at", "updated_at", "cover_image", "text_style", "published_at")


def visible(principal):
    """WHERE clause of the pages the principal may see (None: all). Pages are shared by every holder of
    pages:view (no per-owner scoping), except the page holding a proposal's content (entity_type `proposal`):
    seen only by who sees the proposal (the proposals area's scope), so that its page cannot be read, searched
    or edited past a proposal that answers 404. Seeing a proposal is the `proposals` tool at view besides its row
    scope (session 29: a head whose proposals permission is none, to whom every proposal route answers 403, read and
    edited every proposal's page through the row scope alone): without it no proposal's page is seen."""
    if principal is None:
        return None
    if not principal.can("proposals", "view"):
        return or_(Page.entity_type.is_(None), Page.entity_type != "proposal")
    if sees_all(principal):
        return None
    from chalicelib.areas.proposals import service as proposals_service

    # not None: the proposals scope is all of them only for who sees all (sees_all, answered above)
    return or_(Page.entity_type.is_(None), Page.entity_type != "proposal",
               Page.entity_id.in_(proposals_service.visible_ids(principal)))


def page_readers(db, page_id: str, user_ids) -> set[str]:
    """Which of these users may read the page: active, `pages:view`, and the page inside their scope (`visible`: a
    proposal's page only with the proposal), two statements at most whatever their number (core.readers.readers)."""
    return readers(db, Page, page_id, user_ids, tool="pages", scope_of=visible)


def load_page(ctx, page_id: str) -> Page:
    """The page if the caller may see it; 404 otherwise."""
    return visible_row(ctx.db, Page, page_id, visible(ctx.principal), "Page")


def page_exists(ctx, page_id: str) -> None:
    """404 unless the page exists and the caller may see it (one query, nothing loaded)."""
    if ctx.db.scalar(in_scope(select(Page.id).where(Page.id == page_id), visible(ctx.principal))) is None:
        raise not_found("Page")


def load_discussion(ctx, page_id: str, discussion_id: str) -> PageDiscussion:
    """The discussion of this page; 404 when the page or the discussion is missing or they do not match."""
    page_exists(ctx, page_id)
    discussion = ctx.db.get(PageDiscussion, discussion_id)
    if discussion is None or discussion.page_id != page_id:
        raise not_found("Discussion")
    return discussion


def load_comment(ctx, page_id: str, discussion_id: str, comment_id: str) -> PageComment:
    """The comment of this discussion of this page; 404 otherwise."""
    load_discussion(ctx, page_id, discussion_id)
    comment = ctx.db.get(PageComment, comment_id)
    if comment is None or comment.discussion_id != discussion_id:
        raise not_found("Comment")
    return comment


def load_version(ctx, page_id: str, version_id: str) -> PageVersion:
    """The version of this page (the page already loaded or checked); 404 otherwise."""
    version = ctx.db.scalar(select(PageVersion).where(PageVersion.id == version_id, PageVersion.page_id == page_id))
    if version is None:
        raise not_found("Version")
    return version


# --- pages ------------------------------------------------------------------------------------

# Aliases built once per process: an alias builds a proxy of each of its table's columns on first use (about 60
# Column objects a request when they were made per call).
_CREATOR, _UPDATER = aliased(User, name="creator"), aliased(User, name="updater")


@cache
def _list_base(preview: bool):
    """The list's columns with the creator's and updater's names, built once per process (statements are
    immutable: the list's filters answer copies); a search's adds `content_preview`."""
    columns = [getattr(Page, name) for name in LIST_FIELDS + FLAGS]
    if preview:
        columns.append(func.coalesce(func.substr(Page.content, 1, PREVIEW_LENGTH), "").label("content_preview"))
    return (select(*columns, _CREATOR.name.label("created_by_name"), _UPDATER.name.label("updated_by_name"))
            .outerjoin(_CREATOR, _CREATOR.id == Page.created_by)
            .outerjoin(_UPDATER, _UPDATER.id == Page.updated_by))


def page_list_select(ctx, *, preview: bool = False):
    """The list's columns only (no content, rich content or collaboration snapshot: a list shows none of them),
    with the creator's and updater's names; a search's first PREVIEW_LENGTH characters of the content as
    `content_preview`. Read with core.query.record_page (flags: FLAGS), its children counts and the caller's
    favourites with `page_list_lookups`."""
    return _list_base(preview)


def _children_statement(page_in):
    return (select(Page.parent_id, func.count().label("n"))
            .where(page_in(Page.parent_id), Page.is_archived.is_(False)).group_by(Page.parent_id))


def _favourites_statement(page_in):
    return select(PageFavourite.page_id).where(page_in(PageFavourite.page_id),
                                               PageFavourite.user_id == bindparam("favourite_user"))


def page_list_lookups(ctx, records: list[dict]) -> dict:
    """The reads that follow a page of records (core.query.record_page's `lookups`): the pages' counts of
    children not archived, grouped, and which of them the caller has favourited."""
    ids = [record["id"] for record in records]
    favourites = ids_read(ctx.db, _favourites_statement, "favourite_page_ids", ids)
    return {"children": ids_read(ctx.db, _children_statement, "children_page_ids", ids),
            "favourites": None if favourites is None else Read(favourites.stmt,
                                                               {**favourites.params, "favourite_user": ctx.user_id})}


def page_list_records(records: list[dict], sets: dict) -> list[dict]:
    """Records of `page_list_select` with `children_count` and `is_favourited` (a count and a yes/no) from the
    sets `page_list_lookups` read."""
    children = {row["parent_id"]: int(row["n"]) for row in sets["children"]}
    favourites = {row["page_id"] for row in sets["favourites"]}
    for record in records:
        record["children_count"] = children.get(record["id"], 0)
        record["is_favourited"] = record["id"] in favourites
    return records


@cache
def _detail_select():
    """The list's columns and names with the content (text and rich), for a detail; built once per process."""
    return _list_base(False).add_columns(Page.content, Page.content_rich)


def page_record(ctx, page_id: str) -> dict:
    """The page's detail record (content included) with its children count and whether the caller favourited it,
    read as the list reads them (`page_list_lookups`), all in one statement (core.query.record_sets); 404 when
    it does not exist or the caller may not see it."""
    ctx.db.flush()
    detail = in_scope(_detail_select().where(Page.id == page_id), visible(ctx.principal))
    sets = record_sets(ctx.db, page=Read(detail, {}, FLAGS),
                       **page_list_lookups(ctx, [{"id": page_id}]))
    if not sets["page"]:
        raise not_found("Page")
    record = page_list_records(sets["page"], sets)[0]
    record["content"] = record["content"] or ""
    return record


# --- discussions ------------------------------------------------------------------------------

def comment_out(comment: PageComment, name, picture) -> dict:
    return {"id": comment.id, "discussion_id": comment.discussion_id, "user_id": comment.user_id,
            "content": comment.content, "content_rich": comment.content_rich,
            "is_edited": 1 if comment.is_edited else 0, "created_at": value_out(comment.created_at),
            "updated_at": value_out(comment.updated_at), "user_name": name, "user_avatar": picture}


def discussion_out(discussion: PageDiscussion, name, picture, comments: list[dict]) -> dict:
    return {"id": discussion.id, "page_id": discussion.page_id, "user_id": discussion.user_id,
            "document_content": discussion.document_content,
            "document_content_rich": discussion.document_content_rich, "is_resolved": bool(discussion.is_resolved),
            "created_at": value_out(discussion.created_at), "updated_at": value_out(discussion.updated_at),
            "user_name": name, "user_avatar": picture, "comments": comments}


def discussion_participants(db, page_id: str, discussion: PageDiscussion) -> tuple[str, set[str]]:
    """The page's title and who takes part in the discussion: its creator and the author of each of its comments
    (users since deleted left out), in one statement whatever their number."""
    rows = db.execute(select(Page.title, PageComment.user_id)
                      .outerjoin(PageComment, PageComment.discussion_id == discussion.id)
                      .where(Page.id == page_id).distinct()).all()
    participants = {user_id for _, user_id in rows if user_id} | ({discussion.user_id} if discussion.user_id else set())
    return rows[0].title, participants


def count_of(db, column, parent_id: str) -> int:
    """How many rows have `column` == parent_id (the caps of discussions and comments)."""
    return db.scalar(select(func.count()).where(column == parent_id)) or 0


# --- versions ---------------------------------------------------------------------------------

def newest_version(db, page_id: str):
    """The page's newest version as a row (`id`, `same`: its title, content and content_rich equal the page's as
    stored, `total`: how many versions the page has), or None when it has none. One statement; the bodies are
    compared by the database, not read."""
    same = and_(PageVersion.title.is_not_distinct_from(Page.title),
                PageVersion.content.is_not_distinct_from(Page.content),
                PageVersion.content_rich.is_not_distinct_from(Page.content_rich))
    return db.execute(
        select(PageVersion.id, same.label("same"), func.count().over().label("total"))
        .join(Page, Page.id == PageVersion.page_id)
        .where(PageVersion.page_id == page_id)
        .order_by(PageVersion.created_at.desc(), PageVersion.id.desc()).limit(1)
    ).first()


def version_out(version: PageVersion, user_name, *, detail: bool = False) -> dict:
    """A version as answered (a detail with its `content_rich`); `version` is a PageVersion, or a row of
    `versions_with_user` (the list's columns)."""
    out = {"id": version.id, "page_id": version.page_id, "user_id": version.user_id, "title": version.title,
           "created_at": value_out(version.created_at), "user_name": user_name}
    if detail:
        out["content_rich"] = version.content_rich
    return out


@cache
def _version_list_base():
    """The version list's columns (no content nor content_rich: unbounded, and the list answers neither) with the
    author's name; built once per process."""
    return (select(PageVersion.id, PageVersion.page_id, PageVersion.user_id, PageVersion.title,
                   PageVersion.created_at, User.name.label("user_name"))
            .outerjoin(User, User.id == PageVersion.user_id))


def versions_with_user(page_id: str):
    """The ordered statement of a page's versions, newest first, author name joined: rows of the list's columns
    (`version_out(row, row.user_name)`), without the bodies."""
    return (_version_list_base().where(PageVersion.page_id == page_id)
            .order_by(PageVersion.created_at.desc(), PageVersion.id.desc()))


# ---------------------------------------------------------------- what a write would store

UNTITLED = "Untitled"


def clean_title(title: str | None) -> str:
    title = (title or "").strip()
    return title or UNTITLED


def _document(text: str | None) -> str | None:
    """The JSON document rich content text holds, in one spelling (keys sorted, no spaces: `true` and `1` stay
    apart, as Python's `==` would not keep them); None for none (null or blank); the text itself when it is not
    JSON (stored before session 22's check)."""
    if text is None or not text.strip():
        return None
    try:
        return json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except ValueError:
        return text


def same_stored(name: str, sent, stored) -> bool:
    """Whether `sent` for the field `name` would store what the page holds (`stored`): content null is stored as "",
    a title as `clean_title` makes it; rich content is compared as the JSON document it holds (spacing, key order,
    or the value sent instead of its text change nothing of it). A proposal's page and a version restore ask it
    before clearing approvals."""
    if name == "content":
        return (sent or "") == (stored or "")
    if name == "content_rich":
        return sent == stored or _document(sent) == _document(stored)
    if name == "title":
        return clean_title(sent) == stored
    return sent == stored
