"""Messages to a contact by SMS, MMS or the message app (WhatsApp), through the sms provider.

Rules (document 2): the contact needs a valid phone number (400 without one; the message app uses
msgapp_number, else phone_number), must have opted in (403), and the provider must be configured (500) and
enabled (503). The message is recorded `queued` in the request's transaction; the provider is called after
commit and the record updated with Twilio's sid and status, or `failed` with the error. An `auto_action_id`
action is marked done when the provider accepts the message, not before (session 24)."""
from __future__ import annotations

import logging
import re

from sqlalchemy import select, update

from chalicelib.core.errors import BadRequest, DomainError, Forbidden
from chalicelib.core.query import LIST_LIMIT

from .models import RelationshipMessage, RelationshipProfile
from .queries import load_contact, message_record

E164 = re.compile(r"^\+[1-9]\d{6,14}$")
TRUNK_ZERO = re.compile(r"\(\s*0\s*\)")  # "+61 (0)412 ...": the 0 dialled at home only, never after the country code
log = logging.getLogger("wms.relationships")


def normalise_phone(value: str | None) -> str | None:
    """A phone number without spaces, dots, dashes and brackets; None when empty. An international number's "(0)"
    (the national trunk prefix, "+44 (0)7700 900123") is dropped, not kept as a digit: "+4407700900123" passed the
    E.164 check and was another number (session 32). A national number keeps it (and is refused as not E.164)."""
    if value is None:
        return None
    if value.strip().startswith("+"):
        value = TRUNK_ZERO.sub("", value)
    cleaned = re.sub(r"[\s().-]", "", value)
    return cleaned or None


def list_messages(ctx, *, contact_id: str) -> list[dict]:
    load_contact(ctx, contact_id)
    messages = ctx.db.scalars(select(RelationshipMessage).where(RelationshipMessage.contact_id == contact_id)
                              .order_by(RelationshipMessage.created_at.desc(), RelationshipMessage.id.desc())
                              .limit(LIST_LIMIT))
    return [message_record(m) for m in messages]


def send_message(ctx, *, contact_id: str, data) -> dict:
    from chalicelib.providers.sms import check_sms

    from . import service_actions

    contact = load_contact(ctx, contact_id)
    action = (service_actions.contact_action(ctx, action_id=data.auto_action_id, contact_id=contact_id)
              if data.auto_action_id else None)
    profile = ctx.db.scalar(select(RelationshipProfile).where(RelationshipProfile.contact_id == contact_id))
    if data.channel == "msgapp":
        raw = (profile.msgapp_number or profile.phone_number) if profile else contact.phone
    else:
        raw = profile.phone_number if profile else contact.phone
    phone = normalise_phone(raw)
    if not phone:
        raise BadRequest("The contact has no phone number")
    if not E164.fullmatch(phone):
        raise BadRequest(f"The contact's phone number {phone[:30]!r} is not a valid E.164 number (e.g. +61412345678)")
    if profile is None or not profile.sms_opt_in:
        raise Forbidden("The contact has not opted in to messages")
    check_sms()  # 500 not configured, 503 disabled: before anything is written
    from chalicelib.core.allowance import allow

    allow(ctx, "message")  # each message is billed: 429 past the sender's hourly allowance
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.core.locks import lock_row

    # the contact's row (FOR KEY SHARE, which the message's key takes anyway) before the INSERT: a delete of the
    # contact meanwhile waits for this request, or has removed it and this answers 404 rather than failing on the key.
    # `auto_action_id` is only checked here: its action is marked done once the provider accepts the message
    # (deliver), not now; a message the provider refuses leaves it pending (session 24)
    lock_row(ctx.db, deals_service.Contact, contact_id, key_share=True, missing="Contact")
    message = RelationshipMessage(contact_id=contact_id, channel=data.channel, body=data.body,
                                  media_url=data.media_url, to_number=phone, status="queued",
                                  auto_action_id=action.id if action is not None else None, sent_by=ctx.user_id)
    ctx.db.add(message)
    ctx.db.flush()
    record = message_record(message)
    ctx.after_commit(lambda: deliver(record["id"]))
    return record


def deliver(message_id: str) -> None:
    """After commit: hand the message to the provider and record its answer (sid and status, or the error).
    A failure is recorded on the message, never raised: the request that wrote it has succeeded. A message sent
    with `auto_action_id` marks that action done (and completes its action-centre item) once the provider accepted
    it, and only then: a refused or failed message leaves the action pending (service_actions.message_accepted: the
    contact, the action, then its item, as every path takes them). The provider's answer is written first, in a
    transaction of its own, so that a failure of the action's write (a lock, a deadlock) never loses the sid and
    leaves the message `queued` (review of session 24's diff); such a failure leaves the action pending, logged."""
    from chalicelib.core.context import job_context
    from chalicelib.core.db import unit_of_work
    from chalicelib.providers.sms import get_sms

    from . import service_actions

    with unit_of_work() as uow:
        message = uow.session.get(RelationshipMessage, message_id)
        if message is None or message.status != "queued":
            return
        channel, to, body, media = message.channel, message.to_number, message.body, message.media_url
        contact_id, action_id = message.contact_id, message.auto_action_id
    try:
        result = get_sms().send(channel=channel, to=to, body=body, media_url=media)
        values = {"status": result.get("status") or "queued", "provider_message_id": result.get("sid")}
        accepted = True
    except DomainError as exc:
        log.warning("message %s not sent: %s", message_id, exc.message)
        values = {"status": "failed", "error": exc.message}
        accepted = False
    with job_context() as ctx:  # the provider's answer first, in a transaction of its own: never lost
        ctx.db.execute(update(RelationshipMessage).where(RelationshipMessage.id == message_id).values(**values))
    if accepted and action_id:
        try:
            with job_context() as ctx:  # the contact, the action, then its item: the order of a contact's delete
                service_actions.message_accepted(ctx, contact_id=contact_id, action_id=action_id)
        except Exception:  # noqa: BLE001 - the message was sent and is recorded; the action stays pending
            log.exception("message %s sent, its auto-action %s not marked done", message_id, action_id)
