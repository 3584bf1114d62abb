"""Queue adapter: SQS when a queue URL is configured, otherwise in-process delivery.

`send(queue, message)` is called after commit (through `ctx.after_commit`). In-process mode hands
the message to the handler registered for that queue name, at once, as the worker would.
"""
from __future__ import annotations

import json
from typing import Callable

from .aws import client
from .settings import get_settings

_local_handlers: dict[str, Callable[[dict], None]] = {}
QUEUE_SETTINGS = {"notifications": "notifications_queue_url"}


def register_local_handler(queue: str, handler: Callable[[dict], None]) -> None:
    _local_handlers[queue] = handler


def queue_url(queue: str) -> str | None:
    return getattr(get_settings(), QUEUE_SETTINGS[queue])


def send(queue: str, message: dict) -> None:
    url = queue_url(queue)
    if url:
        client("sqs").send_message(QueueUrl=url, MessageBody=json.dumps(message, default=str))
        return
    handler = _local_handlers.get(queue)
    if handler is None:
        raise RuntimeError(f"no in-process handler registered for queue {queue!r}")
    handler(message)


def send_batch(queue: str, messages: list[dict]) -> list[dict]:
    """Send in batches of ten; answers the messages SQS reported as failed (a batch call succeeds
    even when some of its entries fail). A call that fails whole raises."""
    url = queue_url(queue)
    if not url:
        for message in messages:
            send(queue, message)
        return []
    failed: list[dict] = []
    for start in range(0, len(messages), 10):
        chunk = messages[start:start + 10]
        answer = client("sqs").send_message_batch(
            QueueUrl=url,
            Entries=[{"Id": str(index), "MessageBody": json.dumps(m, default=str)} for index, m in enumerate(chunk)],
        )
        failed.extend(chunk[int(entry["Id"])] for entry in answer.get("Failed", []) or [])
    return failed
