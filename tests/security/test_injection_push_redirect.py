"""A push endpoint is checked to be a public https host (core.netguard) at subscribe and before each send, but
the live adapter (pywebpush over requests) followed the push service's redirects: any signed-in user could
subscribe an endpoint on a host of their own that answers `307 Location: http://169.254.169.254/...` and have
the notification worker send its POST into the internal network (the cloud metadata service), with the
answer's body copied into the delivery's error. A push service never redirects: a redirect is not followed."""
from __future__ import annotations

import pytest
import responses
from sqlalchemy import select

from chalicelib.core.notify_models import NotificationDelivery
from tests.areas.notifications.factories import AUTH, P256DH, vapid_keys
from tests.factories import make_user

ENDPOINT = "https://push.attacker.test/wpush/v2/abc"
INTERNAL = "http://169.254.169.254/latest/meta-data/iam/security-credentials/role"


@pytest.fixture
def live_push(set_env):
    public, private = vapid_keys()
    set_env(PUSH_MODE="live", VAPID_PUBLIC_KEY=public, VAPID_PRIVATE_KEY=private,
            VAPID_SUBJECT="mailto:ops@agency.test", NOTIFICATIONS_QUEUE_URL=None)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def test_a_push_endpoint_redirecting_into_the_internal_network_is_not_followed(api, db, exec_user, live_push):
    attacker = make_user(db, access_level="employee")
    live_push.post(ENDPOINT, status=307, headers={"Location": INTERNAL})
    live_push.post(INTERNAL, status=500, body="AKIA-INTERNAL-SECRET")
    live_push.get(INTERNAL, status=500, body="AKIA-INTERNAL-SECRET")

    subscribed = api.post("/api/notifications/push/subscribe", as_=attacker,
                          json={"endpoint": ENDPOINT, "keys": {"p256dh": P256DH, "auth": AUTH}})
    assert subscribed.status == 200, subscribed
    # any notice to the attacker makes the worker push to the endpoint (a task assigned to them)
    made = api.post("/api/tasks", as_=exec_user, json={"title": "For you", "assignee_id": attacker.id})
    assert made.status == 201, made

    urls = [call.request.url for call in live_push.calls]
    assert ENDPOINT in urls  # the push was attempted
    assert not any(url.startswith("http://169.254.169.254") for url in urls), urls
    db.expire_all()
    rows = db.scalars(select(NotificationDelivery).where(NotificationDelivery.user_id == attacker.id,
                                                         NotificationDelivery.channel == "push")).all()
    assert rows and all(row.status != "sent" for row in rows)
    assert all("AKIA-INTERNAL-SECRET" not in (row.error or "") for row in rows)
