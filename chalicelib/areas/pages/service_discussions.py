"""Page discussions (a highlighted passage) and their comments. Deletes are hard deletes."""
from __future__ import annotations

from collections import defaultdict

from sqlalchemy import delete, select

from chalicelib.core.errors import BadRequest, Forbidden, not_found
from chalicelib.core.ids import is_uuid, new_id, utcnow
from chalicelib.core.models import User
from chalicelib.core.serialize import value_out

from .models import PageComment, PageDiscussion
from .service import page_exists

LIST_LIMIT = 500


def _client_id(value: str | None) -> str:
    if value is None:
        return new_id()
    if not is_uuid(value):
        raise BadRequest("id must be a UUID")
    return str(value).lower()


def _comment_out(comment: PageComment, name, picture) -> dict:
    return {"id": comment.id, "discussion_id": comment.discussion_id, "user_id": comment.user_id,
            "content": comment.content, "content_rich": comment.content_rich,
            "is_edited": 1 if comment.is_edited else 0, "created_at": value_out(comment.created_at),
            "updated_at": value_out(comment.updated_at), "user_name": name, "user_avatar": picture}


def list_discussions(ctx, *, page_id: str) -> list[dict]:
    """Two queries whatever the size: the discussions with their authors, then all their comments."""
    page_exists(ctx, page_id)
    rows = ctx.db.execute(
        select(PageDiscussion, User.name, User.picture)
        .outerjoin(User, User.id == PageDiscussion.user_id)
        .where(PageDiscussion.page_id == page_id)
        .order_by(PageDiscussion.created_at, PageDiscussion.id).limit(LIST_LIMIT)
    ).all()
    comments = defaultdict(list)
    if rows:
        for comment, name, picture in ctx.db.execute(
            select(PageComment, User.name, User.picture)
            .outerjoin(User, User.id == PageComment.user_id)
            .join(PageDiscussion, PageDiscussion.id == PageComment.discussion_id)
            .where(PageDiscussion.page_id == page_id)
            .order_by(PageComment.created_at, PageComment.id)
        ):
            comments[comment.discussion_id].append(_comment_out(comment, name, picture))
    return [{"id": d.id, "page_id": d.page_id, "user_id": d.user_id, "document_content": d.document_content,
             "document_content_rich": d.document_content_rich, "is_resolved": bool(d.is_resolved),
             "created_at": value_out(d.created_at), "updated_at": value_out(d.updated_at),
             "user_name": name, "user_avatar": picture, "comments": comments.get(d.id, [])}
            for d, name, picture in rows]


def create_discussion(ctx, *, page_id: str, data) -> dict:
    page_exists(ctx, page_id)
    discussion = PageDiscussion(id=_client_id(data.id), page_id=page_id, user_id=ctx.user_id,
                                document_content=data.document_content,
                                document_content_rich=data.document_content_rich)
    ctx.db.add(discussion)
    ctx.db.flush()
    if data.comment is not None and (data.comment.strip() or data.comment_rich):
        ctx.db.add(PageComment(discussion_id=discussion.id, user_id=ctx.user_id, content=data.comment,
                               content_rich=data.comment_rich))
        ctx.db.flush()
    return {"id": discussion.id, "page_id": page_id}


def _load_discussion(ctx, page_id: str, discussion_id: str) -> PageDiscussion:
    page_exists(ctx, page_id)
    discussion = ctx.db.get(PageDiscussion, discussion_id)
    if discussion is None or discussion.page_id != page_id:
        raise not_found("Discussion")
    return discussion


def _load_comment(ctx, page_id: str, discussion_id: str, comment_id: str) -> PageComment:
    _load_discussion(ctx, page_id, discussion_id)
    comment = ctx.db.get(PageComment, comment_id)
    if comment is None or comment.discussion_id != discussion_id:
        raise not_found("Comment")
    return comment


def add_comment(ctx, *, page_id: str, discussion_id: str, data) -> dict:
    discussion = _load_discussion(ctx, page_id, discussion_id)
    comment = PageComment(id=_client_id(data.id), discussion_id=discussion.id, user_id=ctx.user_id,
                          content=data.content, content_rich=data.content_rich)
    ctx.db.add(comment)
    discussion.updated_at = utcnow()
    ctx.db.flush()
    return {"id": comment.id}


def edit_comment(ctx, *, page_id: str, discussion_id: str, comment_id: str, data) -> None:
    """The author edits their comment (pages:manage may edit any); the comment is marked edited."""
    comment = _load_comment(ctx, page_id, discussion_id, comment_id)
    if comment.user_id != ctx.user_id and not ctx.can("pages", "manage"):
        raise Forbidden("Only the author can edit this comment")
    comment.content = data.content
    comment.content_rich = data.content_rich
    comment.is_edited = True
    comment.updated_at = utcnow()
    ctx.db.flush()


def delete_comment(ctx, *, page_id: str, discussion_id: str, comment_id: str) -> None:
    comment = _load_comment(ctx, page_id, discussion_id, comment_id)
    ctx.db.delete(comment)
    ctx.db.flush()


def toggle_resolved(ctx, *, page_id: str, discussion_id: str) -> bool:
    discussion = _load_discussion(ctx, page_id, discussion_id)
    discussion.is_resolved = not discussion.is_resolved
    discussion.updated_at = utcnow()
    ctx.db.flush()
    return bool(discussion.is_resolved)


def delete_discussion(ctx, *, page_id: str, discussion_id: str) -> None:
    discussion = _load_discussion(ctx, page_id, discussion_id)
    ctx.db.execute(delete(PageComment).where(PageComment.discussion_id == discussion.id))
    ctx.db.delete(discussion)
    ctx.db.flush()
