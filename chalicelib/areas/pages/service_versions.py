"""Page versions: snapshots of a page's title and rich content; restore keeps the current state first.

Bounded (session 22 audit): a page holds at most VERSION_LIMIT versions (409 beyond), and a snapshot identical to the
page's newest version is not written again (the newest version is the snapshot: its id is answered). Each request
takes the page's row lock first, so concurrent snapshots neither pass the cap together nor copy the page twice.
"""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import Conflict, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row
from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT, Page, paginate

from .models import Page as PageModel, PageVersion
from .queries import load_version, newest_version, page_exists, same_stored, version_out, versions_with_user

# A page holds at most LIST_LIMIT (500) versions, as it holds at most 500 discussions; each copies the page whole.
VERSION_LIMIT = LIST_LIMIT


def list_versions(ctx, *, page_id: str, query) -> Page:
    """Newest first, at most 50 per request (the spec's cap), with `total` and `offset` for the older ones."""
    page_exists(ctx, page_id)
    return paginate(ctx.db, versions_with_user(page_id), query, lambda row: version_out(row, row.user_name))


def _snapshot(ctx, page) -> str:
    """The id of the version holding the page's current state (locked by the caller, unchanged in this session):
    its newest version when that is identical (title, content and content_rich), else a new one; 409 when a new one
    would pass VERSION_LIMIT. The comparison and the count are one statement, in SQL (no version body is read)."""
    newest = newest_version(ctx.db, page.id)
    if newest is not None and newest.same:
        return newest.id
    if newest is not None and newest.total >= VERSION_LIMIT:
        raise Conflict(f"A page holds at most {VERSION_LIMIT} versions")
    version = PageVersion(page_id=page.id, user_id=ctx.user_id, title=page.title, content=page.content,
                          content_rich=page.content_rich, created_at=utcnow())
    ctx.db.add(version)
    ctx.db.flush()
    return version.id


def create_version(ctx, *, page_id: str) -> dict:
    """201 with the snapshot's id: a new version, or the newest one when the page has not changed since."""
    page_exists(ctx, page_id)
    page = lock_row(ctx.db, PageModel, page_id, missing="Page")
    return {"id": _snapshot(ctx, page), "page_id": page.id}


def get_version(ctx, *, page_id: str, version_id: str) -> dict:
    page_exists(ctx, page_id)
    row = ctx.db.execute(
        select(PageVersion, User.name).outerjoin(User, User.id == PageVersion.user_id)
        .where(PageVersion.id == version_id, PageVersion.page_id == page_id)
    ).first()
    if row is None:
        raise not_found("Version")
    return version_out(row[0], row[1], detail=True)


def _restored(version, page) -> list[str]:
    """The fields (title, content, content_rich) a restore of `version` changes on `page` (as queries.same_stored
    compares them: the rich content as its JSON document); content only when the version holds it."""
    names = ["title", "content_rich"] + (["content"] if version.content is not None else [])
    return [name for name in ("title", "content", "content_rich")
            if name in names and not same_stored(name, getattr(version, name), getattr(page, name))]


def restore_version(ctx, *, page_id: str, version_id: str) -> None:
    from chalicelib.core.query import in_scope

    from .queries import visible

    # the page's existence (in the caller's scope) and what it belongs to, in one statement (page_exists' own)
    owner = ctx.db.execute(in_scope(select(PageModel.entity_type, PageModel.entity_id).where(PageModel.id == page_id),
                                    visible(ctx.principal))).first()
    if owner is None:
        raise not_found("Page")
    version = load_version(ctx, page_id, version_id)
    passed = None
    if owner.entity_type == "proposal":  # a decided proposal's content stays as approved or signed (session 22)
        from chalicelib.areas.proposals import service as proposals_service

        proposals_service.require_changeable_id(ctx, owner.entity_id)  # not a listed approver's change (session 29)
        # before the page's lock: the proposal's row first, then its page, as the proposal's own writes take them.
        # Only the fields the restore changes (session 23's review: restoring the page's own state cleared the
        # approvals given in review), as the page is now: its three fields read in one statement more
        current = ctx.db.execute(select(PageModel.title, PageModel.content, PageModel.content_rich)
                                 .where(PageModel.id == page_id)).first()
        if current is None:
            raise not_found("Page")
        passed = _restored(version, current)
        refusal = proposals_service.content_frozen(ctx.db, owner.entity_id, passed, actor_id=ctx.user_id)
        if refusal:
            raise Conflict(refusal)
    # the snapshot below is of the page as a concurrent edit committed it (else that edit was overwritten and
    # in no version)
    page = lock_row(ctx.db, PageModel, page_id, missing="Page")
    if passed is not None:
        # an edit committed between the read above and the lock: the fields it made differ are asked too (the
        # proposal's row is held already, FOR SHARE, by this transaction: the second ask waits for nobody)
        more = [name for name in _restored(version, page) if name not in passed]
        if more:
            refusal = proposals_service.content_frozen(ctx.db, owner.entity_id, more, actor_id=ctx.user_id)
            if refusal:
                raise Conflict(refusal)
    if page.lock_page:
        raise Conflict("Page is locked: unlock it to restore a version")
    _snapshot(ctx, page)  # the current state stays recoverable (409 when that needs a version past the cap)
    page.title = version.title
    page.content_rich = version.content_rich
    if version.content is not None:
        page.content = version.content
    page.collab_snapshot = None
    page.updated_by = ctx.user_id
    page.updated_at = utcnow()
    ctx.db.flush()
