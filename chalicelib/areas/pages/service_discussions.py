"""Page discussions (a highlighted passage) and their comments. Deletes are hard deletes."""
from __future__ import annotations

from collections import defaultdict

from sqlalchemy import delete, select

from chalicelib.core.errors import Conflict, Forbidden, bad_field
from chalicelib.core.ids import is_uuid, new_id, utcnow
from chalicelib.core.locks import lock_key, lock_row
from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT

from .models import PageComment, PageDiscussion
from .queries import (comment_out, count_of, discussion_out, discussion_participants, load_comment, load_discussion,
                      page_exists, page_readers, same_stored)

# A page holds at most LIST_LIMIT (500) discussions and a discussion at most LIST_LIMIT comments
# (409 beyond), so the discussion list answers them all.
DISCUSSION_LIMIT = COMMENT_LIMIT = LIST_LIMIT
BODY_LENGTH = 200  # a notice carries the start of the comment


def _client_id(value: str | None) -> str:
    if value is None:
        return new_id()
    if not is_uuid(value):
        raise bad_field("id", "must be a UUID")
    return str(value).lower()


def list_discussions(ctx, *, page_id: str) -> list[dict]:
    """Two queries whatever the size: the discussions with their authors, then all their comments."""
    page_exists(ctx, page_id)
    rows = ctx.db.execute(
        select(PageDiscussion, User.name, User.picture)
        .outerjoin(User, User.id == PageDiscussion.user_id)
        .where(PageDiscussion.page_id == page_id)
        .order_by(PageDiscussion.created_at, PageDiscussion.id).limit(DISCUSSION_LIMIT)
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
            comments[comment.discussion_id].append(comment_out(comment, name, picture))
    return [discussion_out(d, name, picture, comments.get(d.id, [])) for d, name, picture in rows]


def create_discussion(ctx, *, page_id: str, data) -> dict:
    """A page holds at most DISCUSSION_LIMIT discussions (409 beyond)."""
    page_exists(ctx, page_id)
    lock_key(ctx.db, "page_discussions", page_id)  # concurrent creates cannot pass the cap together
    if count_of(ctx.db, PageDiscussion.page_id, page_id) >= DISCUSSION_LIMIT:
        raise Conflict(f"A page holds at most {DISCUSSION_LIMIT} discussions")
    discussion = PageDiscussion(id=_client_id(data.id), page_id=page_id, user_id=ctx.user_id,
                                document_content=data.document_content,
                                document_content_rich=data.document_content_rich)
    ctx.db.add(discussion)
    ctx.db.flush()
    if (data.comment or "").strip() or data.comment_rich:  # rich content alone (an image, a mention) is a comment
        ctx.db.add(PageComment(discussion_id=discussion.id, user_id=ctx.user_id, content=data.comment or "",
                               content_rich=data.comment_rich))
        ctx.db.flush()
    return {"id": discussion.id, "page_id": page_id}


def _not_blank(content: str, content_rich: str | None) -> None:
    """A comment says something: text that is not white space alone, or rich content (an image, a mention), as a
    discussion's first comment is made only then (`create_discussion`). Session 32: a reply or an edit of blanks
    alone was stored, and the reply told the participants "X commented on Y" of nothing. 400 naming `content`."""
    if not content.strip() and not content_rich:
        raise bad_field("content", "must not be blank")


def add_comment(ctx, *, page_id: str, discussion_id: str, data) -> dict:
    """A discussion holds at most COMMENT_LIMIT comments (409 beyond). Its participants are told (`page_comment`,
    _notify_comment)."""
    _not_blank(data.content, data.content_rich)  # before any read or lock: bad input
    discussion = load_discussion(ctx, page_id, discussion_id)
    lock_row(ctx.db, PageDiscussion, discussion.id, missing="Discussion")  # concurrent replies cannot pass the cap together
    if count_of(ctx.db, PageComment.discussion_id, discussion.id) >= COMMENT_LIMIT:
        raise Conflict(f"A discussion holds at most {COMMENT_LIMIT} comments")
    comment = PageComment(id=_client_id(data.id), discussion_id=discussion.id, user_id=ctx.user_id,
                          content=data.content, content_rich=data.content_rich)
    ctx.db.add(comment)
    discussion.updated_at = utcnow()
    ctx.db.flush()
    _notify_comment(ctx, page_id, discussion, data.content)  # its participants read under the discussion's lock
    return {"id": comment.id}


def _notify_comment(ctx, page_id: str, discussion: PageDiscussion, content: str) -> None:
    """`page_comment` to the discussion's participants (its creator and every earlier commenter) but the author of
    the comment, and only to those who may read the page (queries.page_readers; the others are told nothing).
    Title: who commented on which page; body: the comment's first BODY_LENGTH characters. The resource is the page,
    so core notify's 5-minute de-duplication gives a user one notice per page however busy its discussions. A fixed
    number of statements whatever the number of participants (docs/decisions/pages.md, Notifications)."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    title, participants = discussion_participants(ctx.db, page_id, discussion)
    participants.discard(ctx.user_id)
    readers = page_readers(ctx.db, page_id, list(participants)) if participants else set()
    if not readers:
        return
    author = ctx.actor_name
    notify_many(ctx, [  # one read and one INSERT of notifications and deliveries, whatever the number of readers
        {"user_id": user_id, "type": "page_comment", "title": f"{author} commented on {title}",
         "body": content.strip()[:BODY_LENGTH] or None, "resource_type": "page", "resource_id": page_id,
         "action_url": f"/pages/{page_id}#discussion-{discussion.id}", "actor_id": ctx.user_id}
        for user_id in sorted(readers)])


def edit_comment(ctx, *, page_id: str, discussion_id: str, comment_id: str, data) -> None:
    """The author edits their comment (pages:manage may edit any); the comment is marked edited."""
    comment = load_comment(ctx, page_id, discussion_id, comment_id)
    if comment.user_id != ctx.user_id and not ctx.can("pages", "manage"):
        raise Forbidden("Only the author can edit this comment")
    # content_rich left out: kept with the text unchanged (session 26: it was cleared, and the comment marked edited
    # though nothing changed), cleared with new text (the old formatting would show the old words); rich text
    # compared as the JSON document it holds, as a page's is
    if "content_rich" in data.model_fields_set:
        rich = data.content_rich
    else:
        rich = comment.content_rich if data.content == comment.content else None
    if data.content == comment.content and same_stored("content_rich", rich, comment.content_rich):
        return  # sent back as read: not an edit, not marked edited (session 25, save-back audit)
    _not_blank(data.content, rich)  # the comment as it would be stored (a blank one stored before may be sent back)
    comment.content = data.content
    comment.content_rich = rich
    comment.is_edited = True
    comment.updated_at = utcnow()
    ctx.db.flush()


def delete_comment(ctx, *, page_id: str, discussion_id: str, comment_id: str) -> None:
    comment = load_comment(ctx, page_id, discussion_id, comment_id)
    ctx.db.delete(comment)
    ctx.db.flush()


def toggle_resolved(ctx, *, page_id: str, discussion_id: str) -> bool:
    discussion = load_discussion(ctx, page_id, discussion_id)
    # two toggles at once flip it twice, not once
    discussion = lock_row(ctx.db, PageDiscussion, discussion.id, missing="Discussion")
    discussion.is_resolved = not discussion.is_resolved
    discussion.updated_at = utcnow()
    ctx.db.flush()
    return bool(discussion.is_resolved)


def delete_discussion(ctx, *, page_id: str, discussion_id: str) -> None:
    discussion = load_discussion(ctx, page_id, discussion_id)
    ctx.db.execute(delete(PageComment).where(PageComment.discussion_id == discussion.id))
    ctx.db.delete(discussion)
    ctx.db.flush()
