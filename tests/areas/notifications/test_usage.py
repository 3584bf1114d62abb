"""Notification usage analytics (insights:view)."""
from datetime import timedelta

import pytest

from chalicelib.core.ids import utcnow
from chalicelib.core.notify_models import NotificationDelivery
from chalicelib.core.timeutil import org_today
from tests.factories import grant, make_user

from .factories import make_notification

PATHS = ["summary", "by-type", "daily-trend", "channel-distribution", "read-rates"]


def _seed(db):
    ann, bob = make_user(db), make_user(db)
    made = [
        make_notification(db, ann, type="task_assigned", is_read=True),
        make_notification(db, ann, type="task_assigned", minutes_ago=60 * 24 * 2),
        make_notification(db, bob, type="task_assigned", is_read=True),
        make_notification(db, bob, type="mention", minutes_ago=60 * 24 * 3),
        make_notification(db, bob, type="mention", minutes_ago=60 * 24 * 10, is_read=True),  # outside 7 days
    ]
    for channel, status, days_ago in [("email", "sent", 0), ("email", "failed", 1), ("chat", "sent", 0),
                                      ("push", "skipped", 2), ("push", "sent", 9),
                                      ("email", "sending", 0)]:
        db.add(NotificationDelivery(user_id=ann.id, channel=channel, status=status, type="task_assigned",
                                    payload={}, attempts=1, created_at=utcnow() - timedelta(days=days_ago)))
    db.flush()
    return made


@pytest.fixture
def analyst(db):
    return make_user(db, access_level="manager")  # manager: insights view by default


def test_summary(api, db, analyst):
    _seed(db)
    response = api.get("/api/usage/notifications/summary", as_=analyst)
    assert response.status == 200
    assert response.json == {"days": 7, "total_sent": 4, "total_read": 2, "unique_recipients": 2,
                             "total_deliveries": 2, "read_rate": 50.0}
    wide = api.get("/api/usage/notifications/summary?days=30", as_=analyst).json
    assert (wide["total_sent"], wide["total_read"], wide["total_deliveries"]) == (5, 3, 3)


def test_by_type(api, db, analyst):
    _seed(db)
    response = api.get("/api/usage/notifications/by-type", as_=analyst)
    assert response.status == 200
    assert response.json == {"days": 7, "types": [
        {"type": "task_assigned", "label": "Task assigned", "category": "tasks", "count": 3, "read_count": 2},
        {"type": "mention", "label": "Mention", "category": "collaboration", "count": 1, "read_count": 0},
    ]}


def test_daily_trend_has_one_entry_per_day(api, db, analyst, org_clock):
    org_clock("2026-11-25T12:00")  # "2 days ago" (48 hours) is the day before yesterday: not so just after a DST change
    _seed(db)
    response = api.get("/api/usage/notifications/daily-trend?days=5", as_=analyst)
    assert response.status == 200
    trend = response.json["trend"]
    assert len(trend) == 5
    today = org_today()  # the organisation's days (ORG_TIMEZONE), no longer UTC's
    assert trend[-1]["date"] == today.isoformat() and trend[0]["date"] == (today - timedelta(days=4)).isoformat()
    by_date = {entry["date"]: entry for entry in trend}
    assert by_date[today.isoformat()] == {"date": today.isoformat(), "sent": 2, "read": 2}
    assert by_date[(today - timedelta(days=2)).isoformat()]["sent"] == 1
    assert sum(entry["sent"] for entry in trend) == 4


def test_channel_distribution(api, db, analyst):
    _seed(db)
    response = api.get("/api/usage/notifications/channel-distribution", as_=analyst)
    assert response.status == 200
    channels = {entry["channel"]: entry for entry in response.json["channels"]}
    # a delivery being sent (`sending`) is not delivered yet: counted with pending
    assert channels["email"] == {"channel": "email", "total": 3, "pending": 1, "sent": 1, "failed": 1, "skipped": 0}
    assert channels["chat"]["sent"] == 1 and channels["chat"]["total"] == 1
    assert channels["push"] == {"channel": "push", "total": 1, "pending": 0, "sent": 0, "failed": 0, "skipped": 1}


def test_read_rates(api, db, analyst):
    _seed(db)
    response = api.get("/api/usage/notifications/read-rates", as_=analyst)
    assert response.status == 200
    assert response.json["read_rates"] == [
        {"type": "task_assigned", "label": "Task assigned", "sent": 3, "read": 2, "read_rate": 66.7},
        {"type": "mention", "label": "Mention", "sent": 1, "read": 0, "read_rate": 0.0},
    ]


def test_empty_window_answers_zeros(api, db, analyst):
    """Notifications and deliveries older than the window are not counted: a window holding none answers zeros."""
    ann = make_user(db)
    make_notification(db, ann, minutes_ago=60 * 24 * 2, is_read=True)
    make_notification(db, ann, type="mention", minutes_ago=60 * 24 * 3)
    db.add(NotificationDelivery(user_id=ann.id, channel="email", status="sent", type="task_assigned", payload={},
                                attempts=1, created_at=utcnow() - timedelta(days=2)))
    db.flush()
    response = api.get("/api/usage/notifications/summary?days=1", as_=analyst)
    assert response.status == 200, response
    assert response.json == {"days": 1, "total_sent": 0, "total_read": 0, "unique_recipients": 0,
                             "total_deliveries": 0, "read_rate": 0.0}
    # the same rows are counted once the window reaches them
    wide = api.get("/api/usage/notifications/summary?days=7", as_=analyst).json
    assert (wide["total_sent"], wide["total_read"], wide["total_deliveries"]) == (2, 1, 1)


@pytest.mark.parametrize("path", PATHS)
def test_requires_insights_view(api, db, path):
    employee = make_user(db)
    assert api.get(f"/api/usage/notifications/{path}", as_=employee).status == 403
    assert api.get(f"/api/usage/notifications/{path}").status == 401
    grant(db, employee, "insights", "view")
    assert api.get(f"/api/usage/notifications/{path}", as_=employee).status == 200


@pytest.mark.parametrize("days", ["0", "366", "week"])
def test_days_is_bounded(api, db, analyst, days):
    response = api.get(f"/api/usage/notifications/by-type?days={days}", as_=analyst)
    assert response.status == 400


@pytest.mark.parametrize("path", PATHS)
def test_constant_queries(api, db, analyst, count_queries, path):
    _seed(db)
    with count_queries() as few:
        api.get(f"/api/usage/notifications/{path}", as_=analyst)
    for _ in range(3):
        _seed(db)
    with count_queries() as many:
        api.get(f"/api/usage/notifications/{path}", as_=analyst)
    assert few.count == many.count


def test_the_daily_trend_counts_the_organisations_days(api, db, set_env, monkeypatch):
    """decisions.md section 1: ORG_TIMEZONE is the organisation's time zone for "today". The trend counted UTC days:
    from midnight to 11:00 in Sydney (summer) its last day was the organisation's yesterday, and a notice sent at
    08:30 there counted on the day before (conformance audit)."""
    from datetime import date, datetime, timezone

    from chalicelib.areas.notifications import service_usage

    set_env(ORG_TIMEZONE="Australia/Sydney")
    now = datetime(2026, 3, 1, 21, 45, tzinfo=timezone.utc)  # 08:45 on 2 March in Sydney
    monkeypatch.setattr(service_usage, "utcnow", lambda: now)
    monkeypatch.setattr(service_usage, "org_today", lambda: date(2026, 3, 2), raising=False)
    analyst = make_user(db, access_level="manager")
    for minutes_ago in (15, 60 * 12):  # 08:30 on 2 March, 20:45 on 1 March (Sydney)
        made = make_notification(db, analyst, type="task_assigned")
        made.created_at = now - timedelta(minutes=minutes_ago)
    db.flush()
    trend = api.get("/api/usage/notifications/daily-trend?days=3", as_=analyst).json["trend"]
    assert [(d["date"], d["sent"]) for d in trend] == [("2026-02-28", 0), ("2026-03-01", 1), ("2026-03-02", 1)]


def test_read_rate_rounds_half_up(api, db, analyst):
    """One decimal, half up, as the service rounds: 1 read of 16 is 6.25%, answered 6.3 (binary round() gave 6.2)."""
    ann = make_user(db)
    for index in range(16):
        make_notification(db, ann, type="mention", minutes_ago=10, is_read=index == 0)
    db.flush()
    rates = api.get("/api/usage/notifications/read-rates", as_=analyst).json["read_rates"]
    assert [(r["type"], r["sent"], r["read"], r["read_rate"]) for r in rates] == [("mention", 16, 1, 6.3)]
    assert api.get("/api/usage/notifications/summary?days=1", as_=analyst).json["read_rate"] == 6.3
