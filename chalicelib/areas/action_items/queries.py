"""The action items area's leaf module: the scope clause `visible`, `load_action_item`, urgency, the record
builders and the read queries. service.py imports it, never the reverse."""
from __future__ import annotations

from datetime import date

from sqlalchemy import case, select

from chalicelib.core.models import User
from chalicelib.core.query import visible_row
from chalicelib.core.scoping import sees_all
from chalicelib.core.serialize import row_dict
from chalicelib.core.timeutil import org_today, week_bounds

from .models import ActionItem, ActionItemPreference

ITEM_FIELDS = ("id", "title", "description", "company_id", "contact_id", "deal_id", "project_id", "assigned_to",
               "created_by", "due_date", "notes", "urgency", "source_module", "source_type", "source_id",
               "is_completed", "created_at", "updated_at")
PREFERENCE_FIELDS = ("source_module", "is_visible", "show_in_feed", "show_work_board")
URGENCY_ORDER = case({"overdue": 0, "today": 1, "this_week": 2}, value=ActionItem.urgency, else_=3)


def visible(principal):
    """WHERE clause of the items the principal may see (None: all): head and executive see every item;
    employee, lead and manager the items assigned to them (document 1, Action items)."""
    if sees_all(principal):
        return None
    return ActionItem.assigned_to == principal.user.id


def load_action_item(ctx, item_id: str) -> ActionItem:
    """The item if it exists and the caller may see it; 404 otherwise (one query)."""
    return visible_row(ctx.db, ActionItem, item_id, visible(ctx.principal), "Action item")


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
    """The SQL form of `urgency_for` on the item's due_date (for the nightly refresh)."""
    sunday = week_bounds(today)[1]
    return case((ActionItem.due_date.is_(None), "normal"), (ActionItem.due_date < today, "overdue"),
                (ActionItem.due_date == today, "today"), (ActionItem.due_date <= sunday, "this_week"),
                else_="normal")


def item_select():
    return (select(ActionItem, User.name, User.picture)
            .outerjoin(User, User.id == ActionItem.assigned_to))


def item_records(db, rows) -> list[dict]:
    """Records of (ActionItem, assignee name, assignee picture) rows, with the contact's names (one query
    for the whole list)."""
    from chalicelib.areas.deals import service as deals_service

    contacts = deals_service.contact_names(db, [row[0].contact_id for row in rows])
    out = []
    for item, name, picture in rows:
        first, last = contacts.get(item.contact_id, (None, None))
        out.append({**row_dict(item, ITEM_FIELDS, flags=("is_completed",)), "assigned_user_name": name,
                    "assigned_user_picture": picture, "contact_first_name": first, "contact_last_name": last})
    return out


def item_record(db, item_id: str) -> dict:
    return item_records(db, db.execute(item_select().where(ActionItem.id == item_id)).all())[0]


def preference_records(db, user_id: str) -> list[dict]:
    prefs = db.scalars(select(ActionItemPreference).where(ActionItemPreference.user_id == user_id)
                       .order_by(ActionItemPreference.source_module))
    return [row_dict(pref, PREFERENCE_FIELDS, flags=PREFERENCE_FIELDS[1:]) for pref in prefs]
