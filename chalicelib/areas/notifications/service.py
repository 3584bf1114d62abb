"""Notifications: the caller's own notifications, preferences and push subscriptions.

Every function reaches only `ctx.user_id`'s rows; another user's notification id is 404.
Records stored with in-app off (`in_app` false) are left out of lists, counts and actions.
"""
from __future__ import annotations

from sqlalchemy import delete, func, select, update

from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_key, set_cells
from chalicelib.core.notify import Notification
from chalicelib.core.notify_catalogue import TYPES, get_type
from chalicelib.core.notify_models import NotificationPreference, PushSubscription
from chalicelib.core.query import Page, record_page
from chalicelib.core.serialize import flag

from .queries import (NOTIFICATION_FLAGS, MAX_PUSH_SUBSCRIPTIONS, check_known_types,
                      load_notification, notifications_with_actor, subscription_record, visible,
                      visible_subscriptions)
from .schemas import NotificationListQuery, PreferencesUpdate, PushSubscribe


def list_notifications(ctx, *, query: NotificationListQuery) -> Page:
    """Newest first; `all` is every non-archived notification, `unread` the unread non-archived
    ones, `archived` the archived ones. At most two queries: the page (actor joined) and the total."""
    where = [visible(ctx.principal)]
    if query.filter == "archived":
        where.append(Notification.archived.is_(True))
    else:
        where.append(Notification.archived.is_(False))
        if query.filter == "unread":
            where.append(Notification.is_read.is_(False))
    return record_page(ctx.db, notifications_with_actor(where), query, NOTIFICATION_FLAGS, exact_total=True)


def unread_count(ctx) -> int:
    return ctx.db.scalar(select(func.count()).select_from(Notification).where(
        visible(ctx.principal), Notification.is_read.is_(False), Notification.archived.is_(False)))


def mark_read(ctx, *, notification_id: str) -> None:
    notification = load_notification(ctx, notification_id)
    if not notification.is_read:
        notification.is_read, notification.read_at = True, utcnow()
        ctx.db.flush()


def mark_all_read(ctx) -> int:
    result = ctx.db.execute(
        update(Notification).where(visible(ctx.principal), Notification.is_read.is_(False))
        .values(is_read=True, read_at=utcnow()).execution_options(synchronize_session=False))
    return result.rowcount


def archive(ctx, *, notification_id: str) -> None:
    notification = load_notification(ctx, notification_id)
    if not notification.archived:
        notification.archived, notification.archived_at = True, utcnow()
        ctx.db.flush()


def archive_read(ctx) -> int:
    result = ctx.db.execute(
        update(Notification).where(visible(ctx.principal), Notification.is_read.is_(True), Notification.archived.is_(False))
        .values(archived=True, archived_at=utcnow()).execution_options(synchronize_session=False))
    return result.rowcount


# --- type catalogue and preferences -------------------------------------------------------------

def types() -> list[dict]:
    return [item.as_dict() for item in TYPES]


def preferences(ctx) -> list[dict]:
    """Every catalogue type with the caller's effective channels (override, else default)."""
    overrides = {row.notification_type: row for row in ctx.db.scalars(
        select(NotificationPreference).where(NotificationPreference.user_id == ctx.user_id))}
    entries = []
    for item in TYPES:
        override = overrides.get(item.id)
        channels = override.channels() if override is not None else item.defaults()
        entries.append({
            "notification_type": item.id, "category": item.category, "label": item.label,
            "description": item.description,
            **{f"channel_{name}": flag(value) for name, value in channels.items()},
            "is_customized": override is not None,
        })
    return entries


PREFERENCE_CHANNELS = ("in_app", "email", "chat", "push")


def update_preferences(ctx, *, data: PreferencesUpdate) -> None:
    """Channels left out of an entry keep their effective value. An entry equal to the type's
    defaults removes the override (the type is no longer customised). Entries apply in order (a type named twice:
    the second merges into the first). Written as a set (session 27): one INSERT ... ON CONFLICT DO UPDATE of the
    overrides set and one DELETE of those removed, whatever the number of types (core.locks.set_cells); a row
    sent back as stored is not rewritten."""
    check_known_types([entry.notification_type for entry in data.preferences], "preferences")
    # concurrent updates of one user's preferences take turns: each merges into the rows the last one committed
    # (two first overrides of a type both inserted it: a 409; a channel left out kept a stale value)
    lock_key(ctx.db, "notification-preferences", ctx.user_id)
    columns = [getattr(NotificationPreference, f"channel_{name}") for name in PREFERENCE_CHANNELS]
    stored = {row[0]: dict(zip(PREFERENCE_CHANNELS, row[1:])) for row in ctx.db.execute(
        select(NotificationPreference.notification_type, *columns)
        .where(NotificationPreference.user_id == ctx.user_id))}
    wanted: dict[str, dict[str, bool] | None] = {}  # type: its channels after the entries (None: no override)
    for entry in data.preferences:
        item = get_type(entry.notification_type)
        current = wanted[item.id] if item.id in wanted else stored.get(item.id)
        channels = dict(current) if current is not None else item.defaults()
        for name in channels:
            value = getattr(entry, f"channel_{name}")
            if value is not None:
                channels[name] = value
        wanted[item.id] = None if channels == item.defaults() else channels
    set_cells(ctx.db, NotificationPreference, ("user_id", "notification_type"),
              _rows(ctx.user_id, wanted), _rows(ctx.user_id, stored))


def _rows(user_id: str, channels_by_type: dict) -> dict:
    """Preferences ({type: its channels, or None for no override}) as core.locks.set_cells takes them."""
    return {(user_id, type_id): None if channels is None
            else {f"channel_{name}": value for name, value in channels.items()}
            for type_id, channels in channels_by_type.items()}


# --- web push -------------------------------------------------------------------------------

def push_public_key() -> str:
    from chalicelib.providers.push import push_public_key as provider_key

    return provider_key()  # 503 from the provider when push is off, or live without both VAPID keys


def subscribe(ctx, *, data: PushSubscribe) -> None:
    """Register (or refresh) a browser's subscription. An endpoint belongs to one browser: when it
    was registered by another user, it moves to the caller."""
    user_agent = data.user_agent or ctx.header("User-Agent")
    # one registration of an endpoint at a time (two first ones both inserted it: a 409), and one of a user's at
    # a time (each kept at most MAX_PUSH_SUBSCRIPTIONS counting only the rows committed before it: more were left)
    lock_key(ctx.db, "push-endpoint", data.endpoint)
    lock_key(ctx.db, "push-subscriptions", ctx.user_id)
    row = ctx.db.scalar(select(PushSubscription).where(PushSubscription.endpoint == data.endpoint))
    if row is None:
        row = PushSubscription(user_id=ctx.user_id, endpoint=data.endpoint)
        ctx.db.add(row)
    row.user_id, row.p256dh, row.auth = ctx.user_id, data.keys.p256dh, data.keys.auth
    row.user_agent = (user_agent or None) and user_agent[:500]
    ctx.db.flush()
    keep = (select(PushSubscription.id).where(PushSubscription.user_id == ctx.user_id)
            .order_by((PushSubscription.id == row.id).desc(), PushSubscription.created_at.desc(), PushSubscription.id)
            .limit(MAX_PUSH_SUBSCRIPTIONS))
    ctx.db.execute(delete(PushSubscription)
                   .where(PushSubscription.user_id == ctx.user_id, PushSubscription.id.not_in(keep.scalar_subquery()))
                   .execution_options(synchronize_session=False))


def delete_subscription(ctx, *, endpoint: str) -> bool:
    """Remove the caller's subscription of this endpoint (none: nothing to do)."""
    row = ctx.db.scalar(select(PushSubscription).where(PushSubscription.endpoint == endpoint,
                                                       visible_subscriptions(ctx.principal)))
    if row is None:
        return False
    ctx.db.delete(row)
    ctx.db.flush()
    return True


def subscriptions(ctx) -> list[dict]:
    rows = ctx.db.scalars(select(PushSubscription).where(visible_subscriptions(ctx.principal))
                          .order_by(PushSubscription.created_at.desc(), PushSubscription.id)
                          .limit(MAX_PUSH_SUBSCRIPTIONS))
    return [subscription_record(row) for row in rows]
