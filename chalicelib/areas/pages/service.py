"""Pages: the page tree, list filters, favourites, archive, publish and lock.

Every read loads what the response needs in one query: creator and updater names through joins,
children_count as a correlated count, is_favourited as a correlated EXISTS for the caller.
"""
from __future__ import annotations

from dataclasses import replace
from functools import cache

from sqlalchemy import and_, delete, exists, func, select

from chalicelib.core.errors import BadRequest, Conflict, NotFound, bad_field
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_ignore, lock_key, update_rows
from chalicelib.core.query import Page as ResultPage, contains_text, in_scope, record_page, record_rows
from chalicelib.core.serialize import value_out

from .models import Page, PageFavourite
from .queries import (FLAGS, clean_title, load_page, page_exists, page_list_lookups, page_list_records,
                      page_list_select, page_record, same_stored, visible)

SEARCH_LIMIT = 50  # the spec's cap of search results: a search answers at most 50 rows per request
# Fields a locked page refuses to change (the page's text and appearance); flags stay settable.
LOCKED_FIELDS = ("title", "content", "content_rich", "icon", "cover_image", "text_style", "full_width", "small_text", "toc")


def list_pages(ctx, *, query) -> ResultPage:
    """One page of the list (`limit`/`offset`, with `total`); a search answers at most SEARCH_LIMIT
    rows per request (its `limit` says so, its `total` counts every match). The rows are read as records
    (core.query.record_page) with the list's columns only."""
    search = query.search or ""
    stmt = in_scope(page_list_select(ctx, preview=bool(search)).where(Page.is_archived.is_(bool(query.archived))),
                    visible(ctx.principal))
    if query.entity_type or query.entity_id:
        if not (query.entity_type and query.entity_id):
            raise _unpaired(query.entity_type)
        # as a page is now stored (schemas._kind_code) or as one stored before in the spelling given (session 32)
        kinds = sorted({query.entity_type, query.entity_type.strip().lower()})
        stmt = stmt.where(Page.entity_type.in_(kinds), Page.entity_id == query.entity_id)
    if query.favourites:
        stmt = stmt.where(exists().where(PageFavourite.page_id == Page.id, PageFavourite.user_id == ctx.user_id))
    if search:
        title_match = contains_text(search, Page.title)
        stmt = (stmt.where(contains_text(search, Page.title, Page.content))
                .order_by(title_match.desc(), Page.updated_at.desc(), Page.id))
        cut = query.model_copy(update={"limit": min(query.limit, SEARCH_LIMIT)})
        return _records(ctx, stmt, cut)
    if not (query.entity_type or query.favourites or query.archived):
        stmt = stmt.where(Page.entity_type.is_(None))  # standalone pages: not attached to another record
    stmt = stmt.order_by(Page.parent_id.is_not(None), Page.parent_id, Page.position, Page.title, Page.id)
    return _records(ctx, stmt, query)


def _records(ctx, stmt, query) -> ResultPage:
    page, sets = record_page(ctx.db, stmt, query, FLAGS, lookups=lambda records: page_list_lookups(ctx, records))
    return replace(page, items=page_list_records(page.items, sets))


def get_page(ctx, *, page_id: str) -> dict:
    return page_record(ctx, page_id)


def _lock_siblings(db, parent_id: str | None, entity_type: str | None, entity_id: str | None) -> None:
    """Hold the key of a sibling group until commit: a parent's children are one group whatever their entity links
    (a sub-page may carry its own), keyed by the parent alone; root pages are grouped by their entity. Every writer
    of a position in a group takes it (create, move, a delete's re-homing of children to the root). Session 25: a
    child's key named its entity too, so two children of one parent with different links read the same highest
    position and stored the same one."""
    if parent_id is not None:
        lock_key(db, "pages", parent_id)
    else:
        lock_key(db, "pages", None, entity_type, entity_id)


def _next_position(ctx, *, parent_id: str | None, entity_type: str | None, entity_id: str | None) -> float:
    # the sibling group is locked until commit, so concurrent creates and moves take distinct positions
    _lock_siblings(ctx.db, parent_id, entity_type, entity_id)
    if parent_id is not None:
        where = Page.parent_id == parent_id
    else:
        where = and_(Page.parent_id.is_(None),
                     Page.entity_type == entity_type if entity_type else Page.entity_type.is_(None),
                     Page.entity_id == entity_id if entity_id else Page.entity_id.is_(None))
    highest = ctx.db.scalar(select(func.max(Page.position)).where(where))
    return 0.0 if highest is None else float(highest) + 1


def _check_parent(ctx, page: Page | None, parent_id: str) -> None:
    """The parent must be a page the caller can see (a proposal's page hidden from them answers like a missing
    one, as every page route does), not a proposal's content page (kept out of the page tree: a sub-page
    there would list under a parent most readers cannot open), and not the page itself or one of its
    descendants (one statement: the parent's ancestry)."""
    anchor = in_scope(select(Page.id, Page.parent_id, Page.entity_type).where(Page.id == parent_id),
                      visible(ctx.principal))
    ancestors = anchor.cte("ancestors", recursive=True)
    ancestors = ancestors.union(select(Page.id, Page.parent_id, Page.entity_type)
                                .join(ancestors, Page.id == ancestors.c.parent_id))
    chain = dict(ctx.db.execute(select(ancestors.c.id, ancestors.c.entity_type)).all())
    if parent_id not in chain:
        raise BadRequest("Parent page not found",
                         details=[{"field": "parent_id", "message": "must be an existing page"}])
    if chain[parent_id] == "proposal":
        raise BadRequest("A proposal's page cannot hold sub-pages",
                         details=[{"field": "parent_id", "message": "is a proposal's content page"}])
    if page is not None and page.id in chain:
        raise BadRequest("A page cannot be moved under itself or one of its sub-pages",
                         details=[{"field": "parent_id", "message": "is the page itself or one of its sub-pages"}])


def _require_open_parent(ctx, parent_id: str) -> None:
    """An archived page is out of the page tree (a delete archives it and detaches its children to the root): nothing
    is placed under it, by a create or a move (409 naming `parent_id`, nothing written; session 31: both made pages
    that hung under an archived parent, unseen in the tree, with the list's root-first order). Read holding the
    parent's sibling key (`_lock_siblings`, which a delete of the parent now takes before it reads the children to
    detach): a delete committed first is seen here, and a create or move committed first is among the children it
    detaches. Restore the parent first, or pick another."""
    if _parent_archived(ctx, parent_id):
        raise Conflict("Parent page is archived: restore it first",
                       details=[{"field": "parent_id", "message": "is an archived page"}])


def _parent_archived(ctx, parent_id: str) -> bool:
    """Whether the parent is archived, read holding its sibling key (a delete or a PATCH archive of it takes that key
    before it reads the children it detaches: one committed first is seen here, one that waits finds this page)."""
    _lock_siblings(ctx.db, parent_id, None, None)
    return bool(ctx.db.scalar(select(Page.is_archived).where(Page.id == parent_id)))


def _check_proposal(ctx, proposal_id: str) -> None:
    """A page linked to a proposal is seen only with the proposal (queries.visible): linking one the caller may not
    see, or none at all, is a 400 on entity_id (one query, the proposals area's scoped load); the page was made and
    then answered 404 ("Page not found"), the create's own read being scoped, and an executive (who sees every
    proposal) linked a page to a proposal that does not exist. "Can see" is the `proposals` tool at view and the
    proposal's scope (session 29: the scope alone let a head whose proposals permission is none link to any)."""
    from chalicelib.areas.proposals import service as proposals_service

    try:
        proposals_service.seen_proposal(ctx, proposal_id)  # the `proposals` tool and the row scope
    except NotFound:
        raise bad_field("entity_id", "must be a proposal you can see") from None


def _check_link(ctx, entity_type: str, entity_id: str) -> None:
    """A page linked to a project or a company is published in that client's portal: the link names a record the
    caller can see (400 on entity_id otherwise, as for a proposal, nothing written). A project: `projects:view` and
    the caller's project scope (projects' `link_project`, which share-locks it); a company: `deals:view` and an
    existing one (every deals holder sees every company). Session 29: neither was asked, so a head whose projects or
    deals permission is none, or anyone naming a made-up id or a project outside their scope, published pages into
    a client's portal. Other entity types stay free labels (the specification's "link to another entity")."""
    if entity_type == "project":
        from chalicelib.areas.projects import service as projects_service  # another area: imported lazily

        try:
            projects_service.link_project(ctx, entity_id)  # projects:view and the row scope
        except NotFound:
            raise bad_field("entity_id", "must be a project you can see") from None
    elif entity_type == "company":
        from chalicelib.areas.deals import service as deals_service  # another area: imported lazily

        if not deals_service.link_company(ctx, entity_id):  # deals:view and an existing company
            raise bad_field("entity_id", "must be a company you can see")


def _require_changeable(ctx, proposal_id: str) -> None:
    """A proposal's page is read with the proposal, its listed approvers included (`visible_ids`); changing it is
    changing the proposal, which its owner's scope does: an approver who sees it only as one gets 403 (session 29)."""
    from chalicelib.areas.proposals import service as proposals_service

    proposals_service.require_changeable_id(ctx, proposal_id)


def _unpaired(entity_type: str | None) -> BadRequest:
    """The 400 of an entity_type without its entity_id or the reverse, naming the one missing."""
    missing, given = ("entity_id", "entity_type") if entity_type else ("entity_type", "entity_id")
    return BadRequest("entity_type and entity_id go together",
                      details=[{"field": missing, "message": f"required with {given}"}])


def _check_no_parent(entity_type: str | None, parent_id: str | None) -> None:
    """A proposal's content page never has a parent: it is kept out of the page tree, where every pages:view holder
    saw the parent's children_count include a page that answered them 404."""
    if entity_type == "proposal" and parent_id:
        raise BadRequest("A proposal's page cannot be placed in the page tree",
                         details=[{"field": "parent_id", "message": "a proposal's content page has no parent"}])


def create_page(ctx, *, data) -> dict:
    if (data.entity_type is None) != (data.entity_id is None):
        raise _unpaired(data.entity_type)
    _check_no_parent(data.entity_type, data.parent_id)
    if data.entity_type == "proposal":
        _check_proposal(ctx, data.entity_id)
    elif data.entity_type:
        _check_link(ctx, data.entity_type, data.entity_id)
    if data.parent_id:
        _check_parent(ctx, None, data.parent_id)
        _require_open_parent(ctx, data.parent_id)
    page = Page(title=clean_title(data.title), content=data.content or "", content_rich=data.content_rich,
                parent_id=data.parent_id or None, entity_type=data.entity_type, entity_id=data.entity_id,
                icon=data.icon, created_by=ctx.user_id, updated_by=ctx.user_id)
    page.position = _next_position(ctx, parent_id=page.parent_id, entity_type=page.entity_type, entity_id=page.entity_id)
    ctx.db.add(page)
    ctx.db.flush()
    return get_page(ctx, page_id=page.id)


def update_page(ctx, *, page_id: str, data) -> dict:
    page = load_page(ctx, page_id)
    changes = data.changes()
    _check_no_parent(page.entity_type, changes.get("parent_id"))  # entity_type and entity_id are not updatable
    if page.entity_type == "proposal" and changes:
        _require_changeable(ctx, page.entity_id)
    unlocking = changes.get("lock_page") is False
    if page.lock_page and not unlocking:
        # a change is what would be stored (queries.same_stored, as the proposal freeze and the save-back compare it):
        # `title: null` on an "Untitled" page, `content: null` on an empty one, or the rich content sent as its JSON
        # value over the same document stored spelled otherwise is no change (session 29: each was a 409 on a publish)
        locked = [name for name in LOCKED_FIELDS
                  if name in changes and not same_stored(name, changes[name], _current(page, name))]
        if locked:
            raise Conflict(f"Page is locked: unlock it to change {', '.join(locked)}")
    if page.entity_type == "proposal":  # a decided proposal's content stays as approved or signed (session 22)
        # what would be stored, compared with what is (session 23's review): a no-op neither is refused nor, in
        # review, clears the approvals given (content null is stored as "", rich content is its JSON document)
        edited = [name for name in ("title", "content", "content_rich")
                  if name in changes and not same_stored(name, changes[name], _current(page, name))]
        if edited:  # one statement more, on a proposal's page only
            from chalicelib.areas.proposals import service as proposals_service

            refusal = proposals_service.content_frozen(ctx.db, page.entity_id, edited, actor_id=ctx.user_id)
            if refusal:
                raise Conflict(refusal)
    # the move first, before any field is set: its keys (pages-tree, the new siblings') come before the page's row,
    # as a parent's delete takes the root siblings' key before it writes its children's rows; with the title set
    # first, the key's statement flushed (locked) the row, and a delete of its parent at once deadlocked (409;
    # session 22's review)
    parent_id = (changes["parent_id"] or None) if "parent_id" in changes else page.parent_id
    if parent_id != page.parent_id:
        if parent_id is None and changes.get("is_archived") is True:
            # archived and moved to the root at once: the page's children's key before the root's, in a delete's
            # order (its detach below takes them so; the root's first deadlocked with a delete of the page)
            _lock_siblings(ctx.db, page.id, None, None)
        if parent_id is not None:
            # moves under a parent take turns, so each checks the tree the others committed (two crossed moves,
            # A under B and B under A at once, both passed the check: a cycle that left both out of the tree)
            lock_key(ctx.db, "pages-tree")
            _check_parent(ctx, page, parent_id)
            _require_open_parent(ctx, parent_id)  # the new siblings' key, taken before the page's row as before
        _move(ctx, page, parent_id, changes)
    elif changes.get("is_archived") is False and page.is_archived and parent_id is not None:
        # a restore (session 31): an archived page is out of the tree, so a page restored under an archived parent
        # (archived since, or before PATCH archives detached children) goes to the root, last there unless a position
        # is sent, its parent sent back unchanged or not; a restore moving the page elsewhere is the move above
        if _parent_archived(ctx, parent_id):
            _move(ctx, page, None, changes)
    if changes.get("is_archived") is True:
        # an archive by update reaches the state a delete does, so it detaches the children the same way (session 31:
        # it kept them, live pages under a page out of the tree); after the move's keys, as they came before the
        # page's row, which must not be written before the delete's keys either (hence no autoflush of the move)
        with ctx.db.no_autoflush:
            _detach_children(ctx, page)
    if "title" in changes:
        page.title = clean_title(changes["title"])
    if "content" in changes:
        page.content = changes["content"] or ""
    if "content_rich" in changes:
        page.content_rich = changes["content_rich"]
        page.collab_snapshot = None  # the collaborative editor reloads from the new content
    for name in ("icon", "cover_image", "text_style", "full_width", "small_text", "lock_page", "toc", "is_archived"):
        if name in changes:
            setattr(page, name, changes[name])
    if "is_published" in changes:
        set_published(page, changes["is_published"])
    if "position" in changes:
        page.position = changes["position"]
    if ctx.db.is_modified(page):  # a page sent back as read is no edit: its editor and time stay (session 25)
        page.updated_by = ctx.user_id
        page.updated_at = utcnow()
    ctx.db.flush()
    return get_page(ctx, page_id=page.id)


def _move(ctx, page: Page, parent_id: str | None, changes: dict) -> None:
    """Place the page under `parent_id` (None: the root), last among its new siblings unless a position is sent."""
    if "position" in changes:  # set now: a detach of the children in the same request places them after it
        page.position = changes["position"]
    else:  # computed before the move, so the page does not count itself
        page.position = _next_position(ctx, parent_id=parent_id, entity_type=page.entity_type,
                                       entity_id=page.entity_id)
    page.parent_id = parent_id


def _current(page: Page, name: str):
    return getattr(page, name)


def set_published(page: Page, published: bool) -> None:
    if published and not page.is_published:
        page.published_at = utcnow()
    elif not published:
        page.published_at = None
    page.is_published = bool(published)


def delete_page(ctx, *, page_id: str) -> None:
    """Archive the page and move its children to the root, after the existing root pages in their order: their ids
    read (not the pages: their bodies are unbounded), then one UPDATE writing parent and position for all of them
    (core.locks.update_rows; the ORM's per-child flush was an executemany, one round trip a child on pg8000).
    The highest root position is read holding the key of the root sibling group the children join (the one
    `_next_position` takes; a key per group, in one order, should they be of several entities): concurrent deletes
    and root creates take turns and hand out distinct positions (session 22: they read the same maximum)."""
    page = load_page(ctx, page_id)
    if page.entity_type == "proposal":
        _require_changeable(ctx, page.entity_id)
    _detach_children(ctx, page)
    if not page.is_archived:  # archived already (a delete before, or PATCH): no edit of the page itself, whose
        # editor and time stay (session 31, as session 25's save-back rule); its children are detached all the same
        page.is_archived = True
        page.updated_by = ctx.user_id
        page.updated_at = utcnow()
    ctx.db.flush()


def _detach_children(ctx, page: Page) -> None:
    """Move the page's children to the root, after the existing root pages in their order (a delete, and since
    session 31 a PATCH archive: an archived page has no live children)."""
    # the page's own children's key before they are read: a create or a move under it waits for this delete and then
    # finds it archived (409), or commits first and is read here, detached with the rest (session 31)
    _lock_siblings(ctx.db, page.id, None, None)
    children_select = (select(Page.id).where(Page.parent_id == page.id)
                       .order_by(Page.position, Page.title, Page.id))
    rows = ctx.db.execute(children_select.add_columns(Page.entity_type, Page.entity_id)).all()
    if rows:
        for entity_type, entity_id in sorted({(row[1] or "", row[2] or "") for row in rows}):
            _lock_siblings(ctx.db, None, entity_type or None, entity_id or None)
        # the children again, locked (after the keys, as a move takes them): one moved away meanwhile is left where
        # it went, rather than pulled back to the root (session 22's races audit)
        children = list(ctx.db.scalars(children_select.with_for_update(of=Page)))
    else:
        children = []
    if children:
        base = ctx.db.scalar(select(func.max(Page.position)).where(Page.parent_id.is_(None)))
        base = -1.0 if base is None else float(base)
        if page.parent_id is None and page.position is not None:  # a PATCH moving the page itself to the root in
            base = max(base, float(page.position))  # the same request: its new position is not written yet
        update_rows(ctx.db, Page.__table__, [{"id": child_id, "parent_id": None, "position": base + offset}
                                             for offset, child_id in enumerate(children, start=1)])


def toggle_favourite(ctx, *, page_id: str) -> bool:
    page_exists(ctx, page_id)
    # concurrent toggles of one favourite run one after the other (each sees the last one's result)
    lock_key(ctx.db, "page_favourite", page_id, ctx.user_id)
    removed = ctx.db.execute(delete(PageFavourite).where(PageFavourite.page_id == page_id,
                                                         PageFavourite.user_id == ctx.user_id)).rowcount
    if removed:
        return False
    insert_ignore(ctx.db, PageFavourite, {"page_id": page_id, "user_id": ctx.user_id}, conflict=("user_id", "page_id"))
    return True


# ---------------------------------------------------------------- for other areas (proposals)

def create_record_page(ctx, *, title: str, content: str, content_rich: str | None, entity_type: str,
                       entity_id: str, actor_id: str | None) -> str:
    """A page attached to another area's record (kept out of the standalone page tree); answers its id."""
    page = Page(title=clean_title(title), content=content or "", content_rich=content_rich, entity_type=entity_type,
                entity_id=entity_id, position=0, created_by=actor_id, updated_by=actor_id)
    ctx.db.add(page)
    ctx.db.flush()
    return page.id


def record_page_content(db, page_id: str) -> tuple[str, str | None] | None:
    """(content, content_rich) of a page, or None when it does not exist (one query)."""
    row = db.execute(select(Page.content, Page.content_rich).where(Page.id == page_id)).first()
    return (row[0], row[1]) if row else None


def remove_record_page(db, page_id: str) -> None:
    """Delete a record's page for good (its discussions, versions and favourites go with it)."""
    db.execute(delete(Page).where(Page.id == page_id))


# ---------------------------------------------------------------- the client portal

PORTAL_PAGE_FIELDS = ("id", "title", "icon", "parent_id", "entity_type", "entity_id", "cover_image", "published_at",
                      "created_at", "updated_at")


def _portal_scope(company_ids, project_ids):
    from sqlalchemy import and_, or_

    return and_(Page.is_published.is_(True), Page.is_archived.is_(False),
                or_(and_(Page.entity_type == "company", Page.entity_id.in_(list(company_ids))),
                    and_(Page.entity_type == "project", Page.entity_id.in_(project_ids))))


def portal_pages(db, company_ids, project_ids) -> list[dict]:
    """The published, unarchived pages linked to these companies or their projects (`project_ids`: a SELECT),
    newest published first, at most LIST_LIMIT (one query; no content, no staff fields)."""
    from chalicelib.core.query import LIST_LIMIT

    return record_rows(db, _portal_list_select().where(_portal_scope(company_ids, project_ids))
                           .order_by(Page.published_at.desc().nulls_last(), Page.id).limit(LIST_LIMIT))


@cache
def _portal_list_select():
    """The portal list's columns only (PORTAL_PAGE_FIELDS): a page's content, rich content and collaboration
    snapshot are unbounded and the list answers none of them; built once per process."""
    return select(*(getattr(Page, name) for name in PORTAL_PAGE_FIELDS))


def portal_page(db, page_id: str, company_ids, project_ids) -> dict:
    """One published page of these companies or their projects with its rich content; 404 otherwise. The columns it
    answers only (not the collaboration snapshot, unbounded and of no use to a client)."""
    from chalicelib.core.errors import not_found

    page = db.execute(select(*(getattr(Page, name) for name in PORTAL_PAGE_FIELDS), Page.content, Page.content_rich)
                      .where(Page.id == page_id, _portal_scope(company_ids, project_ids))).first()
    if page is None:
        raise not_found("Page")
    return {**{f: value_out(getattr(page, f)) for f in PORTAL_PAGE_FIELDS}, "content": page.content or "",
            "content_rich": page.content_rich}
