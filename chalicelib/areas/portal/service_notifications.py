"""Portal users' notifications: keyed by the portal user id (X-Portal-User-Id) and the company, never staff
notifications. List with the document's paging, unread count, read, read all, and preferences limited to the
types that support portal delivery and to the in-app and e-mail channels. `notify_portal_users` notifies
portal users (in-app, and e-mail through the notifications queue and the mail provider after commit); the
portal user's e-mail address is the one the portal worker sends in X-Portal-User-Email (`record_portal_user`)."""
from __future__ import annotations

from sqlalchemy import func, select, update

from chalicelib.core.db import WRITE_LATER
from chalicelib.core.errors import BadRequest, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_ignore, insert_rows, lock_key, set_cells
from chalicelib.core.query import template

from .models import PortalNotification, PortalNotificationPreference, PortalSubmission, PortalUser
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
    """Set the channels of the types sent; an unknown type is a 400. Each entry merges into the type's effective
    channels (its stored row, else the defaults): a channel it leaves out (or sends as null) keeps its value
    (session 28: a left-out channel was reset to a fixed default), and a type named twice merges in order.
    Session 25: a type whose merged channels equal its effective ones writes nothing, so a page sent back as read
    leaves the types uncustomised and a later change of a default still reaches the portal user; a customised type
    set back to the defaults stays stored. One SELECT of the stored rows, then one INSERT ... ON CONFLICT DO UPDATE
    of the changed types (core.locks.set_cells), whatever their number."""
    for index, entry in enumerate(data.preferences):
        if entry.notification_type not in TYPE_IDS:
            raise BadRequest("Unknown portal notification type", details=[
                {"field": f"preferences.{index}.notification_type", "message": f"must be one of {', '.join(TYPE_IDS)}"}])
    types = list(dict.fromkeys(entry.notification_type for entry in data.preferences))
    if not types:
        return
    # one user's updates take turns: each merges into the channels the last one committed
    lock_key(ctx.db, "portal-preferences", ctx.portal.company_id, ctx.portal.user_id)
    stored = {row[0]: {"channel_in_app": bool(row[1]), "channel_email": bool(row[2])} for row in ctx.db.execute(
        select(PortalNotificationPreference.notification_type, PortalNotificationPreference.channel_in_app,
               PortalNotificationPreference.channel_email).where(
            PortalNotificationPreference.company_id == ctx.portal.company_id,
            PortalNotificationPreference.portal_user_id == ctx.portal.user_id,
            PortalNotificationPreference.notification_type.in_(types)))}
    effective = {type_id: _effective(stored, type_id) for type_id in types}
    wanted = {type_id: dict(channels) for type_id, channels in effective.items()}
    for entry in data.preferences:
        channels = wanted[entry.notification_type]
        for name in channels:
            if getattr(entry, name) is not None:
                channels[name] = getattr(entry, name)
    key = (ctx.portal.company_id, ctx.portal.user_id)
    set_cells(ctx.db, PortalNotificationPreference, ("company_id", "portal_user_id", "notification_type"),
              {(*key, type_id): channels for type_id, channels in wanted.items() if channels != effective[type_id]},
              {(*key, type_id): channels for type_id, channels in stored.items()})


def _effective(stored: dict, type_id: str) -> dict[str, bool]:
    """The type's channels as the portal user has them now: its stored row, else the type's defaults."""
    if type_id in stored:
        return stored[type_id]
    in_app, email = DEFAULTS[type_id]
    return {"channel_in_app": in_app, "channel_email": email}


# ---------------------------------------------------------------- delivery (in-app and e-mail)

DEFAULTS = {t[0]: (t[3], t[4]) for t in PORTAL_TYPES}


@template
def _portal_user_upsert():
    """The portal user's upsert (built once per process): written only when new or when the address or role
    changed; an absent address or role keeps the one recorded."""
    from sqlalchemy import bindparam, or_
    from sqlalchemy.dialects.postgresql import insert

    now = bindparam("portal_user_now")
    stmt = insert(PortalUser).values(company_id=bindparam("portal_user_company"),
                                     portal_user_id=bindparam("portal_user_id"), email=bindparam("portal_user_email"),
                                     role=bindparam("portal_user_role"), created_at=now, updated_at=now)
    new_email = func.coalesce(stmt.excluded.email, PortalUser.email)
    new_role = func.coalesce(stmt.excluded.role, PortalUser.role)
    return stmt.on_conflict_do_update(
        index_elements=["company_id", "portal_user_id"],
        set_={"email": new_email, "role": new_role, "updated_at": stmt.excluded.updated_at},
        where=or_(PortalUser.email.is_distinct_from(new_email), PortalUser.role.is_distinct_from(new_role)))


def _forget_elsewhere(grouped: bool):
    """The DELETE of the portal user's rows for the other companies, but those of the same `client_group` as the one
    it is recorded for when that company has one (the clients area's `group_company_ids`)."""
    from sqlalchemy import bindparam, delete

    stmt = delete(PortalUser).where(PortalUser.portal_user_id == bindparam("portal_user_id"),
                                    PortalUser.company_id != bindparam("portal_user_company"))
    if grouped:
        from chalicelib.areas.clients import service as clients_service  # another area: imported lazily

        stmt = stmt.where(PortalUser.company_id.not_in(
            clients_service.group_company_ids(bindparam("portal_user_group"))))
    return stmt


@template
def _portal_user_record(postgres: bool, grouped: bool):
    """The statement that records the portal user (built once per process and kind). Postgres: the upsert with, in
    its WITH, the DELETE of the user's rows for the other companies (`_forget_elsewhere`): one statement whose
    answer nobody reads. Elsewhere (SQLite has no DML in a WITH): the upsert alone, the DELETE sent after it."""
    upsert = _portal_user_upsert()
    if not postgres:
        return upsert
    return upsert.add_cte(_forget_elsewhere(grouped).cte("portal_user_forgotten"))


def record_portal_user(db, *, company_id: str, portal_user_id: str, email: str | None, role: str | None,
                       client_group: str | None = None) -> None:
    """Remember the portal user the worker calls for, with its e-mail address when the worker sends one, and forget
    it for the other companies it was recorded for, except the companies of the same non-empty `client_group` as
    this one (`client_group` is the company's): a portal user the worker moved to another company is no longer told
    of the first one's QBRs and budgets (session 24). One statement (`_portal_user_record`) whose answer nobody
    reads: on pg8000 it rides, with its BEGIN, with the request's next statement (core.db.writes_later), so a portal
    read pays no round trip for it."""
    postgres = db.get_bind().dialect.name == "postgresql"
    grouped = bool(client_group)
    params = {"portal_user_company": company_id, "portal_user_id": portal_user_id, "portal_user_email": email,
              "portal_user_role": role, "portal_user_now": utcnow()}
    if grouped:
        params["portal_user_group"] = client_group
    db.execute(_portal_user_record(postgres, grouped), params, execution_options=WRITE_LATER)
    if not postgres:
        db.execute(_forget_elsewhere(grouped), params)


def record_submission(ctx, *, record_type: str, record_id: str, portal_user_id: str | None) -> None:
    """Remember who submitted a request's task or a note (nothing without a portal user id)."""
    if not portal_user_id:
        return
    insert_ignore(ctx.db, PortalUser, {"company_id": ctx.portal.company_id, "portal_user_id": portal_user_id,
                                       "created_at": utcnow(), "updated_at": utcnow()},
                  conflict=("company_id", "portal_user_id"))
    insert_rows(ctx.db, PortalSubmission, [{"record_type": record_type, "record_id": record_id,
                                            "company_id": ctx.portal.company_id, "portal_user_id": portal_user_id}])


def submitter(db, record_type: str, record_id: str) -> tuple[str, str] | None:
    """(company id, portal user id) of who submitted the record through the portal, or None (one statement)."""
    row = db.execute(select(PortalSubmission.company_id, PortalSubmission.portal_user_id).where(
        PortalSubmission.record_type == record_type, PortalSubmission.record_id == record_id)).first()
    return (row[0], row[1]) if row else None


def withdraw_notices(db, *, type: str, resource_type: str, resource_id: str | None = None, resource_ids=None,
                     company_id: str | None = None) -> None:
    """The portal notifications of `type` about one record (`resource_id`), or about several (`resource_ids`: a list
    of ids or a SELECT of them, read in the same statement), of one company or of every company, are withdrawn: the
    record was deleted, or the portal no longer shows it (session 24). One DELETE, whose answer nobody reads (it
    rides with the request's next statement, core.db.WRITE_LATER). E-mails already queued or sent are not recalled."""
    from sqlalchemy import delete

    if (resource_id is None) == (resource_ids is None):
        raise TypeError("withdraw_notices takes resource_id or resource_ids")
    about = PortalNotification.resource_id == resource_id if resource_ids is None else \
        PortalNotification.resource_id.in_(resource_ids)
    stmt = delete(PortalNotification).where(PortalNotification.type == type,
                                            PortalNotification.resource_type == resource_type, about)
    if company_id is not None:
        stmt = stmt.where(PortalNotification.company_id == company_id)
    db.execute(stmt, execution_options={**WRITE_LATER, "synchronize_session": False})


def notify_portal_users(ctx, *, type: str, title: str, body: str | None = None, resource_type: str | None = None,
                        resource_id: str | None = None, action_url: str | None = None, company_ids=None,
                        recipients=None, every_company: bool = False) -> int:
    """Notify portal users: those of `company_ids`, the `(company_id, portal_user_id)` pairs of `recipients`,
    or every known portal user (`every_company`); only users of companies that are clients (a former client's
    users, who can no longer reach the portal, are told nothing). Each gets the in-app notification unless their
    preference turns it off, and an e-mail (a notifications-queue delivery after commit) when their preference (or the
    type's default) has e-mail on and their address is known. A fixed number of statements: one SELECT of the
    users with their preference, one INSERT of notifications, one of deliveries. Answers how many were told."""
    from sqlalchemy import and_, tuple_

    from chalicelib.areas.deals import service as deals_service
    from chalicelib.core.ids import new_id
    from chalicelib.core.notify import delivery_payload, send_after_commit
    from chalicelib.core.notify_models import NotificationDelivery

    pref, company = PortalNotificationPreference, deals_service.company_table()
    stmt = (select(PortalUser.company_id, PortalUser.portal_user_id, PortalUser.email, pref.channel_in_app,
                   pref.channel_email)
            .join(company, and_(company.c.id == PortalUser.company_id, company.c.status == "client"))
            .outerjoin(pref, and_(pref.company_id == PortalUser.company_id,
                                  pref.portal_user_id == PortalUser.portal_user_id, pref.notification_type == type)))
    if recipients is not None:
        pairs = sorted({(c, u) for c, u in recipients if c and u})
        if not pairs:
            return 0
        stmt = stmt.where(tuple_(PortalUser.company_id, PortalUser.portal_user_id).in_(pairs))
    elif company_ids is not None:
        ids = sorted({c for c in company_ids if c})
        if not ids:
            return 0
        stmt = stmt.where(PortalUser.company_id.in_(ids))
    elif not every_company:
        return 0
    in_app_default, email_default = DEFAULTS.get(type, (True, False))
    notifications, deliveries = [], []
    for company_id, user_id, email, pref_in_app, pref_email in ctx.db.execute(stmt).all():
        in_app = in_app_default if pref_in_app is None else pref_in_app
        by_email = email_default if pref_email is None else pref_email
        notification_id = new_id() if in_app else None
        if in_app:
            notifications.append({"id": notification_id, "company_id": company_id, "portal_user_id": user_id,
                                  "type": type, "title": title[:500], "body": body, "resource_type": resource_type,
                                  "resource_id": resource_id, "action_url": action_url, "is_read": False,
                                  "archived": False})
        if by_email and email:
            # the e-mail carries no link: the portal's own addresses are the portal worker's, not known here
            payload = delivery_payload(type=type, title=title[:500], body=body, action_url=None, icon=None,
                                       notification_id=notification_id, resource_type=resource_type,
                                       resource_id=resource_id)
            deliveries.append({"id": new_id(), "notification_id": notification_id, "user_id": None,
                               "channel": "email", "target": email, "type": type, "payload": payload,
                               "status": "pending", "attempts": 0})
    insert_rows(ctx.db, PortalNotification, notifications)
    insert_rows(ctx.db, NotificationDelivery, deliveries)
    send_after_commit(ctx, deliveries)
    return len(notifications) + sum(1 for d in deliveries if d["notification_id"] is None)
