"""Delivery of one notification message to one channel (email, chat, push), idempotent per delivery id.

`deliver(delivery_id)` claims the delivery row (`sending`, committed), does nothing when it is already
`sent` or `skipped` (a duplicate queue message) or being sent by another worker, otherwise calls the
channel's provider with no transaction open and records the outcome: `sent`, `skipped` (channel off or
not configured, no recipient address, no push subscription) or `failed` (the provider refused or could
not be reached; retried by the queue, then by `drain_pending`). Providers are imported lazily, so that
every area's function can deliver.
"""
from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import delete, or_, select, update

from .context import job_context
from .errors import BadGateway, ServiceUnavailable
from .ids import utcnow
from .notify_models import NotificationDelivery, PushSubscription
from .serialize import clean_text, clipped, kept_id
from .settings import get_settings
from .timeutil import TimeBudget

log = logging.getLogger("wms.notify")
MAX_ATTEMPTS = 5
PUSH_TITLE_MAX, PUSH_BODY_MAX = 200, 1000
DONE = ("sent", "skipped")
# final deliveries (DONE, and `failed` with every attempt used) older than this are purged (the daily
# `notifications-purge` job); the usage analytics read deliveries of up to the last 365 days
DELIVERY_RETENTION = timedelta(days=366)
PURGE_BATCH = 10_000
SENDING_STALE = timedelta(minutes=5)  # longer than any worker runs (the queue function's timeout is 90 s)


class Skip(Exception):
    """The channel cannot carry this message and retrying would not help."""


class Outcome:
    """A sender's result when it is not a plain success (a sender may also answer an external id)."""

    def __init__(self, status: str, external_id: str | None = None, error: str | None = None, *,
                 record=None) -> None:
        self.status, self.external_id, self.error = status, external_id, error
        self.record = record  # writes kept with the outcome (push: subscriptions gone or used)


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
    """The delivery's user, still active and still wanting this type on this channel: the channels were chosen when
    the notice was made, and a user who turned one off since (while the message waited in the queue, or between
    the drain's retries) was still sent it (session 22's notifications audit). One read, the preference joined."""
    from .models import User
    from .notify_catalogue import type_info
    from .notify_models import NotificationPreference

    row = db.execute(select(User, NotificationPreference)
                     .outerjoin(NotificationPreference, (NotificationPreference.user_id == User.id)
                                & (NotificationPreference.notification_type == delivery.type))
                     .where(User.id == delivery.user_id)).first() if delivery.user_id else None
    if row is None or not row[0].is_active:
        raise Skip("recipient is not an active user")
    user, preference = row
    channels = preference.channels() if preference is not None else type_info(delivery.type).defaults()
    if not channels.get(delivery.channel, True):
        raise Skip(f"the user turned {delivery.channel} off for this kind of notice")
    return user


# A sender reads what it needs (recipient, subscriptions, the adapter and its stored credentials) while the
# claim's transaction is open, and answers the provider call as a function of plain values: the call runs
# after the claim is committed and the connection given back, so no row lock nor transaction is held while
# the provider answers. The call answers an external id or an Outcome.

def _send_email(db, delivery: NotificationDelivery):
    from chalicelib.providers.mail import get_mail

    address = delivery.target or _recipient(db, delivery).email
    mail = get_mail(db=db)
    payload = delivery.payload or {}
    subject, text = payload.get("title") or "Notification", _text(payload)
    return lambda: mail.send(to=[address], subject=subject, text=text)


def _send_chat(db, delivery: NotificationDelivery):
    from chalicelib.providers.chat import get_chat
    from chalicelib.providers.chat.base import escape

    chat = get_chat(db=db)
    channel = delivery.target
    email = None if channel else _recipient(db, delivery).email
    payload = delivery.payload or {}
    text = f"*{escape(payload.get('title') or '')}*"
    if payload.get("body"):
        text += f"\n{escape(payload['body'])}"
    url = _absolute_url(payload.get("action_url"))
    if url:
        text += f"\n<{url}|Open>"

    def call():
        target = channel or chat.lookup_user_by_email(email)
        if not target:
            raise Skip(f"no team chat member with the e-mail address {email}")
        return chat.post_message(channel=target, text=text).get("ts")
    return call


def _shorten(payload: dict, key: str, fits) -> None:
    """`payload[key]` cut to its longest beginning, ending with "\u2026", for which `fits(payload)` holds (the
    text itself when it fits; "\u2026" alone when nothing longer does)."""
    text = payload.get(key) or ""
    if not text or fits(payload):
        return
    low, high = 0, len(text) - 1  # characters kept before the ellipsis
    while low < high:
        middle = (low + high + 1) // 2
        payload[key] = text[:middle] + "\u2026"
        if fits(payload):
            low = middle
        else:
            high = middle - 1
    payload[key] = text[:low] + "\u2026"


def push_message(payload: dict) -> dict:
    """The push message of a delivery's payload (`url` and `tag` added), its text short enough for every push
    service: the title at most PUSH_TITLE_MAX characters and the body PUSH_BODY_MAX, then the body (and the title
    if need be) shortened further, ending with "\u2026", until the message is at most MAX_PAYLOAD_BYTES octets as
    sent (UTF-8 JSON; RFC 8291 section 4: 4096 octets encrypted, at most 3993 of plaintext). A message that does
    not fit with its text cut to "\u2026" (its other fields too large) is a Skip."""
    from chalicelib.providers.push.base import MAX_PAYLOAD_BYTES, encode_payload

    message = dict(payload)
    title, body = message.get("title") or "", message.get("body")
    message["title"] = clipped(title, PUSH_TITLE_MAX)
    if body:
        message["body"] = clipped(body, PUSH_BODY_MAX)
    message["url"] = message.get("action_url")
    message["tag"] = message.get("type")

    def fits(candidate: dict) -> bool:
        return len(encode_payload(candidate)) <= MAX_PAYLOAD_BYTES

    _shorten(message, "body", fits)
    _shorten(message, "title", fits)
    if not fits(message):
        raise Skip(f"the push message is larger than {MAX_PAYLOAD_BYTES} octets with its text shortened")
    return message


def _send_push(db, delivery: NotificationDelivery):
    from chalicelib.providers.push import MessageTooLarge, SubscriptionGone, get_push

    push = get_push(db=db)
    _recipient(db, delivery)
    subscriptions = [(s.id, {"endpoint": s.endpoint, "keys": {"p256dh": s.p256dh, "auth": s.auth}})
                     for s in db.scalars(select(PushSubscription).where(PushSubscription.user_id == delivery.user_id)
                                         .order_by(PushSubscription.id))]
    if not subscriptions:
        raise Skip("no push subscription")
    payload = push_message(delivery.payload or {})  # push services accept about 4 KB of encrypted payload

    def call() -> Outcome:
        from .timeutil import TimeBudget

        sent, gone, errors, too_large = [], [], [], []
        budget = TimeBudget(PUSH_SECONDS)
        for index, (subscription_id, info) in enumerate(subscriptions):
            if budget.spent():  # the rest are not tried: the delivery stays within its function's timeout
                errors.append(f"{len(subscriptions) - index} push subscriptions not tried in time")
                break
            try:
                push.send(subscription=info, payload=payload)
            except SubscriptionGone:
                gone.append(subscription_id)
            except MessageTooLarge as exc:  # a Skip for that subscription: sending it again would not help
                too_large.append(str(exc))
            except BadGateway as exc:
                errors.append(exc.message)
            else:
                sent.append(subscription_id)

        def keep(db) -> None:  # recorded with the outcome, whatever it is
            if gone:
                db.execute(delete(PushSubscription).where(PushSubscription.id.in_(gone)))
            if sent:
                db.execute(update(PushSubscription).where(PushSubscription.id.in_(sent)).values(last_used_at=utcnow()))
        if sent:  # the others' refusals are kept with it (session 32: a partial failure was recorded as a success
            # with nothing saying which devices missed the message, and why)
            missed = errors + too_large + ([f"{len(gone)} push subscriptions gone (removed)"] if gone else [])
            return Outcome("sent", f"{len(sent)} of {len(subscriptions)} subscriptions",
                           error="; ".join(missed) or None, record=keep)
        if errors:
            return Outcome("failed", error="; ".join(errors), record=keep)
        if too_large:
            return Outcome("skipped", error="; ".join(too_large + ([f"{len(gone)} push subscriptions gone (removed)"]
                                                                   if gone else [])), record=keep)
        return Outcome("skipped", error=f"every push subscription was gone ({len(gone)} removed)", record=keep)
    return call


SENDERS = {"email": _send_email, "chat": _send_chat, "push": _send_push}


def _outcome(exc: Exception, delivery_id: str) -> Outcome:
    if isinstance(exc, (Skip, ServiceUnavailable)):
        return Outcome("skipped", error=str(getattr(exc, "message", None) or exc))
    if isinstance(exc, BadGateway):
        return Outcome("failed", error=exc.message)
    log.error("notification delivery %s failed", delivery_id, exc_info=exc)  # a provider bug: keep the record
    return Outcome("failed", error=f"{type(exc).__name__}: {exc}")


def _locked(db, delivery_id: str) -> NotificationDelivery | None:
    """The row as it is now (not as this session last saw it), locked."""
    return db.scalar(select(NotificationDelivery).where(NotificationDelivery.id == delivery_id).with_for_update()
                     .execution_options(populate_existing=True))


def _claim(db, delivery_id: str) -> NotificationDelivery | str:
    """Lock the row; answer why there is nothing to do, or count the attempt and mark it `sending`."""
    delivery = _locked(db, delivery_id)
    if delivery is None:
        log.warning("notification delivery %s not found", delivery_id)
        return "missing"
    if delivery.status in DONE:
        return "duplicate"
    now = utcnow()
    if delivery.status == "sending" and delivery.last_attempt_at and delivery.last_attempt_at > now - SENDING_STALE:
        return "busy"
    if (delivery.attempts or 0) >= MAX_ATTEMPTS:
        # every attempt used, as the drain counts them: a queue redelivery (SQS receives a message up to five times,
        # interleaved with the drain's retries) is not another provider call; a stale claim of the last attempt is
        # failed, as the drain fails it
        if delivery.status == "sending":
            delivery.status, delivery.error = "failed", "the worker stopped during the last attempt"
        return "exhausted"
    delivery.status, delivery.attempts, delivery.last_attempt_at = "sending", (delivery.attempts or 0) + 1, now
    return delivery


EXTERNAL_ID_MAX = 200  # notification_deliveries.external_id


def _record(db, delivery: NotificationDelivery | None, result: Outcome) -> str:
    """Write the outcome on the locked row (None: deleted meanwhile)."""
    if result.record is not None:
        result.record(db)
    if delivery is None or delivery.status in DONE:  # deleted, or a worker that took a stale claim over finished
        return delivery.status if delivery is not None else "missing"
    # the provider's id of what it sent, when `external_id` keeps it (serialize.kept_id; session 30: a Slack `ts` of
    # 201 characters failed this write, the delivery left `sending` for the drain to send again)
    # a refusal's text as the column takes it (a NUL or a lone surrogate in an SES or push message failed this write,
    # and the delivery stayed `sending`; session 30)
    delivery.status, delivery.error = result.status, clean_text(result.error) if result.error else result.error
    delivery.external_id = kept_id(result.external_id, EXTERNAL_ID_MAX)
    if result.status == "sent":
        delivery.sent_at = utcnow()
    return delivery.status


def deliver(delivery_id: str) -> str:
    """Deliver one message. Answers its outcome: sent, skipped, failed, duplicate (already done), busy
    (another worker is sending it), exhausted (its MAX_ATTEMPTS attempts used: nothing is sent) or missing.

    Three steps: the claim (the row locked, the attempt counted, status `sending`) and the sender's reads,
    committed; the provider call with no transaction open; the outcome recorded in a short transaction.
    `sending` is the duplicate guard while the provider answers: a second worker (a repeated queue message)
    answers `busy`; a claim older than SENDING_STALE is a worker that stopped mid-call and is taken over."""
    with job_context() as ctx:
        db = ctx.db
        claimed = _claim(db, delivery_id)
        if isinstance(claimed, str):
            return claimed
        try:
            with db.begin_nested():
                sender = SENDERS.get(claimed.channel)
                if sender is None:
                    raise Skip(f"unknown channel {claimed.channel}")
                call = sender(db, claimed)
        except Exception as exc:  # noqa: BLE001 - nothing to call: the outcome is known now, the row still locked
            return _record(db, claimed, _outcome(exc, delivery_id))
        db.flush()
        ctx.release_connection()  # the claim is committed: no transaction nor row lock while the provider answers
        try:
            result = call()
        except Exception as exc:  # noqa: BLE001 - a provider bug must not lose the delivery record
            db.rollback()  # a sandbox provider's half-written record
            result = _outcome(exc, delivery_id)
        result = result if isinstance(result, Outcome) else Outcome("sent", result)
        return _record(db, _locked(db, delivery_id), result)


def deliver_message(message: dict) -> str:
    """The in-process queue handler (no queue URL): deliver at once; failures stay `failed` for
    `drain_pending` to retry."""
    return deliver(message["delivery_id"])


DRAIN_SECONDS = 20  # of the drain function's 90 s (infra/areas.json): it stops starting deliveries past them
# One delivery takes at most about DELIVERY_SECONDS: an e-mail's 3 s connect and 10 s read, a chat post's two 10 s
# attempts around a 5 s Retry-After wait, a push stops trying subscriptions after PUSH_SECONDS and the one in flight
# takes 10 s more. The notifications functions' 90 s timeout holds the drain's budget and one delivery, and the
# queue worker takes one message an invocation (infra tests check it; session 23's deployment audit).
PUSH_SECONDS = 30
DELIVERY_SECONDS = 45


def drain_pending(*, pending_older_than: timedelta = timedelta(minutes=2), limit: int = 500,
                  seconds: float = DRAIN_SECONDS) -> dict:
    """Retry deliveries left `pending` (a lost queue message) for longer than `pending_older_than`,
    and `failed` ones, or `sending` ones whose worker stopped mid-call (claimed over SENDING_STALE ago),
    with fewer than MAX_ATTEMPTS attempts; a `sending` one stopped on its last attempt is failed (`abandoned`).
    No delivery is started after `seconds` (core.timeutil.TimeBudget): 500 provider calls did not fit the
    function's 30 s (90 s since session 23), so a backlog made every run a killed one (an error alarm, Lambda's two
    retries, and the call in flight sent again 5 minutes later); what is left waits for the next run (`left`).
    Answers counts per outcome."""
    now = utcnow()
    cutoff = now - pending_older_than
    with job_context() as ctx:
        # a worker that stopped mid-call on the last attempt left its claim: no attempt is left to take it over, so
        # it is failed (one UPDATE), not `sending` for good
        abandoned = ctx.db.execute(
            update(NotificationDelivery).where(NotificationDelivery.status == "sending",
                                               NotificationDelivery.attempts >= MAX_ATTEMPTS,
                                               NotificationDelivery.last_attempt_at <= now - SENDING_STALE)
            .values(status="failed", error="the worker stopped during the last attempt")
            .execution_options(synchronize_session=False)).rowcount
        ids = list(ctx.db.scalars(
            select(NotificationDelivery.id).where(or_(
                (NotificationDelivery.status == "pending") & (NotificationDelivery.created_at <= cutoff),
                (NotificationDelivery.status == "failed") & (NotificationDelivery.attempts < MAX_ATTEMPTS),
                (NotificationDelivery.status == "sending") & (NotificationDelivery.attempts < MAX_ATTEMPTS)
                & (NotificationDelivery.last_attempt_at <= now - SENDING_STALE),
            )).order_by(NotificationDelivery.created_at, NotificationDelivery.id).limit(limit)
        ))
    counts: dict[str, int] = {"processed": 0, "sent": 0, "skipped": 0, "failed": 0, "duplicate": 0, "busy": 0,
                              "missing": 0, "abandoned": abandoned}
    budget = TimeBudget(seconds)
    for position, delivery_id in enumerate(ids):
        if budget.spent():
            counts["left"] = len(ids) - position
            break
        outcome = deliver(delivery_id)
        counts["processed"] += 1
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def purge(db, before, *, limit: int = PURGE_BATCH) -> int:
    """Delete at most `limit` deliveries in a final state -- sent, skipped, or failed with its MAX_ATTEMPTS attempts
    used (neither the drain nor a queue redelivery sends it again) -- created and last changed before `before`: one
    DELETE of the ids of one batch. Never a pending, sending or retriable failed one, nor a notification. Answers how
    many; fewer than `limit` means none is left."""
    final = or_(NotificationDelivery.status.in_(DONE),
                (NotificationDelivery.status == "failed") & (NotificationDelivery.attempts >= MAX_ATTEMPTS))
    batch = (select(NotificationDelivery.id)
             .where(final, NotificationDelivery.created_at < before, NotificationDelivery.updated_at < before)
             .limit(limit))
    return db.execute(delete(NotificationDelivery).where(NotificationDelivery.id.in_(batch))
                      .execution_options(synchronize_session=False)).rowcount
