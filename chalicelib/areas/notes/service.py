"""Notes: list, create (threading, mentions), edit (author or executive) and delete (author or the type's
manage holder). The noted record is checked through its own area's service (queries.load_resource)."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.errors import Forbidden, bad_field
from chalicelib.core.models import ACCESS_LEVELS, User
from chalicelib.core.query import in_scope
from chalicelib.core.serialize import clipped, value_out

from .models import Note
from .queries import DEEP_LINKS, load_note, load_resource, note_rows, ordered_levels, readers, tool_for, visible


def list_notes(ctx, *, resource_type: str, resource_id: str) -> list[dict]:
    load_resource(ctx, resource_type, resource_id)
    return note_rows(ctx.db, ctx.principal, resource_type, resource_id)


def _check_mentions(ctx, mentions: list[str]) -> dict[str, str]:
    """The mentioned users (active users, in the order given, once each) with their access levels."""
    ids = list(dict.fromkeys(mentions))
    if not ids:
        return {}
    found = dict(ctx.db.execute(select(User.id, User.access_level)
                                .where(User.id.in_(ids), User.is_active.is_(True))).all())
    missing = [user_id for user_id in ids if user_id not in found]
    if missing:
        raise bad_field("mentions", f"must name active users ({', '.join(m[:36] for m in missing[:5])} not found)")
    return {user_id: found[user_id] for user_id in ids}


def _readers(ctx, resource_type: str, resource_id: str, user_ids: list[str]) -> set[str]:
    """Which of these users (whose access level the note's visibility names) may read a note on this record: view
    on its tool and the record in their scope, asked as each of them: their principals in one statement, then the
    record's scope as all of them in one more (queries.readers), whatever their number (mentions: at most 100)."""
    if not user_ids:
        return set()
    from chalicelib.core.auth import principals_of

    return readers(ctx.db, resource_type, resource_id, principals_of(ctx.db, user_ids).values())


def create_note(ctx, *, resource_type: str, resource_id: str, data) -> str:
    """A note on a visible record; a reply (`parent_id`) must answer a note of the same record that the caller
    reads. Mentioned users (active users) are notified with a deep link to the note."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    load_resource(ctx, resource_type, resource_id)
    if data.parent_id:
        parent = ctx.db.scalar(in_scope(select(Note.id).where(
            Note.id == data.parent_id, Note.resource_type == resource_type, Note.resource_id == resource_id),
            visible(ctx.principal)))
        if parent is None:
            raise bad_field("parent_id", "must be a note on the same record")
    mentions = _check_mentions(ctx, data.mentions)
    levels = ordered_levels(ACCESS_LEVELS if data.visibility is None else data.visibility)
    note = Note(resource_type=resource_type, resource_id=resource_id, author_id=ctx.user_id, content=data.content,
                visibility=levels, mentions=list(mentions), parent_id=data.parent_id)
    ctx.db.add(note)
    ctx.db.flush()
    link = DEEP_LINKS[resource_type].format(id=resource_id) + f"#note-{note.id}"
    author = ctx.actor_name
    told = [user_id for user_id in mentions if user_id != ctx.user_id]
    readers = _readers(ctx, resource_type, resource_id, [u for u in told if mentions[u] in levels])
    # the note's text only to a mentioned user who may read the note; the others get the link alone
    notify_many(ctx, [{"user_id": user_id, "type": "mention", "title": f"{author} mentioned you in a note",
                       "body": clipped(data.content, 500) if user_id in readers else None, "resource_type": "note",
                       "resource_id": note.id, "action_url": link, "actor_id": ctx.user_id}
                      for user_id in told])
    from .queries import CLIENT_LEVEL

    if data.parent_id and CLIENT_LEVEL in levels:
        from chalicelib.areas.portal import service as portal_service  # a reply the client sees: its author told

        portal_service.note_replied(ctx, parent_id=data.parent_id, note_id=note.id, resource_type=resource_type,
                                    resource_id=resource_id, content=data.content)
    return note.id


def update_note(ctx, *, note_id: str, data) -> None:
    """Content and visibility; only the author or an executive (403 for others who read the note)."""
    note = load_note(ctx, note_id)
    if note.author_id != ctx.user_id and ctx.principal.access_level != "executive":
        raise Forbidden("Only the author or an executive may edit this note")
    changes = data.changes()
    note.content = changes["content"]
    if changes.get("visibility") is not None:
        note.visibility = ordered_levels(changes["visibility"])
    ctx.db.flush()


def delete_note(ctx, *, note_id: str) -> None:
    """The author, or a holder of manage on the record's tool (403 otherwise); replies go with it."""
    note = load_note(ctx, note_id)
    if note.author_id != ctx.user_id and not ctx.can(tool_for(note.resource_type), "manage"):
        raise Forbidden("Only the author or a manager of this record's tool may delete this note")
    ctx.db.delete(note)
    ctx.db.flush()


# ---------------------------------------------------------------- the client portal

PORTAL_NOTE_LIMIT = 100  # document 3: portal notes, at most 100


def _client_visible():
    from sqlalchemy import String, cast

    from .queries import CLIENT_LEVEL

    return cast(Note.visibility, String).like(f'%"{CLIENT_LEVEL}"%')


def portal_notes(db, targets: dict) -> list[dict]:
    """The client-visible notes (visibility names `client`) on the given records, newest first, at most 100,
    with the author's name (one statement). `targets`: `{resource_type: ids or a SELECT of ids}`."""
    from sqlalchemy import and_, or_

    from chalicelib.core.models import User

    clauses = [and_(Note.resource_type == kind, Note.resource_id.in_(ids)) for kind, ids in targets.items()]
    if not clauses:
        return []
    rows = db.execute(select(Note, User.name).outerjoin(User, User.id == Note.author_id)
                      .where(or_(*clauses), _client_visible())
                      .order_by(Note.created_at.desc(), Note.id).limit(PORTAL_NOTE_LIMIT)).all()
    return [{"id": note.id, "resource_type": note.resource_type, "resource_id": note.resource_id,
             "content": note.content, "parent_id": note.parent_id, "author_name": name,
             "from_client": 1 if note.author_id is None else 0, "created_at": value_out(note.created_at)}
            for note, name in rows]


def portal_create_note(ctx, *, resource_type: str, resource_id: str, content: str, parent_id: str | None) -> str:
    """A note written by a client in the portal (the portal checked the record's company): visible to the
    client and every staff level, no author user; a reply must answer a client-visible note of the same record
    (400 otherwise)."""
    from .queries import CLIENT_LEVEL

    if parent_id:
        parent = ctx.db.scalar(select(Note.id).where(Note.id == parent_id, Note.resource_type == resource_type,
                                                     Note.resource_id == resource_id, _client_visible()))
        if parent is None:
            raise bad_field("parentId", "must be a client-visible note on the same record")
    note = Note(resource_type=resource_type, resource_id=resource_id, author_id=None, content=content,
                visibility=ordered_levels([*ACCESS_LEVELS, CLIENT_LEVEL]), mentions=[], parent_id=parent_id)
    ctx.db.add(note)
    ctx.db.flush()
    return note.id
