"""Background work of the notifications area: the delivery queue worker, the drain job and the daily purge.

Lambda may import this module without app.py; it sets itself up through core (settings and the
database engine are created lazily by `core.db.unit_of_work()`, used by every delivery).
"""
from __future__ import annotations

import json
import logging
from typing import Any

from chalicelib.core import notify_delivery

log = logging.getLogger("wms.notify")


class DeliveryFailed(Exception):
    """A queued delivery that failed: its message stays on the queue for SQS to redeliver."""


def _deliver_record(record) -> str:
    try:
        outcome = notify_delivery.deliver(json.loads(record.body)["delivery_id"])
    except Exception:  # one bad record fails only itself (Powertools reports it)
        log.exception("notification queue record %s could not be processed", record.message_id)
        raise
    if outcome == "failed":
        raise DeliveryFailed(record.message_id)
    return outcome


def handle_queue_event(event: Any) -> dict:
    """SQS batch (the Lambda event source, and `cli worker`): deliver each message (idempotent per
    delivery id) through AWS Lambda Powertools' batch processor, which answers the partial batch
    response `{"batchItemFailures": [{"itemIdentifier": messageId}, ...]}` naming the failed ones.
    A batch that fails entirely is answered the same way (every record named), not raised."""
    from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response

    if hasattr(event, "to_dict"):  # Chalice's SQSEvent
        event = event.to_dict()
    processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    return dict(process_partial_response(event=event, record_handler=_deliver_record, processor=processor))


def drain_pending() -> dict:
    """Retry lost (pending for over 2 minutes) and failed (fewer than 5 attempts) deliveries.
    Scheduled every 15 minutes; by hand: `python -m chalicelib.cli job notifications-drain`."""
    return notify_delivery.drain_pending()


PURGE_BATCH = 10_000  # rows a DELETE removes at most (one statement, one short transaction each)
PURGE_SECONDS = 20  # of the notifications jobs' 90 s (infra/areas.json): no batch is started past them


def notifications_purge(*, batch: int = PURGE_BATCH, seconds: float = PURGE_SECONDS) -> dict:
    """Delete final notification deliveries (sent, skipped, failed with every attempt used) older than
    notify_delivery.DELIVERY_RETENTION and provider uses older than a day (the allowances read the last hour);
    never a pending, sending or retriable delivery, nor a notification. Batches of at most `batch` rows, one DELETE
    and one transaction each, until a batch deletes fewer; none started after `seconds` (`more`: the next run goes
    on). Run again: nothing. By hand: `python -m chalicelib.cli job notifications-purge`."""
    from chalicelib.core import allowance
    from chalicelib.core.context import job_context
    from chalicelib.core.ids import utcnow
    from chalicelib.core.timeutil import TimeBudget, in_batches

    now = utcnow()
    budget = TimeBudget(seconds)
    answer: dict = {}
    for name, purge, before in (("deliveries", notify_delivery.purge, now - notify_delivery.DELIVERY_RETENTION),
                                ("provider_uses", allowance.purge, now - allowance.KEEP)):
        def step(purge=purge, before=before) -> int:
            with job_context() as ctx:
                return purge(ctx.db, before, limit=batch)

        answer[name], more = in_batches(step, size=batch, budget=budget)  # each table one batch at least
        if more:
            answer["more"] = True
    return answer
