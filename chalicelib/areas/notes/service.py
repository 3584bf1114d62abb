"""Notes: list, create (threading, mentions), edit (author or executive) and delete (author or the type's
manage holder). The noted record is checked through its own area's service (queries.load_resource)."""
from __future__ import annotations

from sqlalchemy import String, func, literal, select

from chalicelib.core.errors import Conflict, Forbidden, bad_field
from chalicelib.core.locks import lock_key
from chalicelib.core.models import ACCESS_LEVELS, User
from chalicelib.core.query import Page, in_scope, tree_ids
from chalicelib.core.serialize import clipped, value_out

from .models import Note
from .queries import DEEP_LINKS, load_note, load_resource, note_page, ordered_levels, readers, tool_for, visible

NOTE_LIMIT = 500  # a record holds at most 500 notes, replies included (409 beyond; session 22)
MENTION_ALLOWANCE = "mention"  # core.allowance.PER_HOUR: mentioned users an hour per sender
# the record types the client portal lists notes of (docs/decisions/portal.md), and the history actions that
# name the company a client-visible note was written for (`changes.company_id`)
PORTAL_TYPES = ("project", "deal", "budget", "invoice")
WRITTEN_IN_PORTAL, SHARED_WITH_CLIENT = "created_in_portal", "shared_with_client"


def list_notes(ctx, *, resource_type: str, resource_id: str, query) -> Page:
    load_resource(ctx, resource_type, resource_id)
    return note_page(ctx.db, ctx.principal, resource_type, resource_id, query)


def _check_room(db, resource_type: str, resource_id: str) -> None:
    """409 when the record already holds NOTE_LIMIT notes; the caller holds the lock on the record's notes
    (`lock_key(db, "notes", resource_type, resource_id)`: a staff create, or the portal's `hold_notes`), so that
    concurrent creates cannot pass the cap together (one statement, whatever the count)."""
    held = db.scalar(select(func.count()).select_from(
        select(Note.id).where(Note.resource_type == resource_type, Note.resource_id == resource_id)
        .limit(NOTE_LIMIT).subquery()))
    if held >= NOTE_LIMIT:
        raise Conflict(f"A record holds at most {NOTE_LIMIT} notes: delete one to add another")


def _allow_mentions(ctx, recipients: int) -> None:
    """Count `recipients` uses of the sender's hourly mention allowance (core.allowance, kind `mention`): 429
    `{ error, retry_after }` when the note would pass it, else record them (three statements whatever the number)."""
    from chalicelib.core.allowance import allow

    allow(ctx, MENTION_ALLOWANCE, uses=recipients)


def _record_company(ctx, resource_type: str, resource_id: str) -> str | None:
    """The company whose portal shows this record now (a budget: the company of its project or deal)."""
    if resource_type == "project":
        from chalicelib.areas.projects import service as projects_service

        return projects_service.project_companies(ctx.db, [resource_id]).get(resource_id, (None, None))[1]
    if resource_type == "deal":
        from chalicelib.areas.deals import service as deals_service

        return (deals_service.deal_facts(ctx.db, resource_id) or {}).get("company_id")
    if resource_type == "invoice":
        from chalicelib.areas.invoices import service as invoices_service

        return invoices_service.load_invoice(ctx, resource_id).company_id
    if resource_type == "budget":
        from chalicelib.areas.budgets import service as budgets_service

        budget = budgets_service.load_budget(ctx, resource_id)
        if budget.resource_type in ("project", "deal") and budget.resource_id:
            return _record_company(ctx, budget.resource_type, budget.resource_id)
    return None


def _shared_with_client(ctx, note: Note) -> None:
    """A staff note made visible to the client: remember for which company (the record's now), so that the portal
    shows it to that company (group) only, not to a client the record is moved to later."""
    if note.resource_type not in PORTAL_TYPES:
        return
    from chalicelib.core import history

    history.record(ctx.db, entity_type="note", entity_id=note.id, action=SHARED_WITH_CLIENT, actor_id=ctx.user_id,
                   changes={"company_id": _record_company(ctx, note.resource_type, note.resource_id)})


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

    ctx.require(tool_for(resource_type), "view")  # 400 or 403 before any statement, as load_resource answers them
    # the record is read holding its notes key, the one its delete takes before it deletes the record's notes
    # (records_deleted): a delete in progress is waited for and the record then found gone (404). Read before the
    # key, a record deleted meanwhile got a note inserted after its notes were deleted: kept for good, reachable
    # by no route (session 23's review). Only plain reads follow under the key, so a delete holding the record's
    # row and waiting for the key is never waited for in turn.
    lock_key(ctx.db, "notes", resource_type, resource_id)
    load_resource(ctx, resource_type, resource_id)
    if data.parent_id:
        parent = ctx.db.scalar(in_scope(select(Note.id).where(
            Note.id == data.parent_id, Note.resource_type == resource_type, Note.resource_id == resource_id),
            visible(ctx.principal)))
        if parent is None:
            raise bad_field("parent_id", "must be a note on the same record")
    mentions = _check_mentions(ctx, data.mentions)
    _check_room(ctx.db, resource_type, resource_id)  # under the notes key taken above
    told = [user_id for user_id in mentions if user_id != ctx.user_id]
    _allow_mentions(ctx, len(told))  # before anything is written: a refused note leaves nothing
    levels = ordered_levels(ACCESS_LEVELS if data.visibility is None else data.visibility)
    note = Note(resource_type=resource_type, resource_id=resource_id, author_id=ctx.user_id, content=data.content,
                visibility=levels, mentions=list(mentions), parent_id=data.parent_id)
    ctx.db.add(note)
    ctx.db.flush()
    link = DEEP_LINKS[resource_type].format(id=resource_id) + f"#note-{note.id}"
    author = ctx.actor_name
    readers = _readers(ctx, resource_type, resource_id, [u for u in told if mentions[u] in levels])
    # the note's text only to a mentioned user who may read the note; the others get the link alone
    notify_many(ctx, [{"user_id": user_id, "type": "mention", "title": f"{author} mentioned you in a note",
                       "body": clipped(data.content, 500) if user_id in readers else None, "resource_type": "note",
                       "resource_id": note.id, "action_url": link, "actor_id": ctx.user_id}
                      for user_id in told])
    from .queries import CLIENT_LEVEL

    if CLIENT_LEVEL in levels:
        _shared_with_client(ctx, note)
    if data.parent_id and CLIENT_LEVEL in levels:
        from chalicelib.areas.portal import service as portal_service  # a reply the client sees: its author told

        portal_service.note_replied(ctx, parent_id=data.parent_id, note_id=note.id, resource_type=resource_type,
                                    resource_id=resource_id, content=data.content)
    return note.id


def update_note(ctx, *, note_id: str, data) -> None:
    """Content and visibility; only the author or an executive (403 for others who read the note). A reply the
    edit newly makes client-visible tells its parent's portal author, as create_note does (a re-save: nobody); a
    note the edit takes the share back from has the notices of its thread's replies (its own, if it is a reply, and
    those below it, which the portal hides with it) withdrawn (the portal's note_replies_withdrawn; session 31).
    Shared again, the note's thread is listed again but its replies are not told again."""
    note = load_note(ctx, note_id)
    if note.author_id != ctx.user_id and ctx.principal.access_level != "executive":
        raise Forbidden("Only the author or an executive may edit this note")
    from .queries import CLIENT_LEVEL

    changes = data.changes()
    note.content = changes["content"]
    if changes.get("visibility") is not None:
        was = note.visibility or []
        was_shared = CLIENT_LEVEL in was
        note.visibility = ordered_levels(changes["visibility"])
        if set(was) - set(note.visibility) and note.mentions:  # a level dropped: its mentioned users lose the text
            _mention_text_withdrawn(ctx.db, note)
        if CLIENT_LEVEL in note.visibility and not was_shared:
            _shared_with_client(ctx, note)
            if note.parent_id:  # a reply newly shared: its portal author told, as on a create (session 24)
                from chalicelib.areas.portal import service as portal_service

                portal_service.note_replied(ctx, parent_id=note.parent_id, note_id=note.id,
                                            resource_type=note.resource_type, resource_id=note.resource_id,
                                            content=note.content)
        elif was_shared and CLIENT_LEVEL not in note.visibility and note.resource_type in PORTAL_TYPES:
            # a note the share is taken back from: the portal no longer lists it, nor its replies at any depth (it
            # lists a reply only with its parent), so the notices of the thread's staff replies, with their text,
            # are withdrawn: the note's own if it is a reply (session 24) and those below it (session 31). One
            # DELETE over the thread's ids (a recursive SELECT), whatever its size.
            from chalicelib.areas.portal import service as portal_service

            portal_service.note_replies_withdrawn(ctx.db, note_ids=_thread_ids(note.id))
    ctx.db.flush()


def delete_note(ctx, *, note_id: str) -> None:
    """The author, or a holder of manage on the record's tool (403 otherwise); replies go with it, and the mention
    notices of the thread (which carry its text) with them (session 28)."""
    note = load_note(ctx, note_id)
    if note.author_id != ctx.user_id and not ctx.can(tool_for(note.resource_type), "manage"):
        raise Forbidden("Only the author or a manager of this record's tool may delete this note")
    thread = _thread_ids(note.id)
    if note.resource_type in PORTAL_TYPES:  # who wrote it, or a reply, in the portal is forgotten with it, and the
        # portal notices of its staff replies (portal_note_reply) are withdrawn (session 24)
        from chalicelib.areas.portal import service as portal_service

        portal_service.records_deleted(ctx.db, "note", thread)
    _mentions_withdrawn(ctx.db, thread)  # the thread's mention notices, which carry its text (session 28)
    ctx.db.delete(note)
    ctx.db.flush()


def _thread_ids(note_id: str):
    """SELECT of the note's id and its replies' at any depth (the rows its delete takes: parent_id cascades)."""
    return tree_ids(Note.id, Note.parent_id, Note.id == note_id, "deleted_thread")


def records_deleted(db, resource_type: str, ids) -> None:
    """The records `ids` (a list of ids, or a SELECT of them) of `resource_type` are being deleted by their own area:
    their notes go with them, replies included (a reply is on its parent's record), in one DELETE; for the types the
    client portal shows notes on, who wrote them in the portal is forgotten too (one more); the `mention` notices
    told of them, which carry their text, are deleted (one more: `_mentions_withdrawn`, session 28). Called before the
    record's own DELETE, so that a SELECT of ids (a task's subtasks, a cycle's reviews) still finds them. Nobody
    reads either answer: each rides with the request's next statement (core.db.WRITE_LATER). Without this a
    deleted record's notes answered 404 on every route (each loads the record first) and were kept for good
    (session 23, docs/decisions/notes.md).
    First the notes key of each record (`notes:<type>:<id>`, a note create's: one statement, `_lock_notes_of`): a
    create in progress is waited for, and its note deleted here; a create that comes later waits for this
    transaction and finds the record gone (session 23's review: a note created meanwhile was kept for good)."""
    from sqlalchemy import delete

    from chalicelib.core.db import WRITE_LATER

    _lock_notes_of(db, resource_type, ids)
    of_records = (Note.resource_type == resource_type, Note.resource_id.in_(ids))
    if resource_type in PORTAL_TYPES:
        from chalicelib.areas.portal import service as portal_service

        portal_service.records_deleted(db, "note", select(Note.id).where(*of_records))
    _mentions_withdrawn(db, select(Note.id).where(*of_records))
    db.execute(delete(Note).where(*of_records),
               execution_options={**WRITE_LATER, "synchronize_session": False})


def _mentioned_in(db, note_ids):
    """SELECT of the user ids the notes `note_ids` (a SELECT of note ids) mention (each note's `mentions` array
    unnested in the statement): the users their `mention` notices can have gone to, which bound a statement on
    notifications to its (user_id, type, resource_type, resource_id) index (ix_notifications_dedup)."""
    from sqlalchemy import true

    if db.get_bind().dialect.name == "postgresql":
        each = func.json_array_elements_text(Note.mentions).table_valued("value").render_derived(name="mentioned")
    else:  # SQLite: json_each, whose rows have a `value` column of their own
        each = func.json_each(Note.mentions).table_valued("value").alias("mentioned")
    return select(each.c.value).select_from(Note).join(each, true()).where(Note.id.in_(note_ids))


def _mentions_withdrawn(db, note_ids) -> None:
    """The notes `note_ids` (a SELECT of ids, read in the same statement: call before their DELETE) are being
    deleted: the `mention` notices told of them (resource `note`, the note's id), which carry their first 500
    characters, are deleted with them, as the portal withdraws its `portal_note_reply` (session 28). One DELETE whose
    answer nobody reads (core.db.WRITE_LATER). E-mail, chat or push messages already sent are not recalled."""
    from sqlalchemy import delete

    from chalicelib.core.db import WRITE_LATER
    from chalicelib.core.notify import Notification  # on first use: a read request never loads notify

    db.execute(delete(Notification).where(Notification.user_id.in_(_mentioned_in(db, note_ids)),
                                          Notification.type == "mention", Notification.resource_type == "note",
                                          Notification.resource_id.in_(note_ids)),
               execution_options={**WRITE_LATER, "synchronize_session": False})


def _mention_text_withdrawn(db, note: Note) -> None:
    """The note's visibility no longer names some level: the `mention` notices of its mentioned users whose access
    level it no longer names lose the note's text (body null), as create_note gives a mentioned user who may not
    read the note the title and the link alone; the link, the record's page, opens as it did. The rest of what
    reading needs (view on the record's tool, the record in scope) is not changed by the edit. One UPDATE whose
    answer nobody reads (core.db.WRITE_LATER), bounded by the note's mentions (session 28)."""
    from sqlalchemy import update

    from chalicelib.core.db import WRITE_LATER
    from chalicelib.core.notify import Notification  # on first use: a read request never loads notify

    no_longer = select(User.id).where(User.id.in_(list(note.mentions)), User.access_level.not_in(note.visibility))
    db.execute(update(Notification).where(Notification.user_id.in_(no_longer), Notification.type == "mention",
                                          Notification.resource_type == "note", Notification.resource_id == note.id)
               .values(body=None), execution_options={**WRITE_LATER, "synchronize_session": False})


def _lock_notes_of(db, resource_type: str, ids) -> None:
    """The notes key (`lock_key(db, "notes", resource_type, id)`, hashed alike) of each of these records (a list of
    ids, or a SELECT of them), in one statement, in the ids' order (two deletes sharing records take turns instead
    of deadlocking; a note create holds one key). A SELECT is read in the same statement: a task's subtasks, a
    cycle's reviews. Nothing on SQLite (its writers take turns)."""
    if db.get_bind().dialect.name != "postgresql":
        return
    if isinstance(ids, (list, tuple, set, frozenset)):
        ids = sorted(set(ids))
        if not ids:
            return
        if len(ids) == 1:  # a record's own delete: lock_key's statement
            lock_key(db, "notes", resource_type, ids[0])
            return
        from sqlalchemy import column, values

        source = values(column("id", String), name="noted").data([(i,) for i in ids])
    else:
        source = ids.subquery("noted")
    record_id = next(iter(source.c))
    ordered = select(record_id.label("id")).distinct().order_by(record_id).subquery("noted_in_order")
    key = literal(f"notes:{resource_type}:", String) + ordered.c.id
    db.execute(select(func.pg_advisory_xact_lock(func.hashtextextended(key, 0))).select_from(ordered))


# ---------------------------------------------------------------- the client portal

PORTAL_NOTE_LIMIT = 100  # document 3: portal notes, at most 100


def _client_visible():
    from sqlalchemy import String, cast

    from .queries import CLIENT_LEVEL

    return cast(Note.visibility, String).like(f'%"{CLIENT_LEVEL}"%')


def _written_for(companies):
    """WHERE clause of the notes written for these companies: a client's note (`note/created_in_portal`) or a staff
    note made client-visible (`note/shared_with_client`) while its record was one of theirs, by the history entry
    naming the company; a staff note with no such entry (shared before session 22) follows its record."""
    from sqlalchemy import exists, or_

    from chalicelib.core.models import HistoryEntry

    origin = select(HistoryEntry.id).where(HistoryEntry.entity_type == "note", HistoryEntry.entity_id == Note.id,
                                           HistoryEntry.action.in_((WRITTEN_IN_PORTAL, SHARED_WITH_CLIENT)))
    named = HistoryEntry.changes["company_id"].as_string()
    # a staff note shared while its record had no company (no client saw it then) follows its record, as one shared
    # before session 22: it is not hidden for good once the record gets its client
    return or_(exists(origin.where(named.in_(list(companies)))), ~exists(origin.where(named.is_not(None))))


def _portal_thread(records, companies):
    """The recursive CTE (`id`) of the notes the portal lists to a client of `companies` on the records `records` (a
    WHERE clause) names: the client-visible notes written for them (`_written_for`) that answer nothing, and down
    their threads the replies that are themselves such notes. portal_notes lists them; portal_create_note takes a
    reply's parent only among them (session 31, round 2)."""
    listable = (_client_visible(), _written_for(companies))
    shown = select(Note.id).where(records, Note.parent_id.is_(None), *listable).cte("portal_thread", recursive=True)
    # a reply is on its parent's record (create_note, portal_create_note), so the records need no second asking
    return shown.union(select(Note.id).join(shown, Note.parent_id == shown.c.id).where(*listable))


def portal_notes(db, targets: dict, companies) -> list[dict]:
    """The client-visible notes (visibility names `client`) on the given records, written for one of `companies`
    (`_written_for`), newest first, at most 100, with the author's name (one statement). `targets`:
    `{resource_type: ids or a SELECT of ids}`.

    A reply is listed only with its parent (session 31, round 2): the thread is walked down from the notes that
    answer nothing, through replies that are themselves listable, so a reply shared with the client under a note
    the client does not see (never shared, its share taken back, or written for another company) is not listed,
    nor anything below it. Narrowing a note's visibility thus hides its replies too; sharing it again shows them."""
    from sqlalchemy import and_, or_

    from chalicelib.core.models import User

    shown = _portal_thread(or_(*[and_(Note.resource_type == kind, Note.resource_id.in_(ids))
                                 for kind, ids in targets.items()]), companies)
    rows = db.execute(select(Note, User.name).outerjoin(User, User.id == Note.author_id)
                      .where(Note.id.in_(select(shown.c.id)))
                      .order_by(Note.created_at.desc(), Note.id).limit(PORTAL_NOTE_LIMIT)).all()
    return [{"id": note.id, "resource_type": note.resource_type, "resource_id": note.resource_id,
             "content": note.content, "parent_id": note.parent_id, "author_name": name,
             "from_client": 1 if note.author_id is None else 0, "created_at": value_out(note.created_at)}
            for note, name in rows]


def hold_notes(db, resource_type: str, resource_id: str) -> None:
    """Hold the record's notes key (`notes:<type>:<id>`) until the transaction ends: the portal takes it before it
    checks the record, as create_note does, so that a record deleted meanwhile (its delete takes the key before
    deleting the record's notes: records_deleted) is found gone instead of getting a note kept for good."""
    lock_key(db, "notes", resource_type, resource_id)


def portal_create_note(ctx, *, resource_type: str, resource_id: str, content: str, parent_id: str | None,
                       companies) -> str:
    """A note written by a client of `companies` (the company and its group, as the portal lists notes to) in the
    portal (the portal checked the record's company holding the record's notes key: hold_notes): visible to the
    client and every staff level, no author user. A reply must answer a note of the same record that the portal
    lists to the client (`_portal_thread`: client-visible, written for one of `companies`, its whole thread listable;
    session 31, round 2): a hidden parent is the 400 of a missing one, so the reply neither tells that the id is a
    note nor places a note under one the client does not see. One statement (the walk over the record's threads)."""
    from sqlalchemy import and_

    from .queries import CLIENT_LEVEL

    if parent_id:
        shown = _portal_thread(and_(Note.resource_type == resource_type, Note.resource_id == resource_id), companies)
        if ctx.db.scalar(select(shown.c.id).where(shown.c.id == parent_id)) is None:
            raise bad_field("parentId", "must be a note on the same record that the portal shows you")
    _check_room(ctx.db, resource_type, resource_id)  # the portal holds the key (hold_notes)
    note = Note(resource_type=resource_type, resource_id=resource_id, author_id=None, content=content,
                visibility=ordered_levels([*ACCESS_LEVELS, CLIENT_LEVEL]), mentions=[], parent_id=parent_id)
    ctx.db.add(note)
    ctx.db.flush()
    return note.id
