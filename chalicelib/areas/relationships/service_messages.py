"""Messages to a contact by SMS, MMS or the message app (WhatsApp), through the sms provider.

Rules (document 2): the contact needs a valid phone number (400 without one; the message app uses
msgapp_number, else phone_number), must have opted in (403), and the provider must be configured (500) and
enabled (503). The message is recorded `queued` in the request's transaction; the provider is called after
commit and the record updated with Twilio's sid and status, or `failed` with the error."""
from __future__ import annotations

import logging
import re

from sqlalchemy import select, update

from chalicelib.core.errors import BadRequest, DomainError, Forbidden
from chalicelib.core.query import LIST_LIMIT

from .models import RelationshipMessage, RelationshipProfile
from .queries import load_contact, message_record

E164 = re.compile(r"^\+[1-9]\d{6,14}$")
log = logging.getLogger("wms.relationships")


def normalise_phone(value: str | None) -> str | None:
    """A phone number without spaces, dots, dashes and brackets; None when empty."""
    if value is None:
        return None
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
    if action is not None:
        from chalicelib.areas.deals import service as deals_service
        from chalicelib.core.locks import lock_row

        # the contact's row first (FOR KEY SHARE, which the message's key takes anyway), then the action: a contact's
        # delete takes the contact and then its actions, and the action first met the delete's contact lock crosswise
        lock_row(ctx.db, deals_service.Contact, contact_id, key_share=True, missing="Contact")
        service_actions.mark_done(ctx, action)
    message = RelationshipMessage(contact_id=contact_id, channel=data.channel, body=data.body,
                                  media_url=data.media_url, to_number=phone, status="queued",
                                  auto_action_id=data.auto_action_id, sent_by=ctx.user_id)
    ctx.db.add(message)
    ctx.db.flush()
    record = message_record(message)
    ctx.after_commit(lambda: deliver(record["id"]))
    return record


def deliver(message_id: str) -> None:
    """After commit: hand the message to the provider and record its answer (sid and status, or the error).
    A failure is recorded on the message, never raised: the request that wrote it has succeeded."""
    from chalicelib.core.db import unit_of_work
    from chalicelib.providers.sms import get_sms

    with unit_of_work() as uow:
        message = uow.session.get(RelationshipMessage, message_id)
        if message is None or message.status != "queued":
            return
        channel, to, body, media = message.channel, message.to_number, message.body, message.media_url
    try:
        result = get_sms().send(channel=channel, to=to, body=body, media_url=media)
        values = {"status": result.get("status") or "queued", "provider_message_id": result.get("sid")}
    except DomainError as exc:
        log.warning("message %s not sent: %s", message_id, exc.message)
        values = {"status": "failed", "error": exc.message}
    with unit_of_work() as uow:
        uow.session.execute(update(RelationshipMessage).where(RelationshipMessage.id == message_id).values(**values))
