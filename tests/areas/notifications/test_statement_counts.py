"""Notifications: every list a route answers costs the same statements however many rows it holds
(docs/area-contract.md, "Reads"). The notification list and the usage reports are tested in
test_notifications_api.py and test_usage.py. The lists below are bounded (20 push subscriptions a user, one entry
per catalogue type), so they are measured at a few rows and at their bound."""
from chalicelib.areas.notifications.queries import MAX_PUSH_SUBSCRIPTIONS
from chalicelib.core.locks import insert_rows
from chalicelib.core.notify_catalogue import TYPES
from chalicelib.core.notify_models import NotificationPreference, SquadNotificationConfig
from tests.factories import assert_constant, make_squad, make_user

from .factories import make_subscription


def test_push_subscriptions(api, db, count_queries):
    user = make_user(db)
    made = []

    def grow(n):
        for _ in range(n):
            made.append(make_subscription(db, user, endpoint=f"https://push.example.test/send/{len(made)}"))

    assert_constant(api, count_queries, user, "/api/notifications/push/subscriptions", grow,
                    lambda b: len(b["subscriptions"]), (5, MAX_PUSH_SUBSCRIPTIONS))


def test_preferences(api, db, count_queries):
    user = make_user(db)
    done = []

    def grow(n):
        rows = [{"user_id": user.id, "notification_type": item.id, "channel_email": True}
                for item in TYPES[len(done):len(done) + n]]
        done.extend(rows)
        insert_rows(db, NotificationPreference, rows)

    assert_constant(api, count_queries, user, "/api/notifications/preferences", grow,
                    lambda b: sum(1 for p in b["preferences"] if p["is_customized"]), (1, len(TYPES)))


def test_squad_config(api, db, exec_user, count_queries):
    squad = make_squad(db)
    done = []

    def grow(n):
        rows = [{"squad_id": squad.id, "notification_type": item.id, "chat_channel_id": "C1", "enabled": False}
                for item in TYPES[len(done):len(done) + n]]
        done.extend(rows)
        insert_rows(db, SquadNotificationConfig, rows)

    assert_constant(api, count_queries, exec_user, f"/api/notifications/squads/{squad.id}/config", grow,
                    lambda b: sum(1 for c in b["config"] if c["chat_channel_id"]), (1, len(TYPES)))
