"""notify(): the internal operation every area calls to tell a user something.

It writes the in-app notification in the request's transaction, skips a repeat of the same user,
type and resource within 5 minutes, and records one delivery per channel (email, chat, push) that
the user's effective preferences enable. After commit, one message per delivery goes to the
notifications queue (`core.queue`); without a queue URL the in-process handler registered below
delivers at once. A failed request sends nothing. `notify_many()` does the same for many
notifications. A deactivated user is told nothing (no record, no delivery). Both take a fixed number of
statements whatever the number of notifications: on Postgres one claim of the de-duplication keys (`_claim`: a
repeat that another transaction is making counts as made), one read (the recent notifications for de-duplication, the
preference overrides and which recipients are active; one statement on Postgres, three elsewhere), one write
(the notifications and their deliveries; one statement on Postgres, the notifications' INSERT a CTE of the
deliveries', two elsewhere), then SQS batches of ten after commit.
`notify_squad()` notifies a squad's members that way and posts to the squad's chat channel.

Delivery itself (`core/notify_delivery.py`) lives in core because `notify()` runs in every area's
function, loaded or not the notifications area; it imports the providers lazily.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

import orjson
from sqlalchemy import Boolean, ForeignKey, Index, String, Text, bindparam, or_, select, text
from sqlalchemy.orm import Mapped, mapped_column

from . import queue
from .db import WRITE_LATER, Base, UTCDateTime, created_at_column, id_column
from .errors import BadRequest, NotFound
from .ids import new_id, utcnow
from .notify_catalogue import DELIVERY_CHANNELS, type_info
from .query import Read, ids_param, ids_value, record_sets, template
from .serialize import clipped

DEDUP_WINDOW = timedelta(minutes=5)
QUEUE = "notifications"

# who an audience of notify_squad() reaches, besides the squad's manager (always included)
AUDIENCE_LEVELS = {
    "squad": ("employee", "lead", "manager", "head", "executive"),
    "leads": ("lead", "manager", "head", "executive"),
    "managers": ("manager", "head", "executive"),
}


class Notification(Base):
    __tablename__ = "notifications"
    __table_args__ = (
        Index("ix_notifications_user_created", "user_id", "created_at"),
        Index("ix_notifications_dedup", "user_id", "type", "resource_type", "resource_id", "created_at"),
    )

    id: Mapped[str] = id_column()
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    type: Mapped[str] = mapped_column(String(100), nullable=False)
    title: Mapped[str] = mapped_column(String(500), nullable=False)
    body: Mapped[str | None] = mapped_column(Text)
    icon: Mapped[str | None] = mapped_column(String(100))
    resource_type: Mapped[str | None] = mapped_column(String(50))
    resource_id: Mapped[str | None] = mapped_column(String(1024))  # a provider's id as it is (a calendar event's)
    action_url: Mapped[str | None] = mapped_column(Text)
    actor_id: Mapped[str | None] = mapped_column(String(36))
    is_read: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    read_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    archived: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    archived_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # False when the user turned the in-app channel off for this type: the record still exists
    # (de-duplication, deliveries, analytics) but lists and counts leave it out.
    in_app: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    created_at: Mapped[datetime] = created_at_column()


def delivery_payload(*, type: str, title: str, body: str | None, action_url: str | None, icon: str | None,
             notification_id: str | None, resource_type: str | None, resource_id: str | None) -> dict:
    return {"type": type, "title": title, "body": body, "action_url": action_url, "icon": icon,
            "notification_id": notification_id, "resource_type": resource_type, "resource_id": resource_id}


def send_after_commit(ctx, deliveries: list) -> None:
    """One notifications-queue message per delivery, after commit (also the portal's e-mail deliveries).
    `deliveries`: NotificationDelivery records, or their rows as dicts."""
    if not deliveries:
        return
    messages = [{"delivery_id": d["id"], "channel": d["channel"]} if isinstance(d, dict)
                else {"delivery_id": d.id, "channel": d.channel} for d in deliveries]

    def send() -> None:
        """After commit: a failed send is logged with its delivery ids and left `pending`, which the
        `notifications-drain` job retries; the request that made the notification has succeeded."""
        try:
            failed = queue.send_batch(QUEUE, messages)
        except Exception:  # noqa: BLE001 - the records are committed; never turn this into a 500
            logging.getLogger("wms.notify").error(
                "notification queue send failed for deliveries %s; notifications-drain will retry them",
                ",".join(m["delivery_id"] for m in messages), exc_info=True)
            return
        if failed:
            logging.getLogger("wms.notify").error(
                "notification queue refused deliveries %s; notifications-drain will retry them",
                ",".join(m["delivery_id"] for m in failed))

    ctx.after_commit(send)


@template
def _recent_template(postgres: bool, no_resource: bool):
    """The notifications of these users, types and resources (`no_resource`: or of none) made within the
    de-duplication window."""
    resource = ids_param(Notification.resource_id, "recent_resources", postgres)
    return (select(Notification.user_id, Notification.type, Notification.resource_type, Notification.resource_id)
            .where(ids_param(Notification.user_id, "recent_users", postgres),
                   ids_param(Notification.type, "recent_types", postgres),
                   or_(resource, Notification.resource_id.is_(None)) if no_resource else resource,
                   Notification.created_at >= bindparam("recent_since", type_=UTCDateTime())))


@template
def _overrides_template(postgres: bool):
    """The users' own channel choices for these types (notification_preferences rows)."""
    from .notify_models import NotificationPreference  # on first use: a read request never loads these models

    return (select(NotificationPreference.user_id, NotificationPreference.notification_type,
                   NotificationPreference.channel_in_app, NotificationPreference.channel_email,
                   NotificationPreference.channel_chat, NotificationPreference.channel_push)
            .where(ids_param(NotificationPreference.user_id, "pref_users", postgres),
                   ids_param(NotificationPreference.notification_type, "pref_types", postgres)))


def _lookups(db, notices: list[dict]) -> dict:
    """The recent notifications of the notices' users, types and resources (for the de-duplication), the
    preference overrides of their users and types, and which of their users are active: one statement on
    Postgres (core.query.record_sets). An id or type holding a comma (never made by the service) is read with
    expanding lists instead."""
    wanted = [{n["user_id"] for n in notices}, {n["type"] for n in notices}, {n["resource_id"] for n in notices}]
    postgres = db.get_bind().dialect.name == "postgresql"
    users, kinds, resources = (ids_value(values, postgres) for values in wanted)
    if postgres and None in (users, kinds, resources):
        postgres = False
        users, kinds, resources = (ids_value(values, False) for values in wanted)
    reads = {"overrides": Read(_overrides_template(postgres), {"pref_users": users, "pref_types": kinds},
                               ("channel_in_app", "channel_email", "channel_chat", "channel_push")),
             "active": Read(_active_template(postgres), {"pref_users": users}),
             "recent": Read(_recent_template(postgres, None in wanted[2]), {
                 "recent_users": users, "recent_types": kinds, "recent_resources": resources,
                 "recent_since": utcnow() - DEDUP_WINDOW})}
    return record_sets(db, **reads)


@template
def _active_template(postgres: bool):
    """The active users among these (a deactivated user is told nothing: they cannot sign in to read it)."""
    from .models import User

    return select(User.id).where(ids_param(User.id, "pref_users", postgres), User.is_active.is_(True))


@template
def _insert_template():
    """The notifications and their deliveries in one statement whatever their number: each set travels as one
    JSON parameter that json_populate_recordset turns into the table's rows (the notifications' INSERT a CTE of
    the deliveries'). The statement never changes, so it is compiled once and prepared on each connection."""
    from .notify_models import NotificationDelivery

    def insert(table, param: str) -> str:
        names = ", ".join(f'"{column.name}"' for column in table.columns)  # the model's columns, named
        return (f"INSERT INTO {table.name} ({names}) SELECT {names} FROM "
                f"json_populate_recordset(NULL::{table.name}, CAST(:{param} AS json))")

    return text(f"WITH new_notifications AS ({insert(Notification.__table__, 'notifications')}) "
                f"{insert(NotificationDelivery.__table__, 'deliveries')}")


def _insert(db, notifications: list[dict], deliveries: list[dict]) -> None:
    """The notifications and their deliveries: one statement on Postgres (`_insert_template`), one INSERT each
    elsewhere."""
    from .locks import complete_rows, insert_rows
    from .notify_models import NotificationDelivery

    if not notifications:
        return
    if db.get_bind().dialect.name == "postgresql":
        db.execute(_insert_template(), {
            "notifications": orjson.dumps(complete_rows(Notification, notifications)).decode(),
            "deliveries": orjson.dumps(complete_rows(NotificationDelivery, deliveries)).decode()},
            execution_options=WRITE_LATER)
        return
    insert_rows(db, Notification, notifications)
    insert_rows(db, NotificationDelivery, deliveries)


NOTICE_FIELDS = ("body", "resource_type", "resource_id", "action_url", "actor_id", "icon")


TITLE_MAX = 500  # the title column's length


def _short_title(title: str) -> str:
    """A title that fits its column: an area's title quotes a record's name or title, itself up to 500 characters
    ("You were assigned a task: " and a 500-character title made the task's create a 400)."""
    return clipped(title, TITLE_MAX)


CLAIM_MOST = 200  # keys one notifying write claims at most (see _claim)


def _claim(db, keys: set[tuple]) -> set[tuple]:
    """Claim the notices' de-duplication keys (user, type, resource) for this transaction, one statement on
    Postgres: a transaction-scoped advisory lock each, tried, never waited for. Answers the keys another
    transaction holds: it is making that notice and has not committed it, so this one is a repeat (the window's
    read cannot see it yet). A key claimed here is held until this transaction ends, so a repeat made meanwhile
    is skipped, and one made after sees the committed notice in the window's read; the claim comes before that
    read, whose snapshot is then taken after the other's commit. Tried, not waited for: a notifying write never
    waits on another's, nor deadlocks with it (a repeat is lost only if the transaction holding its key then
    fails). Nothing elsewhere (SQLite runs one writer), nor for more than CLAIM_MOST keys: a broadcast (an
    announcement to everyone, a job's batch) is made once by its own lock or marker, and each advisory lock takes
    a slot of the server's shared lock table until commit."""
    if not keys or len(keys) > CLAIM_MOST or db.get_bind().dialect.name != "postgresql":
        return set()
    named = {orjson.dumps(["notify", *key]).decode(): key for key in keys}
    held = db.execute(_claim_statement(), {"keys": orjson.dumps(sorted(named)).decode()}).scalars()
    return {named[name] for name in held}


@template
def _claim_statement():
    return text("SELECT k FROM json_array_elements_text(CAST(:keys AS json)) AS k "
                "WHERE NOT pg_try_advisory_xact_lock(hashtextextended(k, 0))")


def _create(ctx, notices: list[dict]) -> list[dict]:
    """The notifications of `notices` to active users and not de-duplicated, written with their deliveries (queued
    after commit), in a fixed number of statements: one read (recent notifications, preference overrides and the
    active users; `_lookups`), one write.
    Answers the notifications' rows as inserted."""
    db = ctx.db
    notices = [{**{field: None for field in NOTICE_FIELDS}, **notice, "title": _short_title(notice["title"])}
               for notice in notices]
    if not notices:
        return []

    def key(notice) -> tuple:
        return notice["user_id"], notice["type"], notice["resource_type"], notice["resource_id"]

    being_made = _claim(db, {key(notice) for notice in notices})
    found = _lookups(db, notices)
    active = {r["id"] for r in found["active"]}
    recent = {(r["user_id"], r["type"], r["resource_type"], r["resource_id"]) for r in found["recent"]} | being_made
    overrides = {(r["user_id"], r["notification_type"]): {
        "in_app": bool(r["channel_in_app"]), "email": bool(r["channel_email"]), "chat": bool(r["channel_chat"]),
        "push": bool(r["channel_push"])} for r in found["overrides"]}
    notifications, deliveries = [], []
    now = utcnow()
    for notice in notices:
        if notice["user_id"] not in active:  # a deactivated user is never told (nor counted as notified)
            continue
        if key(notice) in recent:
            continue
        recent.add(key(notice))
        user_id, type = notice["user_id"], notice["type"]
        channels = overrides.get((user_id, type)) or type_info(type).defaults()
        notification_id = new_id()
        notifications.append({"id": notification_id, "user_id": user_id, "type": type, "title": notice["title"],
                              **{field: notice[field] for field in NOTICE_FIELDS}, "in_app": channels["in_app"],
                              "is_read": False, "read_at": None, "archived": False, "archived_at": None,
                              "created_at": now})
        payload = delivery_payload(type=type, title=notice["title"], body=notice["body"], action_url=notice["action_url"],
                           icon=notice["icon"], notification_id=notification_id,
                           resource_type=notice["resource_type"], resource_id=notice["resource_id"])
        deliveries.extend(
            {"id": new_id(), "notification_id": notification_id, "user_id": user_id, "channel": channel,
             "type": type, "payload": payload, "status": "pending", "attempts": 0, "created_at": now,
             "updated_at": now}
            for channel in DELIVERY_CHANNELS if channels.get(channel))
    _insert(db, notifications, deliveries)
    send_after_commit(ctx, deliveries)
    return notifications


def notify(ctx, *, user_id: str, type: str, title: str, body: str | None = None, resource_type: str | None = None,
           resource_id: str | None = None, action_url: str | None = None, actor_id: str | None = None,
           icon: str | None = None) -> Notification | None:
    """Create an in-app notification (and its deliveries after commit). `ctx` is the core Context of a
    request or of a job (`core.context.job_context()`). Returns None when de-duplicated or the user is
    deactivated, else the notification (its row is written; the object is not in the session). Every
    notification is de-duplicated (document 3, Events: skipped when the same user, type and resource was
    notified within the last 5 minutes); no area opts out."""
    made = _create(ctx, [{"user_id": user_id, "type": type, "title": title, "body": body,
                          "resource_type": resource_type, "resource_id": resource_id, "action_url": action_url,
                          "actor_id": actor_id, "icon": icon}])
    return Notification(**made[0]) if made else None


def notify_many(ctx, notices: list[dict]) -> list[str]:
    """`notify()` for many notifications at once, in a fixed number of statements whatever their
    number. Each notice holds user_id, type and title, and may hold body, resource_type, resource_id,
    action_url, actor_id and icon. De-duplication as in `notify()` (also among the notices). Answers the ids
    of the users notified (those active and not de-duplicated), in the notices' order."""
    return [row["user_id"] for row in _create(ctx, notices)]


def squad_audience_ids(db, *, squad_id: str, audience: str) -> list[str]:
    """Active users an audience reaches: the squad's members at the audience's access levels, and
    the squad's manager whatever the audience."""
    from .models import Squad, User

    if audience not in AUDIENCE_LEVELS:
        raise BadRequest(f"Unknown audience {audience!r}: use squad, leads or managers")
    manager_id = select(Squad.manager_id).where(Squad.id == squad_id).scalar_subquery()
    rows = db.scalars(
        select(User.id).where(
            User.is_active.is_(True),
            or_(
                (User.squad_id == squad_id) & User.access_level.in_(AUDIENCE_LEVELS[audience]),
                User.id == manager_id,
            ),
        ).order_by(User.name, User.id)
    )
    return list(rows)


def notify_squad(ctx, *, squad_id: str, audience: str, type: str, title: str, body: str | None = None,
                 resource_type: str | None = None, resource_id: str | None = None, action_url: str | None = None,
                 actor_id: str | None = None, icon: str | None = None) -> dict:
    """Notify the members of a squad that `audience` selects (squad, leads, managers; the actor is
    left out) and post to the squad's chat channel for this type: the squad's configuration row for
    the type (its chat_channel_id, and its email_group by e-mail), else the squad's chat_channel_id.
    A configuration row with enabled = 0 posts nothing to the squad's channels (members are still
    notified per their own preferences). Answers `{notified, deliveries}` (user ids, delivery ids)."""
    from .models import Squad

    from .notify_models import NotificationDelivery, SquadNotificationConfig  # on first use: a read request never loads these models

    db = ctx.db
    squad = db.get(Squad, squad_id)
    if squad is None:
        raise NotFound("Squad not found")
    notified = notify_many(ctx, [
        {"user_id": user_id, "type": type, "title": title, "body": body, "resource_type": resource_type,
         "resource_id": resource_id, "action_url": action_url, "actor_id": actor_id, "icon": icon}
        for user_id in squad_audience_ids(db, squad_id=squad_id, audience=audience)
        if actor_id is None or user_id != actor_id
    ])
    config = db.get(SquadNotificationConfig, (squad_id, type))
    targets: list[tuple[str, str]] = []
    if config is None or config.enabled:
        channel = (config.chat_channel_id if config is not None else None) or squad.chat_channel_id
        if channel:
            targets.append(("chat", channel))
        if config is not None and config.email_group:
            targets.append(("email", config.email_group))
    payload = delivery_payload(type=type, title=title, body=body, action_url=action_url, icon=icon,
                       notification_id=None, resource_type=resource_type, resource_id=resource_id)
    payload["audience"] = audience
    deliveries = [
        NotificationDelivery(id=new_id(), squad_id=squad_id, channel=channel, target=target, type=type,
                             payload=payload, status="pending", attempts=0)
        for channel, target in targets
    ]
    if deliveries:
        db.add_all(deliveries)
        db.flush()
        send_after_commit(ctx, deliveries)
    return {"notified": notified, "deliveries": [d.id for d in deliveries]}


def _deliver_in_process(message: dict) -> None:
    from .notify_delivery import deliver_message

    deliver_message(message)


queue.register_local_handler(QUEUE, _deliver_in_process)
