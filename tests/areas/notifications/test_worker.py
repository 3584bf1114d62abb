"""The SQS worker: messages sent after commit to the queue, delivered by the Lambda handler
(idempotent per delivery id), partial batch failures reported."""
from __future__ import annotations

import json

import pytest

from chalicelib.core.notify import notify
from chalicelib.core.notify_models import NotificationDelivery, NotificationPreference
from tests.factories import make_user

from .factories import FakeContext, deliveries, make_subscription, outbox

WORKER = "notifications_worker"


def _email_only(db, user, type_="mention"):
    db.add(NotificationPreference(user_id=user.id, notification_type=type_, channel_in_app=True,
                                  channel_email=True, channel_chat=False, channel_push=False))
    db.flush()


def _receive(sqs, queue_url):
    messages = []
    while True:
        batch = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10).get("Messages", [])
        if not batch:
            return messages
        messages.extend(batch)


def _event(client, messages):
    """An SQS event for the handler, from messages received from (moto) SQS, ids preserved."""
    event = client.events.generate_sqs_event(message_bodies=[m["Body"] for m in messages],
                                             queue_name="wms-notifications")
    for record, message in zip(event["Records"], messages):
        record["messageId"] = message["MessageId"]
        record["receiptHandle"] = message["ReceiptHandle"]
    return event


def test_after_commit_messages_go_to_the_queue_and_the_worker_delivers(db, aws, client):
    user = make_user(db)
    make_subscription(db, user)
    ctx = FakeContext(db)
    notification = notify(ctx, user_id=user.id, type="task_assigned", title="Queued task")
    assert [d.status for d in deliveries(db, notification_id=notification.id)] == ["pending", "pending"]
    assert _receive(aws["sqs"], aws["queue_url"]) == []  # nothing before commit
    ctx.commit()

    messages = _receive(aws["sqs"], aws["queue_url"])
    bodies = sorted((json.loads(m["Body"]) for m in messages), key=lambda b: b["channel"])
    rows = deliveries(db, notification_id=notification.id)
    assert [b["delivery_id"] for b in bodies] == [d.id for d in rows]
    assert [d.status for d in rows] == ["pending", "pending"]  # the queue delivers, not the request

    response = client.lambda_.invoke(WORKER, _event(client, messages))
    assert response.payload == {"batchItemFailures": []}
    rows = deliveries(db, notification_id=notification.id)
    assert [(d.channel, d.status, d.attempts) for d in rows] == [("chat", "sent", 1), ("push", "sent", 1)]


def test_duplicate_messages_deliver_once(db, aws, client):
    user = make_user(db)
    _email_only(db, user)
    ctx = FakeContext(db)
    notification = notify(ctx, user_id=user.id, type="mention", title="Once")
    ctx.commit()
    (message,) = _receive(aws["sqs"], aws["queue_url"])

    first = client.lambda_.invoke(WORKER, _event(client, [message, message]))
    second = client.lambda_.invoke(WORKER, _event(client, [message]))

    assert first.payload == {"batchItemFailures": []} and second.payload == {"batchItemFailures": []}
    (row,) = deliveries(db, notification_id=notification.id)
    assert (row.status, row.attempts) == ("sent", 1)
    assert len(outbox(db, "mail")) == 1


def test_a_failing_message_is_reported_alone(db, aws, client):
    good, bounced = make_user(db), make_user(db, email="bounced@bounce.test")
    _email_only(db, good)
    _email_only(db, bounced)
    ctx = FakeContext(db)
    notify(ctx, user_id=good.id, type="mention", title="Good")
    notify(ctx, user_id=bounced.id, type="mention", title="Bad")
    ctx.commit()
    messages = _receive(aws["sqs"], aws["queue_url"])
    assert len(messages) == 2
    bad_delivery = deliveries(db, user_id=bounced.id)[0]
    bad_message = next(m for m in messages if json.loads(m["Body"])["delivery_id"] == bad_delivery.id)
    garbage = {"Body": "not json", "MessageId": "garbage-1", "ReceiptHandle": "r"}

    response = client.lambda_.invoke(WORKER, _event(client, messages + [garbage]))

    failures = {item["itemIdentifier"] for item in response.payload["batchItemFailures"]}
    assert failures == {bad_message["MessageId"], "garbage-1"}
    assert deliveries(db, user_id=good.id)[0].status == "sent"
    failed = deliveries(db, user_id=bounced.id)[0]
    assert (failed.status, failed.attempts) == ("failed", 1) and "MessageRejected" in failed.error

    # SQS redelivers the failed message: it is tried again (attempts count), still failing
    retry = client.lambda_.invoke(WORKER, _event(client, [bad_message]))
    assert retry.payload == {"batchItemFailures": [{"itemIdentifier": bad_message["MessageId"]}]}
    assert deliveries(db, user_id=bounced.id)[0].attempts == 2


def test_a_queue_redelivery_never_passes_the_attempt_cap(db, aws, client):
    """A delivery is tried at most MAX_ATTEMPTS (5) times: the drain retries only below it, and the queue worker now
    counts them too. SQS receives a message up to five times, interleaved with the drain's retries, and each receive
    was another provider call (7 in the invariant audit's run). A message past the cap is done (deleted, not failed
    again); a stale claim of the last attempt the worker meets is failed, as the drain fails it."""
    from datetime import timedelta

    from chalicelib.core import notify_delivery
    from chalicelib.core.ids import utcnow

    user = make_user(db, email="gone@bounce.test")  # the sandbox mail provider refuses it
    _email_only(db, user)
    ctx = FakeContext(db)
    notification = notify(ctx, user_id=user.id, type="mention", title="Cap me")
    ctx.commit()
    (message,) = _receive(aws["sqs"], aws["queue_url"])
    client.lambda_.invoke(WORKER, _event(client, [message]))  # attempt 1, failed
    for _ in range(6):  # the scheduled drain retries while attempts < 5
        notify_delivery.drain_pending(pending_older_than=timedelta(0))
    (row,) = deliveries(db, notification_id=notification.id)
    assert (row.status, row.attempts) == ("failed", 5)
    for _ in range(2):  # SQS redelivers the original message
        answer = client.lambda_.invoke(WORKER, _event(client, [message]))
        assert answer.payload == {"batchItemFailures": []}  # done with: not left on the queue
    db.expire_all()
    (row,) = deliveries(db, notification_id=notification.id)
    assert (row.status, row.attempts) == ("failed", 5)  # an attempt is counted before each provider call
    row.status, row.last_attempt_at = "sending", utcnow() - timedelta(minutes=10)  # a worker stopped on the last
    db.commit()
    assert notify_delivery.deliver(row.id) == "exhausted"
    db.expire_all()
    assert (row.status, row.attempts, row.error) == ("failed", 5, "the worker stopped during the last attempt")


def test_a_provider_that_raises_fails_only_its_message(db, aws, client, monkeypatch):
    from chalicelib.providers.chat import sandbox

    def explode(self, **kwargs):
        raise RuntimeError("chat adapter bug")

    monkeypatch.setattr(sandbox.SandboxChat, "post_message", explode)
    user = make_user(db)
    make_subscription(db, user)
    ctx = FakeContext(db)
    notification = notify(ctx, user_id=user.id, type="task_assigned", title="x")
    ctx.commit()
    messages = _receive(aws["sqs"], aws["queue_url"])
    chat = next(d for d in deliveries(db, notification_id=notification.id) if d.channel == "chat")
    chat_message = next(m for m in messages if json.loads(m["Body"])["delivery_id"] == chat.id)

    response = client.lambda_.invoke(WORKER, _event(client, messages))

    assert response.payload == {"batchItemFailures": [{"itemIdentifier": chat_message["MessageId"]}]}
    rows = {d.channel: d for d in deliveries(db, notification_id=notification.id)}
    assert rows["chat"].status == "failed" and "RuntimeError: chat adapter bug" in rows["chat"].error
    assert rows["push"].status == "sent"


def test_a_message_for_an_unknown_delivery_is_dropped(db, client):
    event = client.events.generate_sqs_event(message_bodies=[json.dumps({"delivery_id": "missing"})])
    response = client.lambda_.invoke(WORKER, event)
    assert response.payload == {"batchItemFailures": []}


def test_squad_deliveries_are_queued_too(db, aws, client):
    from chalicelib.core.notify import notify_squad
    from tests.factories import make_squad

    squad = make_squad(db, chat_channel_id="C_TEAM")
    ctx = FakeContext(db)
    result = notify_squad(ctx, squad_id=squad.id, audience="squad", type="squad_broadcast", title="Hello squad")
    ctx.commit()
    messages = _receive(aws["sqs"], aws["queue_url"])
    assert [json.loads(m["Body"])["delivery_id"] for m in messages] == result["deliveries"]
    assert client.lambda_.invoke(WORKER, _event(client, messages)).payload == {"batchItemFailures": []}
    assert db.get(NotificationDelivery, result["deliveries"][0]).status == "sent"
    assert [m.target for m in outbox(db, "chat")] == ["C_TEAM"]


def test_scheduled_drain_retries_failed_deliveries(db, client):
    user = make_user(db, email="later@bounce.test")  # the sandbox refuses it
    _email_only(db, user)
    ctx = FakeContext(db)
    notification = notify(ctx, user_id=user.id, type="mention", title="Retry me")
    ctx.commit()
    (row,) = deliveries(db, notification_id=notification.id)
    assert row.status == "failed"

    user.email = "later@agency.test"
    db.flush()
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    response = client.lambda_.invoke("notifications_drain", event)
    assert response.payload["sent"] == 1
    (row,) = deliveries(db, notification_id=notification.id)
    assert (row.status, row.attempts) == ("sent", 2)


@pytest.mark.parametrize("role,channel", [("MAIL_MODE", "email"), ("PUSH_MODE", "push")])
def test_mode_off_skips_mail_and_push(db, set_env, role, channel):
    set_env(**{role: "off"})
    user = make_user(db)
    make_subscription(db, user)
    db.add(NotificationPreference(user_id=user.id, notification_type="mention", channel_in_app=True,
                                  channel_email=channel == "email", channel_chat=False,
                                  channel_push=channel == "push"))
    db.flush()
    ctx = FakeContext(db)
    notification = notify(ctx, user_id=user.id, type="mention", title="x")
    ctx.commit()
    (row,) = deliveries(db, notification_id=notification.id)
    assert (row.channel, row.status) == (channel, "skipped") and "not configured" in row.error
