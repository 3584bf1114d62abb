"""Live channel adapters, checked by the requests they send and how they read the answers:
SES v2 through moto, Slack through `responses`, web push (pywebpush) through `responses`."""
from __future__ import annotations

import base64
import json

import pytest
import responses
from sqlalchemy import select

from chalicelib.core.errors import BadGateway, ServiceUnavailable
from chalicelib.core.notify import notify
from chalicelib.core.notify_models import NotificationPreference, PushSubscription
from tests.factories import make_user

from .factories import FakeContext, deliveries, make_subscription, outbox, vapid_keys

SENDER = "notifications@agency.test"


def _only(db, user, channel, type_="mention"):
    values = {"channel_in_app": True, "channel_email": False, "channel_chat": False, "channel_push": False}
    values[f"channel_{channel}"] = True
    db.add(NotificationPreference(user_id=user.id, notification_type=type_, **values))
    db.flush()


def _notify_and_deliver(db, user, **kw):
    ctx = FakeContext(db)
    notification = notify(ctx, user_id=user.id, type=kw.pop("type", "mention"), title=kw.pop("title", "Hello"), **kw)
    ctx.commit()
    return deliveries(db, notification_id=notification.id)


# --- e-mail: Amazon SES v2 --------------------------------------------------------------------

@pytest.fixture
def ses(aws, set_env):
    import boto3
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.ses.models import ses_backends

    set_env(MAIL_MODE="live", MAIL_FROM=SENDER, NOTIFICATIONS_QUEUE_URL=None)
    return {"client": boto3.client("sesv2", region_name="ap-southeast-2"),
            "backend": ses_backends[DEFAULT_ACCOUNT_ID]["ap-southeast-2"]}


def test_ses_sends_the_notification_by_email(db, ses):
    ses["client"].create_email_identity(EmailIdentity=SENDER)
    user = make_user(db, email="ann@agency.test")
    _only(db, user, "email")
    (row,) = _notify_and_deliver(db, user, title="Budget approved", body="Go ahead", action_url="/budgets/b1")
    assert row.status == "sent" and row.external_id
    (message,) = ses["backend"].sent_messages
    assert message.source == SENDER
    assert message.destinations["ToAddresses"] == ["ann@agency.test"]
    assert message.subject == "Budget approved"
    assert "Go ahead" in message.body and "/budgets/b1" in message.body
    assert outbox(db, "mail") == []  # live mode keeps nothing in the sandbox outbox


def test_ses_refusal_is_a_failed_delivery(db, ses):
    # the sender identity is not verified: SES answers MessageRejected
    user = make_user(db)
    _only(db, user, "email")
    (row,) = _notify_and_deliver(db, user)
    assert row.status == "failed" and "MessageRejected" in row.error
    assert ses["backend"].sent_messages == []


def test_mail_getter_modes(set_env):
    from chalicelib.providers.mail import get_mail
    from chalicelib.providers.mail.live import SESMail
    from chalicelib.providers.mail.sandbox import SandboxMail

    assert isinstance(get_mail(), SandboxMail)
    set_env(MAIL_MODE="live")
    assert isinstance(get_mail(), SESMail)
    set_env(MAIL_MODE="off")
    with pytest.raises(ServiceUnavailable):
        get_mail()


# --- team chat: Slack Web API -----------------------------------------------------------------

@pytest.fixture
def slack(set_env):
    set_env(CHAT_MODE="live", CHAT_BOT_TOKEN="xoxb-test-token")
    with responses.RequestsMock() as mock:
        yield mock


def test_slack_direct_message_looks_up_the_user_and_posts(db, slack):
    slack.get("https://slack.com/api/users.lookupByEmail", json={"ok": True, "user": {"id": "U123"}})
    slack.post("https://slack.com/api/chat.postMessage", json={"ok": True, "channel": "D999", "ts": "1700000000.000100"})
    user = make_user(db, email="ann@agency.test")
    _only(db, user, "chat")
    (row,) = _notify_and_deliver(db, user, title="Mentioned", body="in Brief", action_url="/pages/p1")
    assert (row.status, row.external_id) == ("sent", "1700000000.000100")
    lookup, post = slack.calls
    assert lookup.request.headers["Authorization"] == "Bearer xoxb-test-token"
    assert "email=ann%40agency.test" in lookup.request.url
    assert post.request.headers["Authorization"] == "Bearer xoxb-test-token"
    body = json.loads(post.request.body)
    assert body["channel"] == "U123"
    assert "*Mentioned*" in body["text"] and "in Brief" in body["text"] and "/pages/p1" in body["text"]


def test_slack_ok_false_is_a_failed_delivery(db, slack):
    slack.get("https://slack.com/api/users.lookupByEmail", json={"ok": True, "user": {"id": "U123"}})
    slack.post("https://slack.com/api/chat.postMessage", json={"ok": False, "error": "not_in_channel"})
    user = make_user(db)
    _only(db, user, "chat")
    (row,) = _notify_and_deliver(db, user)
    assert row.status == "failed" and "not_in_channel" in row.error


def test_slack_unknown_member_is_skipped(db, slack):
    slack.get("https://slack.com/api/users.lookupByEmail", json={"ok": False, "error": "users_not_found"})
    user = make_user(db)
    _only(db, user, "chat")
    (row,) = _notify_and_deliver(db, user)
    assert row.status == "skipped" and user.email in row.error
    assert len(slack.calls) == 1


def test_slack_http_errors_and_rate_limits_are_failures(set_env):
    from chalicelib.providers.chat import get_chat

    set_env(CHAT_MODE="live", CHAT_BOT_TOKEN="xoxb-test-token")
    chat = get_chat()
    with responses.RequestsMock() as mock:
        mock.post("https://slack.com/api/chat.postMessage", status=429, headers={"Retry-After": "30"})
        mock.post("https://slack.com/api/chat.postMessage", status=500)
        mock.post("https://slack.com/api/chat.postMessage", body="<html>")
        with pytest.raises(BadGateway, match="rate limited"):
            chat.post_message(channel="C1", text="x")
        with pytest.raises(BadGateway, match="HTTP 500"):
            chat.post_message(channel="C1", text="x")
        with pytest.raises(BadGateway, match="not JSON"):
            chat.post_message(channel="C1", text="x")


def test_chat_live_without_token_is_not_configured(set_env):
    from chalicelib.providers.chat import get_chat

    set_env(CHAT_MODE="live", CHAT_BOT_TOKEN=None)
    with pytest.raises(ServiceUnavailable):
        get_chat()


# --- web push: RFC 8291/8292 through pywebpush -------------------------------------------------

@pytest.fixture
def vapid(set_env):
    public, private = vapid_keys()
    set_env(PUSH_MODE="live", VAPID_PUBLIC_KEY=public, VAPID_PRIVATE_KEY=private, VAPID_SUBJECT="mailto:ops@agency.test")
    with responses.RequestsMock() as mock:
        yield {"public": public, "mock": mock}


def test_web_push_sends_an_encrypted_vapid_signed_message(db, vapid):
    endpoint = "https://push.example.test/send/sub-1"
    vapid["mock"].post(endpoint, status=201)
    user = make_user(db)
    make_subscription(db, user, endpoint=endpoint)
    _only(db, user, "push")
    (row,) = _notify_and_deliver(db, user, title="Pushed")
    assert row.status == "sent"
    (call,) = vapid["mock"].calls
    headers = call.request.headers
    assert headers["Content-Encoding"] == "aes128gcm"
    assert headers["Authorization"].startswith("vapid t=") and f"k={vapid['public']}" in headers["Authorization"]
    assert int(headers["TTL"]) > 0
    assert b"Pushed" not in call.request.body  # encrypted
    token = headers["Authorization"].split("t=")[1].split(",")[0]
    claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    assert claims["aud"] == "https://push.example.test" and claims["sub"] == "mailto:ops@agency.test"
    db.expire_all()
    assert db.scalar(select(PushSubscription).where(PushSubscription.endpoint == endpoint)).last_used_at is not None


@pytest.mark.parametrize("status", [404, 410])
def test_web_push_gone_subscription_is_removed(db, vapid, status):
    gone, alive = "https://push.example.test/send/gone", "https://push.example.test/send/alive"
    vapid["mock"].post(gone, status=status)
    vapid["mock"].post(alive, status=201)
    user = make_user(db)
    make_subscription(db, user, endpoint=gone)
    make_subscription(db, user, endpoint=alive)
    _only(db, user, "push")
    (row,) = _notify_and_deliver(db, user)
    assert row.status == "sent"
    db.expire_all()
    endpoints = set(db.scalars(select(PushSubscription.endpoint).where(PushSubscription.user_id == user.id)))
    assert endpoints == {alive}


def test_web_push_all_gone_is_skipped_and_server_error_is_failed(db, vapid):
    vapid["mock"].post("https://push.example.test/send/gone", status=410)
    vapid["mock"].post("https://push.example.test/send/broken", status=500)
    first, second = make_user(db), make_user(db)
    make_subscription(db, first, endpoint="https://push.example.test/send/gone")
    make_subscription(db, second, endpoint="https://push.example.test/send/broken")
    _only(db, first, "push")
    _only(db, second, "push")
    (skipped,) = _notify_and_deliver(db, first)
    (failed,) = _notify_and_deliver(db, second)
    assert skipped.status == "skipped" and "gone" in skipped.error
    assert failed.status == "failed" and "HTTP 500" in failed.error
    db.expire_all()
    assert db.scalar(select(PushSubscription).where(PushSubscription.user_id == first.id)) is None
    assert db.scalar(select(PushSubscription).where(PushSubscription.user_id == second.id)) is not None


def test_sandbox_push_gone_endpoint_is_removed(db):
    user = make_user(db)
    make_subscription(db, user, endpoint="https://push.example.test/gone/1")
    _only(db, user, "push")
    (row,) = _notify_and_deliver(db, user)
    assert row.status == "skipped"
    assert db.scalar(select(PushSubscription).where(PushSubscription.user_id == user.id)) is None


def test_web_push_endpoint_resolving_inside_at_delivery_is_not_contacted(db, vapid, _no_dns):
    """Subscribed while public, the host later resolves to the metadata address: no request leaves,
    the subscription is dropped."""
    endpoint = "https://push.rebind.test/send/1"
    user = make_user(db)
    make_subscription(db, user, endpoint=endpoint)
    _only(db, user, "push")
    _no_dns["push.rebind.test"] = ["169.254.169.254"]
    (row,) = _notify_and_deliver(db, user)
    assert row.status == "skipped"
    assert len(vapid["mock"].calls) == 0
    db.expire_all()
    assert db.scalar(select(PushSubscription).where(PushSubscription.user_id == user.id)) is None


def test_slack_text_of_ours_is_escaped_so_it_pings_nobody_and_links_nothing(db, slack):
    """Slack reads `<!channel>`, `<@U1>` and `<url|label>` in message text as a channel ping, a mention and a link,
    and requires `&`, `<` and `>` escaped (docs.slack.dev, formatting message text): a title or body someone typed
    is shown as typed; the link the service adds stays a link."""
    slack.get("https://slack.com/api/users.lookupByEmail", json={"ok": True, "user": {"id": "U123"}})
    slack.post("https://slack.com/api/chat.postMessage", json={"ok": True, "channel": "D999", "ts": "1700000000.000200"})
    user = make_user(db, email="ann@agency.test")
    _only(db, user, "chat")
    _notify_and_deliver(db, user, title="<!channel> Fix & ship", body="see <https://evil.example|the docs>",
                        action_url="/tasks/t1")
    text = json.loads(slack.calls[1].request.body)["text"]
    assert text.startswith("*&lt;!channel&gt; Fix &amp; ship*\nsee &lt;https://evil.example|the docs&gt;\n<")
    assert text.endswith("/tasks/t1|Open>")


def test_notification_email_subject_carries_no_line_break(db):
    """A notice's e-mail subject is its title, which quotes user text (a task or proposal title with CR/LF): one line."""
    user = make_user(db, email="ann@agency.test")
    db.add(NotificationPreference(user_id=user.id, notification_type="mention", channel_in_app=True,
                                  channel_email=True, channel_chat=False, channel_push=False))
    db.flush()
    ctx = FakeContext(db)
    made = notify(ctx, user_id=user.id, type="mention", title="You were assigned a task: Fix\r\nBcc: x@evil.test")
    ctx.commit()
    (row,) = deliveries(db, notification_id=made.id)
    assert row.status == "sent"
    subject = outbox(db, "mail")[-1].subject
    assert "\r" not in subject and "\n" not in subject, repr(subject)
