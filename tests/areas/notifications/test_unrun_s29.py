"""Code no test ran (session 29 coverage audit): a p256dh key that is base64url but not an uncompressed P-256 point,
the purge job stopped by its time budget."""
from __future__ import annotations

import base64

import pytest

from tests.factories import make_user

from .factories import AUTH

ENDPOINT = "https://fcm.googleapis.com/fcm/send/abc123"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize("raw", [b"\x04" + b"\x01" * 31, b"\x02" + b"\x01" * 64, b"\x04" + b"\x01" * 65])
def test_a_p256dh_key_that_is_no_uncompressed_point_is_a_400(api, db, raw):
    response = api.post("/api/notifications/push/subscribe", as_=make_user(db),
                        json={"endpoint": ENDPOINT, "keys": {"p256dh": _b64(raw), "auth": AUTH}})
    assert response.status == 400, response
    assert [d["field"] for d in response.json["details"]] == ["keys.p256dh"]
    assert "65 bytes" in response.json["details"][0]["message"]


def test_the_purge_stopped_by_its_budget_says_more_and_the_next_runs_go_on(db):
    from chalicelib.areas.notifications import jobs
    from tests.jobs_purge.test_purge_jobs import _assert_notifications_purged, _seed_notifications

    seeded = _seed_notifications(db)
    first = jobs.notifications_purge(batch=1, seconds=0)  # each table one batch, then the budget is spent
    assert first == {"deliveries": 1, "provider_uses": 1, "more": True}
    totals = dict(first)
    for _ in range(5):
        answer = jobs.notifications_purge(batch=1, seconds=0)
        totals["deliveries"] += answer["deliveries"]
        totals["provider_uses"] += answer["provider_uses"]
        if "more" not in answer:
            break
    assert (totals["deliveries"], totals["provider_uses"]) == (3, 2)
    _assert_notifications_purged(db, seeded)
