"""The notifications area's leaf module: the scope clauses `visible` (the caller's own in-app
notifications) and `visible_subscriptions`, the load-or-404 helpers `load_notification` and
`load_squad`, the record builders and the read queries. The services import it, never the reverse."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import aliased

from chalicelib.core.errors import BadRequest, NotFound
from chalicelib.core.models import Squad, User
from chalicelib.core.notify import Notification
from chalicelib.core.notify_catalogue import get_type
from chalicelib.core.notify_models import PushSubscription
from chalicelib.core.query import visible_row
from chalicelib.core.serialize import value_out

NOTIFICATION_FIELDS = ("id", "user_id", "type", "title", "body", "icon", "resource_type", "resource_id",
                       "action_url", "actor_id")
# Browsers per user; a new subscription past that drops the oldest, so the list answers them all.
MAX_PUSH_SUBSCRIPTIONS = 20


def visible(principal):
    """WHERE clause of the notifications the principal sees: their own, stored with in-app on (a
    record stored with in-app off is left out of lists, counts and actions)."""
    return (Notification.user_id == principal.id) & Notification.in_app.is_(True)


def visible_subscriptions(principal):
    """WHERE clause of the push subscriptions the principal sees: their own."""
    return PushSubscription.user_id == principal.id


def load_notification(ctx, notification_id: str) -> Notification:
    """The caller's own notification; 404 otherwise (another user's looks missing). One query."""
    notification = ctx.db.scalar(select(Notification).where(Notification.id == notification_id,
                                                            visible(ctx.principal)))
    if notification is None:
        raise NotFound("Notification not found")
    return notification


def load_squad(ctx, squad_id: str) -> Squad:
    """The squad (squad configuration is executive-only: every squad is in scope); 404 otherwise."""
    return visible_row(ctx.db, Squad, squad_id, None, "Squad")


NOTIFICATION_FLAGS = ("is_read", "archived")


_ACTOR = aliased(User, name="actor")  # once per process: an alias proxies its table's columns on first use


def notifications_with_actor(where):
    """The ordered statement of the notifications matching `where`, newest first: a notification's record (the
    NOTIFICATION_FIELDS, is_read and archived as 0/1, read_at, archived_at, created_at) with the actor's name and
    picture, read as records (core.query.record_page, flags NOTIFICATION_FLAGS)."""
    actor = _ACTOR
    columns = [getattr(Notification, name) for name in NOTIFICATION_FIELDS + NOTIFICATION_FLAGS]
    columns += [Notification.read_at, Notification.archived_at, Notification.created_at,
                actor.name.label("actor_name"), actor.picture.label("actor_picture")]
    return (select(*columns)
            .outerjoin(actor, actor.id == Notification.actor_id)
            .where(*where)
            .order_by(Notification.created_at.desc(), Notification.id.desc()))


def subscription_record(row: PushSubscription) -> dict:
    return {"id": row.id, "endpoint": row.endpoint, "user_agent": row.user_agent,
            "created_at": value_out(row.created_at), "last_used_at": value_out(row.last_used_at)}


def check_known_types(type_ids, field: str) -> None:
    """A 400 naming each entry of the list `field` (the body's key) whose notification type in `type_ids` (the
    entries' types, in order) the catalogue does not know, as `<field>.<index>.notification_type`: the core's
    spelling of a list member's field, and the portal's for its own preferences (session 32: every detail named
    `<field>.notification_type`, no field of the body). At most 100 details, as the core's validation lists."""
    type_ids = list(type_ids)
    unknown = sorted({type_id for type_id in type_ids if get_type(type_id) is None})
    if unknown:
        raise BadRequest(f"Unknown notification type: {', '.join(unknown)}",
                         details=[{"field": f"{field}.{index}.notification_type", "message": f"unknown type {name}"}
                                  for index, name in enumerate(type_ids) if name in unknown][:100])
