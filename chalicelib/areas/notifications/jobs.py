"""Background work of the notifications area: the delivery queue worker and the drain job.

Lambda may import this module without app.py; it sets itself up through core (settings and the
database engine are created lazily by `core.db.unit_of_work()`, used by every delivery).
"""
from __future__ import annotations

from typing import Any

from chalicelib.core import notify_delivery


def handle_queue_event(event: Any) -> dict:
    """SQS batch: deliver each message (idempotent per delivery id); answer the partial batch
    response `{"batchItemFailures": [{"itemIdentifier": messageId}, ...]}` for the failed ones."""
    return notify_delivery.process_sqs_event(event)


def drain_pending() -> dict:
    """Retry lost (pending for over 2 minutes) and failed (fewer than 5 attempts) deliveries.
    Scheduled every 15 minutes; by hand: `python -m chalicelib.cli job notifications-drain`."""
    return notify_delivery.drain_pending()
