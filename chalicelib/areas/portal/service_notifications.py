"""Portal users' notifications: keyed by the portal user id (X-Portal-User-Id) and the company, never staff
notifications. List with the document's paging, unread count, read, read all, and preferences limited to the
types that support portal delivery and to the in-app and e-mail channels. `notify_portal` creates one."""
from __future__ import annotations

from sqlalchemy import func, select, update

from chalicelib.core.errors import BadRequest, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_rows, lock_key

from .models import PortalNotification, PortalNotificationPreference
from .queries import notification_record

# The notification types that support portal delivery: (id, label, description, in-app default, e-mail default)
PORTAL_TYPES = (
    ("portal_qbr_presented", "Quarterly business review", "A quarterly business review was presented.", True, True),
    ("portal_budget_pending", "Budget awaiting approval", "A budget is waiting for your approval.", True, True),
    ("portal_request_updated", "Request updated", "A request you raised was updated.", True, False),
    ("portal_note_reply", "Reply to a note", "The agency replied to a note.", True, False),
    ("portal_announcement", "Announcement", "The agency published an announcement.", True, False),
)
TYPE_IDS = tuple(t[0] for t in PORTAL_TYPES)


def _mine(ctx):
    return (PortalNotification.company_id == ctx.portal.company_id,
            PortalNotification.portal_user_id == ctx.portal.user_id)


def list_notifications(ctx, *, query) -> list[dict]:
    stmt = select(PortalNotification).where(*_mine(ctx))
    if query.filter == "archived":
        stmt = stmt.where(PortalNotification.archived.is_(True))
    else:
        stmt = stmt.where(PortalNotification.archived.is_(False))
        if query.filter == "unread":
            stmt = stmt.where(PortalNotification.is_read.is_(False))
    rows = ctx.db.scalars(stmt.order_by(PortalNotification.created_at.desc(), PortalNotification.id)
                          .limit(query.limit).offset(query.offset))
    return [notification_record(n) for n in rows]


def unread_count(ctx) -> int:
    return ctx.db.scalar(select(func.count(PortalNotification.id)).where(
        *_mine(ctx), PortalNotification.is_read.is_(False), PortalNotification.archived.is_(False))) or 0


def mark_read(ctx, *, notification_id: str) -> None:
    result = ctx.db.execute(update(PortalNotification).where(PortalNotification.id == notification_id, *_mine(ctx))
                            .values(is_read=True, read_at=func.coalesce(PortalNotification.read_at, utcnow()))
                            .execution_options(synchronize_session=False))
    if result.rowcount == 0:
        raise not_found("Notification")


def mark_all_read(ctx) -> None:
    ctx.db.execute(update(PortalNotification).where(*_mine(ctx), PortalNotification.is_read.is_(False))
                   .values(is_read=True, read_at=utcnow()).execution_options(synchronize_session=False))


def preferences(ctx) -> list[dict]:
    saved = {p.notification_type: p for p in ctx.db.scalars(select(PortalNotificationPreference).where(
        PortalNotificationPreference.company_id == ctx.portal.company_id,
        PortalNotificationPreference.portal_user_id == ctx.portal.user_id))}
    out = []
    for type_id, label, description, in_app, email in PORTAL_TYPES:
        pref = saved.get(type_id)
        out.append({"notification_type": type_id, "label": label, "description": description,
                    "channel_in_app": int(pref.channel_in_app if pref else in_app),
                    "channel_email": int(pref.channel_email if pref else email), "is_customized": pref is not None})
    return out


def update_preferences(ctx, *, data) -> None:
    """Replace the saved preferences of the types sent (one DELETE, one INSERT); an unknown type is a 400."""
    from sqlalchemy import delete

    entries = {}
    for index, entry in enumerate(data.preferences):
        if entry.notification_type not in TYPE_IDS:
            raise BadRequest("Unknown portal notification type", details=[
                {"field": f"preferences.{index}.notification_type", "message": f"must be one of {', '.join(TYPE_IDS)}"}])
        entries[entry.notification_type] = entry
    if not entries:
        return
    mine = (PortalNotificationPreference.company_id == ctx.portal.company_id,
            PortalNotificationPreference.portal_user_id == ctx.portal.user_id)
    lock_key(ctx.db, "portal-preferences", ctx.portal.company_id, ctx.portal.user_id)
    ctx.db.execute(delete(PortalNotificationPreference).where(
        *mine, PortalNotificationPreference.notification_type.in_(list(entries))))
    insert_rows(ctx.db, PortalNotificationPreference, [
        {"company_id": ctx.portal.company_id, "portal_user_id": ctx.portal.user_id, "notification_type": type_id,
         "channel_in_app": entry.channel_in_app, "channel_email": entry.channel_email, "updated_at": utcnow()}
        for type_id, entry in entries.items()])


def notify_portal(ctx, *, company_id: str, portal_user_id: str, type: str, title: str, body: str | None = None,
                  resource_type: str | None = None, resource_id: str | None = None,
                  action_url: str | None = None) -> PortalNotification | None:
    """An in-app notification for one portal user, unless their preference turns in-app off for the type."""
    pref = ctx.db.get(PortalNotificationPreference, (company_id, portal_user_id, type))
    in_app = pref.channel_in_app if pref else next((t[3] for t in PORTAL_TYPES if t[0] == type), True)
    if not in_app:
        return None
    notification = PortalNotification(company_id=company_id, portal_user_id=portal_user_id, type=type, title=title,
                                      body=body, resource_type=resource_type, resource_id=resource_id,
                                      action_url=action_url, is_read=False, archived=False)
    ctx.db.add(notification)
    ctx.db.flush()
    return notification
