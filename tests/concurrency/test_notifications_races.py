"""Notifications races against a real HTTP server on Postgres (the server and helpers of test_concurrency.py):
concurrent preference updates of one user, squad configuration saves of one squad and push registrations all
answer 200 and leave what serial requests would (every channel change kept, one row per key, at most
MAX_PUSH_SUBSCRIPTIONS subscriptions a user)."""
from __future__ import annotations

import secrets

from sqlalchemy import func, select

from tests.concurrency.test_concurrency import THREADS, _all_at_once, _call, _token
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there

KEYS = {"p256dh": "BEJk8wJApJtCCGWomYctKUulvEHGH1ZmSSjYurRsYRad-R6BRad5Pk1l3j1y37Q9OHCEM9Ra8x5lPSrAIF3vNho",
        "auth": "c2VjcmV0LWF1dGgtMTIzNA"}
PUSH_HOST = "https://93.184.215.14"  # a public address written as such: the endpoint check resolves no name


def _user(sessions, **values):
    from tests.factories import make_user

    with sessions() as db:
        user = make_user(db, email=f"user-{secrets.token_hex(4)}@agency.test", **values)
        db.commit()
    return user


def test_concurrent_preference_updates_keep_every_change(live):
    from chalicelib.core.notify_models import NotificationPreference

    base, sessions = live
    for kind in ("task_status_changed", "page_comment"):  # two rounds, a type each: a race one round may miss
        user = _user(sessions)
        token = _token(user)
        channels = [{"notification_type": kind, "channel_email" if i % 2 else "channel_chat": True}
                    for i in range(THREADS)]  # every other request turns on e-mail, the others chat
        results = _all_at_once([(lambda entry=entry, token=token: _call(
            base, "PUT", "/api/notifications/preferences", token, {"preferences": [entry]})) for entry in channels])
        assert [status for status, _ in results] == [200] * THREADS, results
        with sessions() as db:
            rows = db.scalars(select(NotificationPreference).where(NotificationPreference.user_id == user.id)).all()
        assert [(row.notification_type, bool(row.channel_email), bool(row.channel_chat)) for row in rows] == [
            (kind, True, True)]


def test_concurrent_squad_configuration_saves_all_succeed(live):
    from chalicelib.core.notify_models import SquadNotificationConfig
    from tests.factories import make_squad

    base, sessions = live
    token = _token(_user(sessions, access_level="executive"))
    with sessions() as db:
        squad = make_squad(db)
        db.commit()
    results = _all_at_once([(lambda i=i: _call(base, "PUT", f"/api/notifications/squads/{squad.id}/config", token, {
        "config": [{"notification_type": "task_assigned", "chat_channel_id": f"C{i}"}]})) for i in range(THREADS)])
    assert [status for status, _ in results] == [200] * THREADS, results
    with sessions() as db:
        assert db.scalar(select(func.count()).select_from(SquadNotificationConfig)
                         .where(SquadNotificationConfig.squad_id == squad.id)) == 1


def test_concurrent_registrations_of_one_endpoint_all_succeed(live):
    from chalicelib.core.notify_models import PushSubscription

    base, sessions = live
    token = _token(_user(sessions))
    endpoint = f"{PUSH_HOST}/send/{secrets.token_hex(8)}"
    results = _all_at_once([(lambda: _call(base, "POST", "/api/notifications/push/subscribe", token,
                                           {"endpoint": endpoint, "keys": KEYS})) for _ in range(THREADS)])
    assert [status for status, _ in results] == [200] * THREADS, results
    with sessions() as db:
        assert db.scalar(select(func.count()).select_from(PushSubscription)
                         .where(PushSubscription.endpoint == endpoint)) == 1


def test_concurrent_registrations_keep_the_cap(live):
    from chalicelib.areas.notifications.queries import MAX_PUSH_SUBSCRIPTIONS
    from chalicelib.core.notify_models import PushSubscription
    from tests.areas.notifications.factories import make_subscription

    base, sessions = live
    for _ in range(4):  # four rounds, a user each: a race that one round may miss
        user = _user(sessions)
        with sessions() as db:
            for _ in range(MAX_PUSH_SUBSCRIPTIONS - THREADS // 2):
                make_subscription(db, user, endpoint=f"{PUSH_HOST}/send/{secrets.token_hex(8)}")
            db.commit()
        token = _token(user)
        results = _all_at_once([(lambda token=token: _call(base, "POST", "/api/notifications/push/subscribe", token, {
            "endpoint": f"{PUSH_HOST}/send/{secrets.token_hex(8)}", "keys": KEYS})) for _ in range(THREADS)])
        assert {status for status, _ in results} == {200}, results
        with sessions() as db:
            assert db.scalar(select(func.count()).select_from(PushSubscription)
                             .where(PushSubscription.user_id == user.id)) == MAX_PUSH_SUBSCRIPTIONS
