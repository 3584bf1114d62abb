"""Delivery of one notification message to one channel (email, chat, push), idempotent per delivery id.

`deliver(delivery_id)` locks the delivery row, does nothing when it is already `sent` or `skipped`
(a duplicate queue message), otherwise calls the channel's provider and records the outcome:
`sent`, `skipped` (channel off or not configured, no recipient address, no push subscription) or
`failed` (the provider refused or could not be reached; retried by the queue, then by
`drain_pending`). Providers are imported lazily, so that every area's function can deliver.
"""
from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import or_, select

from .context import job_context
from .errors import BadGateway, ServiceUnavailable
from .ids import utcnow
from .notify_models import NotificationDelivery, PushSubscription
from .settings import get_settings

log = logging.getLogger("wms.notify")
MAX_ATTEMPTS = 5
PUSH_TITLE_MAX, PUSH_BODY_MAX = 200, 1000
DONE = ("sent", "skipped")


class Skip(Exception):
    """The channel cannot carry this message and retrying would not help."""


class Outcome:
    """A sender's result when it is not a plain success (a sender may also answer an external id)."""

    def __init__(self, status: str, external_id: str | None = None, error: str | None = None) -> None:
        self.status, self.external_id, self.error = status, external_id, error


def _absolute_url(action_url: str | None) -> str | None:
    if not action_url:
        return None
    if action_url.startswith("/"):
        return get_settings().public_base_url.rstrip("/") + action_url
    return action_url


def _text(payload: dict) -> str:
    parts = [payload.get("title") or ""]
    if payload.get("body"):
        parts.append(payload["body"])
    url = _absolute_url(payload.get("action_url"))
    if url:
        parts.append(url)
    return "\n\n".join(parts)


def _recipient(db, delivery: NotificationDelivery):
    from .models import User

    user = db.get(User, delivery.user_id) if delivery.user_id else None
    if user is None or not user.is_active:
        raise Skip("recipient is not an active user")
    return user


def _send_email(db, delivery: NotificationDelivery) -> str | Outcome | None:
    from chalicelib.providers.mail import get_mail

    address = delivery.target or _recipient(db, delivery).email
    mail = get_mail(db=db)
    payload = delivery.payload or {}
    return mail.send(to=[address], subject=payload.get("title") or "Notification", text=_text(payload))


def _send_chat(db, delivery: NotificationDelivery) -> str | Outcome | None:
    from chalicelib.providers.chat import get_chat

    chat = get_chat(db=db)
    channel = delivery.target
    if not channel:
        user = _recipient(db, delivery)
        channel = chat.lookup_user_by_email(user.email)
        if not channel:
            raise Skip(f"no team chat member with the e-mail address {user.email}")
    payload = delivery.payload or {}
    text = f"*{payload.get('title') or ''}*"
    if payload.get("body"):
        text += f"\n{payload['body']}"
    url = _absolute_url(payload.get("action_url"))
    if url:
        text += f"\n<{url}|Open>"
    answer = chat.post_message(channel=channel, text=text)
    return answer.get("ts")


def _send_push(db, delivery: NotificationDelivery) -> Outcome:
    from chalicelib.providers.push import SubscriptionGone, get_push

    push = get_push(db=db)
    _recipient(db, delivery)
    subscriptions = list(db.scalars(select(PushSubscription).where(PushSubscription.user_id == delivery.user_id)))
    if not subscriptions:
        raise Skip("no push subscription")
    payload = dict(delivery.payload or {})
    # push services accept about 4 KB of encrypted payload: keep the text short
    payload["title"] = (payload.get("title") or "")[:PUSH_TITLE_MAX]
    if payload.get("body"):
        body = payload["body"]
        payload["body"] = body if len(body) <= PUSH_BODY_MAX else body[:PUSH_BODY_MAX - 1] + "\u2026"
    payload["url"] = payload.get("action_url")
    payload["tag"] = payload.get("type")
    sent, gone, errors = 0, 0, []
    for subscription in subscriptions:
        info = {"endpoint": subscription.endpoint, "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth}}
        try:
            push.send(subscription=info, payload=payload)
        except SubscriptionGone:
            db.delete(subscription)
            gone += 1
            continue
        except BadGateway as exc:
            errors.append(exc.message)
            continue
        subscription.last_used_at = utcnow()
        sent += 1
    db.flush()
    # returned, not raised: the removal of gone subscriptions must be kept in every case
    if sent:
        return Outcome("sent", f"{sent} of {len(subscriptions)} subscriptions")
    if errors:
        return Outcome("failed", error="; ".join(errors))
    return Outcome("skipped", error=f"every push subscription was gone ({gone} removed)")


SENDERS = {"email": _send_email, "chat": _send_chat, "push": _send_push}


def deliver(delivery_id: str) -> str:
    """Deliver one message. Answers its outcome: sent, skipped, failed, duplicate or missing."""
    with job_context() as ctx:
        db = ctx.db
        delivery = db.scalar(select(NotificationDelivery).where(NotificationDelivery.id == delivery_id)
                             .with_for_update())
        if delivery is None:
            log.warning("notification delivery %s not found", delivery_id)
            return "missing"
        if delivery.status in DONE:
            return "duplicate"
        delivery.attempts = (delivery.attempts or 0) + 1
        delivery.last_attempt_at = utcnow()
        sender = SENDERS.get(delivery.channel)
        try:
            with db.begin_nested():
                if sender is None:
                    raise Skip(f"unknown channel {delivery.channel}")
                result = sender(db, delivery)
        except (Skip, ServiceUnavailable) as exc:
            delivery.status, delivery.error = "skipped", str(getattr(exc, "message", None) or exc)
        except BadGateway as exc:
            delivery.status, delivery.error = "failed", exc.message
        except Exception as exc:  # noqa: BLE001 - a provider bug must not lose the delivery record
            log.exception("notification delivery %s failed", delivery_id)
            delivery.status, delivery.error = "failed", f"{type(exc).__name__}: {exc}"
        else:
            result = result if isinstance(result, Outcome) else Outcome("sent", result)
            delivery.status, delivery.error, delivery.external_id = result.status, result.error, result.external_id
            if result.status == "sent":
                delivery.sent_at = utcnow()
        return delivery.status


def deliver_message(message: dict) -> str:
    """The in-process queue handler (no queue URL): deliver at once; failures stay `failed` for
    `drain_pending` to retry."""
    return deliver(message["delivery_id"])


def drain_pending(*, pending_older_than: timedelta = timedelta(minutes=2), limit: int = 500) -> dict:
    """Retry deliveries left `pending` (a lost queue message) for longer than `pending_older_than`,
    and `failed` ones with fewer than MAX_ATTEMPTS attempts. Answers counts per outcome."""
    cutoff = utcnow() - pending_older_than
    with job_context() as ctx:
        ids = list(ctx.db.scalars(
            select(NotificationDelivery.id).where(or_(
                (NotificationDelivery.status == "pending") & (NotificationDelivery.created_at <= cutoff),
                (NotificationDelivery.status == "failed") & (NotificationDelivery.attempts < MAX_ATTEMPTS),
            )).order_by(NotificationDelivery.created_at).limit(limit)
        ))
    counts: dict[str, int] = {"processed": 0, "sent": 0, "skipped": 0, "failed": 0, "duplicate": 0, "missing": 0}
    for delivery_id in ids:
        outcome = deliver(delivery_id)
        counts["processed"] += 1
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts
