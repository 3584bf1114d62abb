"""core.notify: the in-app record in the request's transaction, de-duplication, one delivery per
enabled channel, sent after commit (in-process without a queue URL) and nothing on failure.

A small Chalice app with one route through the real endpoint decorator stands in for an area
that calls notify() (the notifications area has no endpoint that creates notifications)."""
from __future__ import annotations

import json

import pytest
from chalice import Chalice
from sqlalchemy import func, select

from chalicelib.core import http
from chalicelib.core.errors import Conflict
from chalicelib.core.notify import Notification, notify
from chalicelib.core.notify_models import NotificationDelivery, NotificationPreference
from tests.areas.notifications.factories import deliveries, make_notification, make_subscription, outbox
from tests.factories import make_user, served


@pytest.fixture
def notify_api(app):
    """`notify_api(payload, fail=False)`: POST a notify() call through a request transaction."""
    test_app = Chalice(app_name="notify-test")

    @test_app.route("/notify", methods=["POST"])
    @http.endpoint(auth="public")
    def create(ctx):
        payload = json.loads(ctx.request.raw_body)
        fail = payload.pop("fail", False)
        created = notify(ctx, **payload)
        if fail:
            raise Conflict("the request failed after notify()")
        return {"id": created.id if created else None}

    with served(test_app) as call:
        yield lambda **payload: call("POST", "/notify", payload)[:2]


@pytest.mark.smoke
def test_notify_writes_record_and_delivers_default_channels_in_process(db, notify_api):
    user = make_user(db, email="ann@agency.test")
    actor = make_user(db)
    make_subscription(db, user)
    status, body = notify_api(user_id=user.id, type="task_assigned", title="Task: write brief", body="Due Friday",
                              resource_type="task", resource_id="t-1", action_url="/tasks/t-1", actor_id=actor.id)
    assert status == 200
    stored = db.get(Notification, body["id"])
    assert (stored.user_id, stored.type, stored.actor_id, stored.in_app) == (user.id, "task_assigned", actor.id, True)
    rows = deliveries(db, notification_id=body["id"])
    # task_assigned defaults: chat and push (e-mail off)
    assert [(d.channel, d.status, d.attempts) for d in rows] == [("chat", "sent", 1), ("push", "sent", 1)]
    assert all(d.sent_at is not None and d.external_id for d in rows)
    chat = outbox(db, "chat")
    assert len(chat) == 1 and chat[0].target.startswith("U") and "Task: write brief" in chat[0].body
    assert "http://127.0.0.1:8000/tasks/t-1" in chat[0].body
    push = outbox(db, "push")
    assert len(push) == 1 and push[0].payload["url"] == "/tasks/t-1" and push[0].subject == "Task: write brief"
    assert outbox(db, "mail") == []


def test_notify_follows_the_users_preferences(db, notify_api):
    user = make_user(db)
    db.add(NotificationPreference(user_id=user.id, notification_type="mention", channel_in_app=True,
                                  channel_email=True, channel_chat=False, channel_push=False))
    db.flush()
    status, body = notify_api(user_id=user.id, type="mention", title="You were mentioned")
    assert status == 200
    rows = deliveries(db, notification_id=body["id"])
    assert [(d.channel, d.status) for d in rows] == [("email", "sent")]
    mail = outbox(db, "mail")
    assert [(m.target, m.subject) for m in mail] == [(user.email, "You were mentioned")]


def test_in_app_off_keeps_a_hidden_record(db, notify_api, api):
    user = make_user(db)
    db.add(NotificationPreference(user_id=user.id, notification_type="mention", channel_in_app=False,
                                  channel_email=False, channel_chat=False, channel_push=False))
    db.flush()
    status, body = notify_api(user_id=user.id, type="mention", title="Hidden")
    assert status == 200 and body["id"]
    assert db.get(Notification, body["id"]).in_app is False
    assert deliveries(db, notification_id=body["id"]) == []
    assert api.get("/api/notifications", as_=user).json["total"] == 0


def test_same_user_type_and_resource_within_five_minutes_is_deduplicated(db, notify_api):
    user = make_user(db)
    first = notify_api(user_id=user.id, type="todo_assigned", title="One", resource_type="todo", resource_id="r1")
    second = notify_api(user_id=user.id, type="todo_assigned", title="Two", resource_type="todo", resource_id="r1")
    other_resource = notify_api(user_id=user.id, type="todo_assigned", title="Three", resource_type="todo",
                                resource_id="r2")
    other_type = notify_api(user_id=user.id, type="task_assigned", title="Four", resource_type="todo", resource_id="r1")
    assert first[1]["id"] and second[1]["id"] is None
    assert other_resource[1]["id"] and other_type[1]["id"]
    count = db.scalar(select(func.count()).select_from(Notification).where(Notification.user_id == user.id))
    assert count == 3


def test_deduplication_window_is_five_minutes(db, notify_api):
    user = make_user(db)
    make_notification(db, user, type="todo_assigned", resource_type="todo", resource_id="r1", minutes_ago=6)
    make_notification(db, user, type="todo_assigned", resource_type="todo", resource_id="r2", minutes_ago=4)
    assert notify_api(user_id=user.id, type="todo_assigned", title="x", resource_type="todo", resource_id="r1")[1]["id"]
    assert notify_api(user_id=user.id, type="todo_assigned", title="x", resource_type="todo", resource_id="r2")[1]["id"] is None


def test_a_failed_request_stores_and_sends_nothing(db, notify_api):
    user = make_user(db)
    status, body = notify_api(user_id=user.id, type="task_assigned", title="Never", fail=True)
    assert status == 409
    assert db.scalar(select(func.count()).select_from(Notification).where(Notification.user_id == user.id)) == 0
    assert db.scalar(select(func.count()).select_from(NotificationDelivery).where(NotificationDelivery.user_id == user.id)) == 0
    assert outbox(db, "chat") == [] and outbox(db, "push") == []


def test_channel_mode_off_skips_the_delivery(db, notify_api, set_env):
    set_env(CHAT_MODE="off")
    user = make_user(db)
    make_subscription(db, user)
    status, body = notify_api(user_id=user.id, type="task_assigned", title="x")
    rows = {d.channel: d for d in deliveries(db, notification_id=body["id"])}
    assert rows["chat"].status == "skipped" and "not configured" in rows["chat"].error
    assert rows["push"].status == "sent"
    assert outbox(db, "chat") == []


def test_push_without_subscription_and_chat_without_member_are_skipped(db, notify_api):
    user = make_user(db, email="nobody@nochat.test")
    status, body = notify_api(user_id=user.id, type="task_assigned", title="x")
    rows = {d.channel: d for d in deliveries(db, notification_id=body["id"])}
    assert rows["push"].status == "skipped" and rows["push"].error == "no push subscription"
    assert rows["chat"].status == "skipped" and "nobody@nochat.test" in rows["chat"].error


def test_provider_refusal_marks_the_delivery_failed_and_drain_retries_it(db, notify_api):
    from chalicelib.areas.notifications.jobs import drain_pending

    user = make_user(db, email="ann@bounce.test")
    db.add(NotificationPreference(user_id=user.id, notification_type="mention", channel_in_app=True,
                                  channel_email=True, channel_chat=False, channel_push=False))
    db.flush()
    status, body = notify_api(user_id=user.id, type="mention", title="x")
    assert status == 200  # the data is committed; delivery failures are not the request's
    (row,) = deliveries(db, notification_id=body["id"])
    assert (row.status, row.attempts) == ("failed", 1) and "MessageRejected" in row.error

    result = drain_pending()
    assert result["failed"] >= 1
    (row,) = deliveries(db, notification_id=body["id"])
    assert (row.status, row.attempts) == ("failed", 2)

    user.email = "ann@agency.test"
    db.flush()
    result = drain_pending()
    (row,) = deliveries(db, notification_id=body["id"])
    assert (row.status, row.attempts) == ("sent", 3) and row.error is None
    assert result["sent"] >= 1
    assert [m.target for m in outbox(db, "mail")] == ["ann@agency.test"]


def test_drain_gives_up_after_five_attempts_and_picks_up_lost_pending(db):
    from datetime import timedelta

    from chalicelib.core.ids import utcnow
    from chalicelib.core.notify_delivery import drain_pending

    user = make_user(db)
    exhausted = NotificationDelivery(user_id=user.id, channel="email", type="task_due_soon", payload={"title": "x"},
                                     status="failed", attempts=5)
    lost = NotificationDelivery(user_id=user.id, channel="email", type="task_due_soon", payload={"title": "Lost"},
                                status="pending", attempts=0, created_at=utcnow() - timedelta(minutes=10))
    fresh = NotificationDelivery(user_id=user.id, channel="email", type="task_due_soon", payload={"title": "Fresh"},
                                 status="pending", attempts=0)
    db.add_all([exhausted, lost, fresh])
    db.flush()
    result = drain_pending()
    db.expire_all()
    assert result["sent"] == 1
    assert db.get(NotificationDelivery, lost.id).status == "sent"
    assert db.get(NotificationDelivery, fresh.id).status == "pending"
    assert db.get(NotificationDelivery, exhausted.id).attempts == 5


def test_a_delivery_stopped_on_its_last_attempt_is_failed_not_sending_for_good(db):
    """A worker stopped mid-call on the fifth attempt left the delivery `sending`: no attempt was left for the drain
    to take it over, so it stayed `sending` for good (jobs audit). The drain fails it; one still within its claim,
    or with attempts left, is not touched by that."""
    from datetime import timedelta

    from chalicelib.core.ids import utcnow
    from chalicelib.core.notify_delivery import drain_pending

    user = make_user(db)
    long_ago, just_now = utcnow() - timedelta(minutes=10), utcnow()
    stopped = NotificationDelivery(user_id=user.id, channel="email", type="mention", payload={"title": "x"},
                                   status="sending", attempts=5, last_attempt_at=long_ago)
    running = NotificationDelivery(user_id=user.id, channel="email", type="mention", payload={"title": "y"},
                                   status="sending", attempts=5, last_attempt_at=just_now)
    db.add_all([stopped, running])
    db.flush()
    result = drain_pending()
    db.expire_all()
    assert result["abandoned"] == 1
    assert (db.get(NotificationDelivery, stopped.id).status, db.get(NotificationDelivery, stopped.id).attempts) == (
        "failed", 5)
    assert db.get(NotificationDelivery, running.id).status == "sending"
    assert drain_pending()["abandoned"] == 0  # run again: one effect


def test_drain_job_runs_from_the_cli(db, capsys):
    from chalicelib import cli

    code = cli.main(["job", "notifications-drain"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["processed"] == 0


def test_notify_works_inside_a_job_context(db):
    from chalicelib.core.context import job_context

    user = make_user(db)
    make_subscription(db, user)
    with job_context() as ctx:
        assert ctx.principal is None and ctx.user_id is None
        created = notify(ctx, user_id=user.id, type="task_assigned", title="From a job")
        assert created is not None
    rows = deliveries(db, notification_id=created.id)
    assert {(d.channel, d.status) for d in rows} == {("chat", "sent"), ("push", "sent")}


def test_push_text_is_shortened_to_fit_a_push_message(db, notify_api):
    user = make_user(db)
    make_subscription(db, user)
    notify_api(user_id=user.id, type="task_assigned", title="T" * 300, body="b" * 5000)
    (message,) = outbox(db, "push")
    assert len(message.payload["title"]) == 200
    assert len(message.payload["body"]) == 1000 and message.payload["body"].endswith("\u2026")


def test_a_type_missing_from_the_catalogue_is_in_app_only(db, notify_api, api):
    user = make_user(db)
    status, body = notify_api(user_id=user.id, type="brand_new_thing", title="New")
    assert status == 200 and body["id"]
    assert deliveries(db, notification_id=body["id"]) == []
    listed = api.get("/api/notifications", as_=user).json["notifications"]
    assert [n["type"] for n in listed] == ["brand_new_thing"]


def test_notify_is_one_read_and_one_write(db, notify_api, count_queries, monkeypatch):
    """notify(): the claim of its de-duplication key, then the recent notifications, the preference overrides and
    whether the user is active in one read, the notification and its deliveries in one write, on Postgres (no
    claim, three reads and two writes elsewhere); a repeat within the window claims and reads only. (The in-process delivery after commit is left out: it is the worker's work,
    counted in its own tests.)"""
    from chalicelib.core import notify as notify_module

    monkeypatch.setattr(notify_module, "send_after_commit", lambda ctx, deliveries: None)
    user = make_user(db)
    db.add(NotificationPreference(user_id=user.id, notification_type="mention", channel_in_app=True,
                                  channel_email=True, channel_chat=False, channel_push=True))
    db.commit()
    user_id = user.id
    postgres = db.get_bind().dialect.name == "postgresql"
    reads, writes = (2, 1) if postgres else (3, 2)
    with count_queries() as counter:
        status, body = notify_api(user_id=user_id, type="mention", title="Hi", resource_type="page", resource_id="p-1")
    assert status == 200 and body["id"]
    assert counter.count == reads + writes, counter.statements
    channels = sorted(d.channel for d in deliveries(db, notification_id=body["id"]))
    assert channels == ["email", "push"]  # the override, not the type's defaults
    with count_queries() as counter:
        status, body = notify_api(user_id=user_id, type="mention", title="Hi", resource_type="page", resource_id="p-1")
    assert status == 200 and body["id"] is None
    assert counter.count == reads, counter.statements


def _email_delivery(db, user, **values):
    # a type whose e-mail is on by default: the sender checks the user still wants it (session 22)
    row = NotificationDelivery(user_id=user.id, channel="email", type="task_due_soon", payload={"title": "Claimed"},
                               **{"status": "pending", "attempts": 0, **values})
    db.add(row)
    db.flush()
    return row


def test_the_provider_answers_with_no_transaction_open_and_the_claim_committed(db, monkeypatch):
    """The delivery row is claimed (`sending`) and committed before the provider call; no row lock nor
    transaction is held while the provider answers (a slow SES or Slack would hold a connection)."""
    import chalicelib.providers.mail as mail_module
    from chalicelib.core.notify_delivery import deliver

    seen = {}

    class Mail:
        def __init__(self, db):
            self.db = db

        def send(self, *, to, subject, text):
            seen["in_transaction"] = self.db.in_transaction()
            seen["status"] = self.db.scalar(select(NotificationDelivery.status)
                                            .where(NotificationDelivery.id == row.id))
            return "message-1"

    monkeypatch.setattr(mail_module, "get_mail", lambda db=None: Mail(db))
    user = make_user(db, email="ann@agency.test")
    row = _email_delivery(db, user)
    assert deliver(row.id) == "sent"
    assert seen == {"in_transaction": False, "status": "sending"}
    (after,) = deliveries(db, id=row.id)
    assert (after.status, after.attempts, after.external_id) == ("sent", 1, "message-1")


def test_a_delivery_another_worker_is_sending_is_left_to_it_until_its_claim_is_stale(db):
    from datetime import timedelta

    from chalicelib.core.ids import utcnow
    from chalicelib.core.notify_delivery import deliver, drain_pending

    user = make_user(db, email="ann@agency.test")
    busy = _email_delivery(db, user, status="sending", attempts=1, last_attempt_at=utcnow() - timedelta(seconds=20))
    stale = _email_delivery(db, user, status="sending", attempts=1, last_attempt_at=utcnow() - timedelta(minutes=6))
    assert deliver(busy.id) == "busy"
    assert outbox(db, "mail") == []
    (row,) = deliveries(db, id=busy.id)
    assert (row.status, row.attempts) == ("sending", 1)

    result = drain_pending()  # the stale claim is a worker that stopped mid-call: taken over
    assert result["sent"] == 1 and result["busy"] == 0
    (row,) = deliveries(db, id=stale.id)
    assert (row.status, row.attempts) == ("sent", 2)
    (row,) = deliveries(db, id=busy.id)
    assert row.status == "sending"
    assert len(outbox(db, "mail")) == 1


def test_a_provider_that_fails_after_writing_keeps_nothing_but_the_failure(db, monkeypatch):
    import chalicelib.providers.mail as mail_module
    from chalicelib.core.notify_delivery import deliver
    from chalicelib.providers.mail.sandbox import SandboxMail

    class Broken(SandboxMail):
        def send(self, *, to, subject, text):
            super().send(to=to, subject=subject, text=text)
            raise RuntimeError("the provider broke after writing")

    monkeypatch.setattr(mail_module, "get_mail", lambda db=None: Broken(db=db, from_address="n@agency.test"))
    user = make_user(db, email="ann@agency.test")
    row = _email_delivery(db, user)
    assert deliver(row.id) == "failed"
    (after,) = deliveries(db, id=row.id)
    assert after.attempts == 1 and "the provider broke" in after.error
    assert outbox(db, "mail") == []


def test_the_drain_stops_starting_deliveries_past_its_time_budget_and_leaves_the_rest(db, monkeypatch):
    """Up to 500 provider calls went out one after another in a 30 s function: with a backlog every run was killed
    (an error alarm, two Lambda retries, the call in flight sent again later). Session 22's retries audit: no
    delivery is started after DRAIN_SECONDS; the rest is left for the next run, which sends it."""
    from datetime import timedelta

    from chalicelib.core import timeutil
    from chalicelib.core.ids import utcnow
    from chalicelib.core.notify_delivery import DRAIN_SECONDS, drain_pending
    from chalicelib.providers.mail.sandbox import SandboxMail

    user = make_user(db)
    db.add_all([NotificationDelivery(user_id=user.id, channel="email", type="task_due_soon",
                                     payload={"title": f"n{i}"}, status="pending", attempts=0,
                                     created_at=utcnow() - timedelta(minutes=10))
                for i in range(30)])
    db.flush()
    now = {"t": 1000.0}
    monkeypatch.setattr(timeutil, "clock", lambda: now["t"])
    send = SandboxMail.send

    def slow(self, *args, **kwargs):  # each provider call takes a second
        now["t"] += 1
        return send(self, *args, **kwargs)

    monkeypatch.setattr(SandboxMail, "send", slow)
    first = drain_pending()
    assert first["sent"] == DRAIN_SECONDS and first["left"] == 30 - DRAIN_SECONDS
    second = drain_pending()
    assert second["sent"] == 30 - DRAIN_SECONDS and "left" not in second
