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


def poll(queue: str, handler: Callable[[dict], dict], *, once: bool = False, wait_seconds: int = 10,
         stop: Callable[[], bool] = lambda: False) -> dict:
    """The local worker (`cli worker`): long-poll the queue's SQS URL (moto server or AWS), hand each batch
    to `handler` as Lambda would (an SQS event), delete the messages it did not name in
    `batchItemFailures`; the failed ones stay and come back after the visibility timeout (and reach the
    dead-letter queue after its receive count), exactly as with the Lambda event source mapping.
    `once`: stop at the first empty (one-second long-poll) receive. Answers counts."""
    url = queue_url(queue)
    if not url:
        raise RuntimeError(f"no queue URL for {queue!r}: set {QUEUE_SETTINGS[queue].upper()} (in-process delivery "
                           "needs no worker)")
    sqs = client("sqs")
    counts = {"batches": 0, "received": 0, "deleted": 0, "failed": 0}
    while not stop():
        # `once` long-polls too (one second): a short poll samples only some SQS servers and can answer
        # empty while messages wait, which would end the drain early
        answer = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10,
                                     WaitTimeSeconds=min(wait_seconds, 1) if once else wait_seconds,
                                     AttributeNames=["All"])
        messages = answer.get("Messages", []) or []
        if not messages:
            if once:
                break
            continue
        event = {"Records": [{"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
                              "attributes": m.get("Attributes", {}), "messageAttributes": {},
                              "eventSource": "aws:sqs", "eventSourceARN": url} for m in messages]}
        result = handler(event) or {}
        failed = {item["itemIdentifier"] for item in result.get("batchItemFailures", [])}
        done = [m for m in messages if m["MessageId"] not in failed]
        if done:
            sqs.delete_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                                                            for i, m in enumerate(done)])
        counts["batches"] += 1
        counts["received"] += len(messages)
        counts["deleted"] += len(done)
        counts["failed"] += len(failed)
    return counts
