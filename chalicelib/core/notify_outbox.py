"""The sandbox providers' outbox: what sandbox mail, chat and push would have sent.

`record(db, ...)` writes in the caller's session (its transaction) when given one, else in its
own unit of work. `messages(db, provider=)` reads them back (tests, `make run`).
"""
from __future__ import annotations

from sqlalchemy import select

from .notify_models import SandboxOutboxMessage


def record(db, *, provider: str, target: str, subject: str | None, body: str | None, payload: dict | None,
           external_id: str) -> SandboxOutboxMessage:
    message = SandboxOutboxMessage(provider=provider, target=target, subject=subject, body=body,
                                   payload=payload, external_id=external_id)
    if db is not None:
        db.add(message)
        db.flush()
        return message
    from .db import unit_of_work

    with unit_of_work() as uow:
        uow.session.add(message)
    return message


def messages(db, *, provider: str | None = None) -> list[SandboxOutboxMessage]:
    query = select(SandboxOutboxMessage).order_by(SandboxOutboxMessage.created_at, SandboxOutboxMessage.id)
    if provider:
        query = query.where(SandboxOutboxMessage.provider == provider)
    return list(db.scalars(query))
