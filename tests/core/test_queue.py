"""Queue adapter: SQS (moto) when a queue URL is configured, otherwise in-process delivery."""
import json

import pytest

from chalicelib.core import queue


def receive_all(aws):
    bodies = []
    while True:
        batch = aws["sqs"].receive_message(QueueUrl=aws["queue_url"], MaxNumberOfMessages=10, WaitTimeSeconds=0)
        messages = batch.get("Messages", [])
        if not messages:
            return bodies
        for message in messages:
            bodies.append(json.loads(message["Body"]))
            aws["sqs"].delete_message(QueueUrl=aws["queue_url"], ReceiptHandle=message["ReceiptHandle"])


def test_sqs_send(aws, monkeypatch):
    handled = []
    monkeypatch.setitem(queue._local_handlers, "notifications", handled.append)
    queue.send("notifications", {"delivery_id": "d-1", "channel": "email"})
    assert receive_all(aws) == [{"delivery_id": "d-1", "channel": "email"}]
    assert handled == []  # SQS configured: never delivered in-process


def test_sqs_send_batch_in_chunks_of_ten(aws):
    messages = [{"delivery_id": f"d-{n}"} for n in range(23)]
    queue.send_batch("notifications", messages)
    received = receive_all(aws)
    assert sorted(m["delivery_id"] for m in received) == sorted(m["delivery_id"] for m in messages)


def test_queue_url_follows_settings(aws, set_env):
    assert queue.queue_url("notifications") == aws["queue_url"]
    set_env(NOTIFICATIONS_QUEUE_URL=None)
    assert queue.queue_url("notifications") is None


def test_in_process_delivery(set_env, monkeypatch):
    set_env(NOTIFICATIONS_QUEUE_URL=None)
    handled = []
    monkeypatch.setitem(queue._local_handlers, "notifications", handled.append)
    queue.send("notifications", {"delivery_id": "d-1"})
    queue.send_batch("notifications", [{"delivery_id": "d-2"}, {"delivery_id": "d-3"}])
    assert handled == [{"delivery_id": "d-1"}, {"delivery_id": "d-2"}, {"delivery_id": "d-3"}]


def test_in_process_without_handler_raises(set_env, monkeypatch):
    set_env(NOTIFICATIONS_QUEUE_URL=None)
    monkeypatch.delitem(queue._local_handlers, "notifications", raising=False)
    with pytest.raises(RuntimeError):
        queue.send("notifications", {"delivery_id": "d-1"})


def test_register_local_handler(set_env, monkeypatch):
    set_env(NOTIFICATIONS_QUEUE_URL=None)
    monkeypatch.setattr(queue, "_local_handlers", {})
    handled = []
    queue.register_local_handler("notifications", handled.append)
    queue.send("notifications", {"x": 1})
    assert handled == [{"x": 1}]
