"""The action items area's leaf module: the scope clause `visible`, `load_action_item`, urgency, the record
builders and the read queries. service.py imports it, never the reverse."""
from __future__ import annotations

from datetime import date

from sqlalchemy import and_, case, func, or_, select

from chalicelib.core.models import HistoryEntry, User
from chalicelib.core.query import Read, record_rows, record_sets, visible_row
from chalicelib.core.scoping import sees_all
from chalicelib.core.serialize import row_dict
from chalicelib.core.timeutil import org_today, week_bounds

from .models import ActionItem, ActionItemPreference

ITEM_FIELDS = ("id", "title", "description", "company_id", "contact_id", "deal_id", "project_id", "assigned_to",
               "created_by", "due_date", "notes", "urgency", "source_module", "source_type", "source_id",
               "is_completed", "created_at", "updated_at")
PREFERENCE_FIELDS = ("source_module", "is_visible", "show_in_feed", "show_work_board")


def visible(principal):
    """WHERE clause of the items the principal may see (None: all): head and executive see every item;
    employee, lead and manager the items assigned to them (document 1, Action items)."""
    if sees_all(principal):
        return None
    return ActionItem.assigned_to == principal.user.id


def load_action_item(ctx, item_id: str) -> ActionItem:
    """The item if it exists and the caller may see it; 404 otherwise (one query)."""
    return visible_row(ctx.db, ActionItem, item_id, visible(ctx.principal), "Action item")


# The history entries that say how the item's last unstar at its source went (session 26): `unstar_failed` (written by
# the agents service after the call failed), `unstar_retried` (written by this area when it asks again; no failure
# after it: the retry succeeded). The first ask, at the first completion, writes nothing when it succeeds.
UNSTAR_OUTCOMES = ("unstar_failed", "unstar_retried")


def latest_unstar_outcome(db, item_id: str) -> str | None:
    """The item's latest unstar outcome entry (`UNSTAR_OUTCOMES`), or None when no ask ever failed (one statement,
    on the history's (entity_type, entity_id, created_at) index)."""
    return db.scalar(select(HistoryEntry.action)
                     .where(HistoryEntry.entity_type == "action_item", HistoryEntry.entity_id == item_id,
                            HistoryEntry.action.in_(UNSTAR_OUTCOMES))
                     .order_by(HistoryEntry.created_at.desc(), HistoryEntry.id.desc()).limit(1))


def failed_unstars(db, *, sources, before, attempts: int, limit: int) -> list[tuple[str, str | None]]:
    """`(item_id, actor_id)` of completed items from `sources` whose latest unstar outcome is `unstar_failed`,
    written before `before`, with fewer than `attempts` failures in all; the actor is the caller of the failed
    ask, still active. Oldest failure first, at most `limit` (one statement)."""
    entry = HistoryEntry
    ranked = (select(entry.entity_id, entry.action, entry.actor_id, entry.created_at,
                     func.row_number().over(partition_by=entry.entity_id,
                                            order_by=(entry.created_at.desc(), entry.id.desc())).label("rank"),
                     func.count().filter(entry.action == "unstar_failed").over(partition_by=entry.entity_id)
                     .label("failures"))
              .where(entry.entity_type == "action_item", entry.action.in_(UNSTAR_OUTCOMES)).subquery())
    # only failures whose actor is still active (the job asks for them): one who left never held a slot of the
    # batch, which items the job skips would fill for good (review of session 26)
    stmt = (select(ActionItem.id, ranked.c.actor_id).join(ranked, ranked.c.entity_id == ActionItem.id)
            .join(User, and_(User.id == ranked.c.actor_id, User.is_active.is_(True)))
            .where(ranked.c.rank == 1, ranked.c.action == "unstar_failed", ranked.c.created_at < before,
                   ranked.c.failures < attempts, ActionItem.is_completed.is_(True),
                   ActionItem.source_module.in_(sources))
            .order_by(ranked.c.created_at, ActionItem.id).limit(limit))
    return [tuple(row) for row in db.execute(stmt)]


def load_deletable_item(ctx, item_id: str) -> ActionItem:
    """The item for a delete: besides the items the caller sees, the creator reaches the items they made for
    someone else and a holder of action-centre:manage any item (document 1: "the creator may delete own manual
    items; manage permission may delete any manual item"); 404 otherwise (one query)."""
    scope = visible(ctx.principal)
    if scope is not None:
        scope = None if ctx.can("action-centre", "manage") else or_(scope, ActionItem.created_by == ctx.user_id)
    return visible_row(ctx.db, ActionItem, item_id, scope, "Action item")


def urgency_for(due: date | None, today: date | None = None) -> str:
    """The urgency of a due date in the organisation's time zone: before today `overdue`, today `today`,
    later this week (Monday to Sunday) `this_week`, otherwise (or no date) `normal`."""
    if due is None:
        return "normal"
    today = today or org_today()
    if due < today:
        return "overdue"
    if due == today:
        return "today"
    return "this_week" if due <= week_bounds(today)[1] else "normal"


def urgency_expression(today: date):
    """The SQL form of `urgency_for` on the item's due_date (the hourly refresh; `current_urgency`)."""
    sunday = week_bounds(today)[1]
    return case((ActionItem.due_date.is_(None), "normal"), (ActionItem.due_date < today, "overdue"),
                (ActionItem.due_date == today, "today"), (ActionItem.due_date <= sunday, "this_week"),
                else_="normal")


def current_urgency(today: date):
    """The urgency every read answers on `today` (ORG_TIMEZONE): the stored one when it was written today
    (`urgency_on`; a urgency given by hand stays until the refresh job or the day replaces it) or the item has
    no due date; otherwise the due date's urgency on `today`. So a read after midnight answers the new day's
    urgency whether or not the hourly job has run (it only tidies the stored column), with no write on read."""
    stale = ActionItem.due_date.is_not(None) & or_(ActionItem.urgency_on.is_(None), ActionItem.urgency_on < today)
    return case((stale, urgency_expression(today)), else_=ActionItem.urgency)


def urgency_order(today: date):
    """The list's first ordering key: overdue, today, this week, normal (of `current_urgency`)."""
    return case({"overdue": 0, "today": 1, "this_week": 2}, value=current_urgency(today), else_=3)


ITEM_FLAGS = ("is_completed",)


def item_select(today: date | None = None):
    """The items' columns, `urgency` as of `today` (default today in ORG_TIMEZONE: `current_urgency`), with the
    assignee's name and picture (records: core.query.record_rows / record_page)."""
    urgency = current_urgency(today or org_today()).label("urgency")
    return (select(*(urgency if name == "urgency" else getattr(ActionItem, name) for name in ITEM_FIELDS),
                   User.name.label("assigned_user_name"), User.picture.label("assigned_user_picture"))
            .outerjoin(User, User.id == ActionItem.assigned_to))


def contacts_read(db, records: list[dict], *, names: bool = True) -> Read | None:
    """The read of the records' contacts' names (the deals area's, built once per process), None without any. A
    contact is the deals area's record: without `names` (a caller who may not view deals, session 29) none is read
    and the names stay null."""
    from chalicelib.areas.deals import service as deals_service

    return deals_service.contact_names_select(db, [record["contact_id"] for record in records]) if names else None


def with_contacts(records: list[dict], contacts: list[dict]) -> list[dict]:
    """The records with their contact's first and last name (None when it has none)."""
    names = {contact["id"]: contact for contact in contacts}
    for record in records:
        contact = names.get(record["contact_id"]) or {}
        record["contact_first_name"] = contact.get("first_name")
        record["contact_last_name"] = contact.get("last_name")
    return records


def item_records(db, records: list[dict], *, names: bool = True) -> list[dict]:
    """Records of `item_select` with their contacts' names (one query for them all; `names`: see `contacts_read`)."""
    return with_contacts(records, record_sets(db, contacts=contacts_read(db, records, names=names))["contacts"])


def item_record(db, item_id: str, *, names: bool = True) -> dict:
    return item_records(db, record_rows(db, item_select().where(ActionItem.id == item_id), ITEM_FLAGS),
                        names=names)[0]


def preference_records(db, user_id: str) -> list[dict]:
    prefs = db.scalars(select(ActionItemPreference).where(ActionItemPreference.user_id == user_id)
                       .order_by(ActionItemPreference.source_module))
    return [row_dict(pref, PREFERENCE_FIELDS, flags=PREFERENCE_FIELDS[1:]) for pref in prefs]
