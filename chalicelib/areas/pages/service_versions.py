"""Page versions: snapshots of a page's title and rich content; restore keeps the current state first."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import Conflict, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.models import User
from chalicelib.core.serialize import value_out

from .models import PageVersion
from .service import load_page, page_exists

VERSIONS_LISTED = 50


def _version_out(version: PageVersion, user_name, *, detail: bool = False) -> dict:
    out = {"id": version.id, "page_id": version.page_id, "user_id": version.user_id, "title": version.title,
           "created_at": value_out(version.created_at), "user_name": user_name}
    if detail:
        out["content_rich"] = version.content_rich
    return out


def list_versions(ctx, *, page_id: str) -> list[dict]:
    page_exists(ctx, page_id)
    rows = ctx.db.execute(
        select(PageVersion, User.name).outerjoin(User, User.id == PageVersion.user_id)
        .where(PageVersion.page_id == page_id)
        .order_by(PageVersion.created_at.desc(), PageVersion.id.desc()).limit(VERSIONS_LISTED)
    ).all()
    return [_version_out(version, name) for version, name in rows]


def _snapshot(ctx, page) -> PageVersion:
    version = PageVersion(page_id=page.id, user_id=ctx.user_id, title=page.title, content=page.content,
                          content_rich=page.content_rich, created_at=utcnow())
    ctx.db.add(version)
    ctx.db.flush()
    return version


def create_version(ctx, *, page_id: str) -> dict:
    version = _snapshot(ctx, load_page(ctx, page_id))
    return {"id": version.id, "page_id": version.page_id}


def get_version(ctx, *, page_id: str, version_id: str) -> dict:
    page_exists(ctx, page_id)
    row = ctx.db.execute(
        select(PageVersion, User.name).outerjoin(User, User.id == PageVersion.user_id)
        .where(PageVersion.id == version_id, PageVersion.page_id == page_id)
    ).first()
    if row is None:
        raise not_found("Version")
    return _version_out(row[0], row[1], detail=True)


def restore_version(ctx, *, page_id: str, version_id: str) -> None:
    page = load_page(ctx, page_id)
    version = ctx.db.scalar(select(PageVersion).where(PageVersion.id == version_id, PageVersion.page_id == page_id))
    if version is None:
        raise not_found("Version")
    if page.lock_page:
        raise Conflict("Page is locked: unlock it to restore a version")
    _snapshot(ctx, page)  # the current state stays recoverable
    page.title = version.title
    page.content_rich = version.content_rich
    if version.content is not None:
        page.content = version.content
    page.collab_snapshot = None
    page.updated_by = ctx.user_id
    page.updated_at = utcnow()
    ctx.db.flush()
