"""Meetings: list, detail, transcript, match and unmatch, action item status, re-analysis, stats and the
meeting-notes admin status and sync. The sync and the AI analysis are in service_sync.py; they run after
commit (never inside a request's transaction).

Matching checks the entity exists (a project the caller can see, a company, a contact or a deal): 400 naming
`entity_id` otherwise. An action item's status change completes (done, dismissed) or reopens (pending) the
action centre item the sync raised for it; that item completed in the action centre marks the action item done
(`completed_in_action_centre`, called by the action items area), and reassigned there gives the action item the
same assignee, who must be able to read the meeting (`reassigned_in_action_centre`, session 24).
"""
from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

from sqlalchemy import func, select, update

from chalicelib.core.errors import BadRequest, NotFound, bad_field
from chalicelib.core.locks import lock_row
from chalicelib.core.query import contains_text, in_scope, record_page, visible_row

from .models import Meeting, MeetingActionItem, MeetingAttendee, MeetingSyncState
from .queries import (action_item_record, load_meeting, meeting_lookups, meeting_records, meeting_select, visible,
                      with_meeting_lookups)


def _filtered(ctx, query):
    stmt = in_scope(meeting_select(), visible(ctx.principal))
    for name in ("category", "entity_type", "entity_id"):
        if getattr(query, name):
            stmt = stmt.where(getattr(Meeting, name) == getattr(query, name))
    if query.attendee_user_id:
        stmt = stmt.where(Meeting.id.in_(select(MeetingAttendee.meeting_id)
                                         .where(MeetingAttendee.user_id == query.attendee_user_id)))
    if query.unmatched is not None:
        stmt = stmt.where(Meeting.entity_id.is_(None) if query.unmatched else Meeting.entity_id.is_not(None))
    start = _day_start(query.date_from, "date_from") if query.date_from else None
    if start is not None:
        stmt = stmt.where(Meeting.meeting_date >= start)
    if isinstance(query.date_to, datetime):  # a timestamp: up to and including it
        empty = start is not None and query.date_to < start
        stmt = stmt.where(Meeting.meeting_date <= query.date_to)
    elif query.date_to:  # a day: up to the start of the next one
        end = _day_start(query.date_to, "date_to", days=1)
        empty = start is not None and end <= start
        stmt = stmt.where(Meeting.meeting_date < end)
    else:
        empty = False
    if empty:  # a range that ends before it starts (session 28; as the time entries' date_to)
        raise bad_field("date_to", "must not be before date_from")
    if query.search:
        stmt = stmt.where(contains_text(query.search, Meeting.title, Meeting.summary))
    return stmt


def _day_start(value: date | datetime, field: str, *, days: int = 0) -> datetime:
    """A timestamp as sent; a day (plus `days`) as its first moment in ORG_TIMEZONE (the date filters are
    inclusive days)."""
    from chalicelib.core.timeutil import org_zone

    if isinstance(value, datetime):
        return value
    if not date(1, 1, 2) <= value <= date(9999, 12, 30):
        raise BadRequest(f"{field} is out of range", details=[{"field": field, "message": "out of range"}])
    return datetime.combine(value + timedelta(days=days), time.min, tzinfo=org_zone()).astimezone(timezone.utc)


def list_meetings(ctx, query) -> dict:
    """Newest first; two statements whatever the page holds: the page's records, then its attendees, action
    items and exact total (counted unless the first page holds every meeting) in one (record_page)."""
    stmt = _filtered(ctx, query).order_by(Meeting.meeting_date.desc().nulls_last(), Meeting.id)
    page, sets = record_page(ctx.db, stmt, query, exact_total=True,
                             lookups=lambda rows: meeting_lookups(ctx.db, [row["id"] for row in rows]))
    return {"meetings": with_meeting_lookups(page.items, sets), "total": page.total, "page": query.page,
            "per_page": query.per_page}


def _entity_name(ctx, entity_type: str, entity_id: str, *, check: bool) -> str | None:
    """The entity's name; with `check`, a 400 naming entity_id when it does not exist (or, for a project,
    when the caller cannot see it). A project is named only to a caller who sees it, check or not (a match set by
    someone else named a project to attendees it answers 404 to; conformance audit); a company, contact or deal
    only to a caller who may view the `deals` tool (session 28: it named them to attendees whose `deals` is none).
    The existence check of a match does not depend on that permission; a project's does (session 29: a project is
    seen with `projects:view` and inside the caller's scope)."""
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.areas.projects import service as projects_service

    name = None
    if entity_type != "project" and not check and not ctx.principal.can("deals", "view"):
        return None
    if entity_type == "project":
        # seen: the `projects` tool and the project's row scope (session 29: a reader whose projects permission is
        # none was told the name, and matched to it, through the row scope alone)
        try:
            name = projects_service.seen_project(ctx, entity_id).name
        except NotFound:
            name = None
    elif entity_type == "company":
        name = deals_service.company_names(ctx.db, [entity_id]).get(entity_id)
    elif entity_type == "contact":
        first, last = deals_service.contact_names(ctx.db, [entity_id]).get(entity_id, (None, None))
        name = " ".join(part for part in (first, last) if part) or None
    elif entity_type == "deal":
        brief = deals_service.deal_brief(ctx.db, entity_id)
        name = brief["title"] if brief else None
    if check and name is None:
        raise BadRequest(f"entity_id must name an existing {entity_type}",
                         details=[{"field": "entity_id", "message": f"no such {entity_type}"}])
    return name


def meeting_detail(ctx, meeting: Meeting) -> dict:
    record = meeting_records(ctx.db, [meeting])[0]
    match = None
    if meeting.entity_type and meeting.entity_id:
        match = {"entity_type": meeting.entity_type, "entity_id": meeting.entity_id,
                 "entity_name": _entity_name(ctx, meeting.entity_type, meeting.entity_id, check=False)}
    return {**record, "match": match}


def get_meeting(ctx, meeting_id: str) -> dict:
    return meeting_detail(ctx, load_meeting(ctx, meeting_id))


def transcript(ctx, meeting_id: str) -> dict:
    """Fetched from the provider on the first request (with no transaction open), then served from the cache."""
    from chalicelib.providers.meetnotes import get_meetnotes

    meeting = load_meeting(ctx, meeting_id)
    if meeting.transcript is None:
        provider = get_meetnotes(db=ctx.db)
        ctx.release_connection()
        sentences = provider.get_transcript(meeting_id)
        # read again for the write: deleted meanwhile (the sync's purge) is the meeting's own 404 (session 29)
        meeting = lock_row(ctx.db, Meeting, meeting_id, missing="Meeting")
        meeting.transcript = sentences
        ctx.db.flush()
    return {"meeting_id": meeting_id, "sentences": meeting.transcript}


def _locked(ctx, meeting_id: str) -> Meeting:
    """The meeting in the caller's scope, then its row locked and read again: the ORM writes only the columns that
    differ from what it read, so a match that waited for another wrote its entity id beside the other's type (a
    company's id labelled a deal, or an id with no type; session 22's races audit)."""
    meeting = load_meeting(ctx, meeting_id)
    return lock_row(ctx.db, Meeting, meeting.id, missing="Meeting")


def match(ctx, meeting_id: str, *, data) -> dict:
    meeting = _locked(ctx, meeting_id)
    _entity_name(ctx, data.entity_type, data.entity_id, check=True)
    meeting.entity_type, meeting.entity_id = data.entity_type, data.entity_id
    ctx.db.flush()
    return meeting_detail(ctx, meeting)


def unmatch(ctx, meeting_id: str) -> dict:
    meeting = _locked(ctx, meeting_id)
    meeting.entity_type = meeting.entity_id = None
    ctx.db.flush()
    return meeting_detail(ctx, meeting)


def set_action_item_status(ctx, meeting_id: str, action_id: str, *, data) -> dict:
    from chalicelib.areas.action_items import service as action_items_service

    load_meeting(ctx, meeting_id)
    visible_row(ctx.db, MeetingActionItem, action_id, MeetingActionItem.meeting_id == meeting_id, "Action item")
    # the item's row is held before its action centre items are written, so two changes at once apply in one order
    # to both (a change to the status the item already had wrote no row and was not held: the two could disagree)
    item = lock_row(ctx.db, MeetingActionItem, action_id, missing="Action item")
    item.status = data.status
    ctx.db.flush()
    action_items_service.set_sourced_completed(ctx, source_module="meetings", source_ids=[item.id],
                                               completed=data.status != "pending")
    return action_item_record(ctx.db, item)


def completed_in_action_centre(ctx, *, item_id: str) -> None:
    """The action centre is completing the item it raised for this meeting action item: a `pending` item becomes
    `done` (one UPDATE, no call back; one done or dismissed stays as it is). The action items area calls it before
    it locks its own row: the UPDATE takes this item's row lock first, the order of `set_action_item_status` (this
    item, then its action centre items), so the two cannot deadlock. An item not pending is neither written nor
    held (nothing here waits on it later)."""
    ctx.db.execute(update(MeetingActionItem).where(MeetingActionItem.id == item_id,
                                                   MeetingActionItem.status == "pending")
                   .values(status="done").execution_options(synchronize_session=False))


def reassigned_in_action_centre(ctx, *, item_id: str, assignee_id: str) -> None:
    """The action centre is reassigning the item it raised for this meeting action item: the meeting's item follows
    (its `assignee_id`), when the new assignee may read the meeting (`meetings:view` and the meeting in their scope,
    `queries.visible`); otherwise a 400 naming `assigned_to` and nothing changes (session 24: an item handed to
    someone who gets 404 on its meeting). Locks the meeting's item first (`SELECT ... FOR UPDATE`), before the caller
    writes its own row: the order of `set_action_item_status` and `completed_in_action_centre`. A meeting item gone
    (its meeting deleted) leaves the reassignment to the action centre."""
    from chalicelib.core.auth import principals_of
    from chalicelib.core.errors import bad_field

    item = lock_row(ctx.db, MeetingActionItem, item_id)
    if item is None or item.assignee_id == assignee_id:
        return
    principal = principals_of(ctx.db, [assignee_id]).get(assignee_id)
    readable = principal is not None and principal.can("meetings", "view") and ctx.db.scalar(in_scope(
        select(Meeting.id).where(Meeting.id == item.meeting_id), visible(principal))) is not None
    if not readable:
        raise bad_field("assigned_to", "must be a user who can read the meeting this item comes from")
    item.assignee_id = assignee_id
    ctx.db.flush()


def reanalyse(ctx, meeting_id: str) -> None:
    """202: the AI categorisation runs after commit, in its own unit of work."""
    from chalicelib.core.allowance import allow

    from .service_sync import analyse_after_commit

    load_meeting(ctx, meeting_id)
    allow(ctx, "meeting_analysis")  # an AI request: 429 past the caller's hourly allowance
    ctx.after_commit(lambda: analyse_after_commit(meeting_id))


def stats(ctx) -> dict:
    stmt = in_scope(select(func.count()).select_from(Meeting).where(Meeting.entity_id.is_(None)), visible(ctx.principal))
    return {"unmatched_count": ctx.db.scalar(stmt)}


def sync_status(ctx) -> dict:
    from chalicelib.providers.meetnotes import is_configured

    settings = ctx.settings
    state = ctx.db.get(MeetingSyncState, "meetnotes")
    total, unmatched = ctx.db.execute(select(func.count(), func.count().filter(Meeting.entity_id.is_(None)))
                                      .select_from(Meeting)).one()
    return {"connected": is_configured(), "last_synced_at": state.last_synced_at if state else None,
            "sync_interval_minutes": settings.meetnotes_sync_interval_minutes,
            "sync_enabled": settings.meetnotes_sync_enabled, "total_notes": total, "unmatched_count": unmatched}


def request_sync(ctx) -> None:
    """202: the sync runs after commit, in its own unit of work (as the scheduled one does)."""
    from chalicelib.providers.meetnotes import get_meetnotes

    from .service_sync import sync_after_commit

    get_meetnotes()  # 503 now when meeting notes are not configured
    ctx.after_commit(sync_after_commit)
