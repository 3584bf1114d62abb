"""Session 23: the daily purge jobs of the tables that only grew (proposal_password_attempts, place_search_cache,
notification_deliveries and provider_uses), through the Lambda handler and the CLI: what the readers still need
(inside the retention, reserved rows, deliveries not final, notifications) survives, what is older goes, and a second
run deletes nothing. Deletes are one statement per batch of at most `batch` rows."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from chalicelib.core.ids import utcnow
from tests.areas.proposals.factories import create
from tests.factories import make_user

JOBS = {"proposal-attempts-purge": "proposal_attempts_purge", "place-cache-purge": "place_cache_purge",
        "notifications-purge": "notifications_purge"}


def _event(client):
    return client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                           resources=[])


def _keys(db, model, column="id"):
    db.expire_all()
    return set(db.scalars(select(getattr(model, column))))


# ---------------------------------------------------------------- seeds: (ids that must go, ids that must stay)

def _seed_attempts(api, db, user):
    from chalicelib.areas.proposals.models import ProposalPasswordAttempt

    pid = create(api, user)
    now = utcnow()
    old = [ProposalPasswordAttempt(proposal_id=pid, created_at=now - timedelta(days=days)) for days in (2, 40)]
    # inside the 15-minute counting window, and older than it but inside the day's margin
    kept = [ProposalPasswordAttempt(proposal_id=pid, created_at=now - delta)
            for delta in (timedelta(minutes=1), timedelta(hours=20))]
    db.add_all(old + kept)
    db.flush()
    return {a.id for a in old}, {a.id for a in kept}


def _seed_places(db):
    from chalicelib.areas.calendar.jobs import CURSOR_KEY
    from chalicelib.areas.calendar.models import PlaceSearchCache
    from chalicelib.providers.places.live import TURN_KEY

    now = utcnow()
    rows = {"gb|old street": 45, "|no country": 400, "au|fresh": 1, "au|nearly stale": 29,
            TURN_KEY: 400, CURSOR_KEY: 400}  # the reserved rows, older than any search's
    db.add_all([PlaceSearchCache(key=key, results=[key], cached_at=now - timedelta(days=days))
                for key, days in rows.items()])
    db.flush()
    return {"gb|old street", "|no country"}, {"au|fresh", "au|nearly stale", TURN_KEY, CURSOR_KEY}


def _seed_notifications(db):
    from chalicelib.core.models import ProviderUse
    from chalicelib.core.notify import Notification
    from chalicelib.core.notify_models import NotificationDelivery

    user = make_user(db)
    now = utcnow()

    def delivery(status, days, attempts=1):
        at = now - timedelta(days=days)
        return NotificationDelivery(user_id=user.id, channel="email", type="mention", payload={}, status=status,
                                    attempts=attempts, created_at=at, updated_at=at, last_attempt_at=at)

    old = 400  # past the retention (notify_delivery.DELIVERY_RETENTION)
    gone = [delivery("sent", old), delivery("skipped", old), delivery("failed", old, attempts=5)]
    kept = [delivery("pending", old, attempts=0), delivery("sending", old), delivery("failed", old, attempts=4),
            delivery("sent", 2), delivery("failed", 2, attempts=5), delivery("skipped", 0),
            delivery("sent", 300)]  # inside the usage analytics' longest window (365 days)
    notice = Notification(user_id=user.id, type="mention", title="Kept", created_at=now - timedelta(days=old))
    uses_gone = [ProviderUse(kind="ai_command", key=user.id, created_at=now - timedelta(days=d)) for d in (2, 90)]
    uses_kept = [ProviderUse(kind="ai_command", key=user.id, created_at=now - delta)
                 for delta in (timedelta(minutes=5), timedelta(hours=23))]
    db.add_all(gone + kept + uses_gone + uses_kept + [notice])
    db.flush()
    return ({d.id for d in gone}, {d.id for d in kept}, {u.id for u in uses_gone}, {u.id for u in uses_kept},
            notice.id)


# ---------------------------------------------------------------- the jobs are listed and scheduled daily

def test_the_purge_jobs_are_listed_daily(capsys):
    from chalicelib import cli

    jobs = cli.scheduled_jobs()
    for name in JOBS:
        assert jobs[name].schedule_expression.to_string() == "rate(1 day)"
    assert cli.main(["job", "--list"]) == 0
    out = capsys.readouterr().out
    for name in JOBS:
        assert any(line.startswith(name) and "rate(1 day)" in line for line in out.splitlines()), out


# ---------------------------------------------------------------- proposals

def test_attempts_purge_through_the_scheduled_handler(api, db, client, exec_user):
    from chalicelib.areas.proposals.models import ProposalPasswordAttempt

    gone, kept = _seed_attempts(api, db, exec_user)
    assert client.lambda_.invoke("proposal_attempts_purge", _event(client)).payload == {"password_attempts": 2}
    assert client.lambda_.invoke("proposal_attempts_purge", _event(client)).payload == {"password_attempts": 0}
    left = _keys(db, ProposalPasswordAttempt)
    assert kept <= left and not gone & left


def test_attempts_purge_through_the_cli(api, db, exec_user, capsys):
    from chalicelib import cli
    from chalicelib.areas.proposals.models import ProposalPasswordAttempt

    gone, kept = _seed_attempts(api, db, exec_user)
    assert cli.main(["job", "proposal-attempts-purge"]) == 0
    assert json.loads(capsys.readouterr().out) == {"password_attempts": 2}
    assert cli.main(["job", "proposal-attempts-purge"]) == 0
    assert json.loads(capsys.readouterr().out) == {"password_attempts": 0}
    left = _keys(db, ProposalPasswordAttempt)
    assert kept <= left and not gone & left


def test_attempts_still_throttle_after_the_purge(api, db, exec_user):
    """The counting window's attempts are not purged: the 11th wrong password of 15 minutes is still a 429."""
    from chalicelib.areas.proposals import jobs
    from chalicelib.areas.proposals.models import ProposalPasswordAttempt
    from chalicelib.areas.proposals.service_public import ATTEMPT_WINDOW, MAX_ATTEMPTS

    pid = create(api, exec_user)
    now = utcnow()
    db.add_all([ProposalPasswordAttempt(proposal_id=pid, created_at=now - ATTEMPT_WINDOW / 2)
                for _ in range(MAX_ATTEMPTS)])
    db.flush()
    assert jobs.proposal_attempts_purge() == {"password_attempts": 0}
    assert db.scalar(select(func.count()).select_from(ProposalPasswordAttempt)
                     .where(ProposalPasswordAttempt.proposal_id == pid)) == MAX_ATTEMPTS


# ---------------------------------------------------------------- calendar

def test_place_cache_purge_through_the_scheduled_handler(db, client):
    from chalicelib.areas.calendar.models import PlaceSearchCache

    gone, kept = _seed_places(db)
    assert client.lambda_.invoke("place_cache_purge", _event(client)).payload == {"places": 2}
    assert client.lambda_.invoke("place_cache_purge", _event(client)).payload == {"places": 0}
    left = _keys(db, PlaceSearchCache, "key")
    assert kept <= left and not gone & left


def test_place_cache_purge_through_the_cli(db, capsys):
    from chalicelib import cli
    from chalicelib.areas.calendar.jobs import CURSOR_KEY
    from chalicelib.areas.calendar.models import PlaceSearchCache

    gone, kept = _seed_places(db)
    assert cli.main(["job", "place-cache-purge"]) == 0
    assert json.loads(capsys.readouterr().out) == {"places": 2}
    assert cli.main(["job", "place-cache-purge"]) == 0
    assert json.loads(capsys.readouterr().out) == {"places": 0}
    left = _keys(db, PlaceSearchCache, "key")
    assert kept <= left and not gone & left
    assert db.get(PlaceSearchCache, CURSOR_KEY).results == [CURSOR_KEY]  # untouched


# ---------------------------------------------------------------- notifications

def _assert_notifications_purged(db, seeded):
    from chalicelib.core.models import ProviderUse
    from chalicelib.core.notify import Notification
    from chalicelib.core.notify_models import NotificationDelivery

    gone, kept, uses_gone, uses_kept, notice = seeded
    left = _keys(db, NotificationDelivery)
    assert kept <= left and not gone & left
    uses = _keys(db, ProviderUse)
    assert uses_kept <= uses and not uses_gone & uses
    assert db.get(Notification, notice) is not None


def test_notifications_purge_through_the_scheduled_handler(db, client):
    seeded = _seed_notifications(db)
    assert client.lambda_.invoke("notifications_purge", _event(client)).payload == {"deliveries": 3,
                                                                                     "provider_uses": 2}
    assert client.lambda_.invoke("notifications_purge", _event(client)).payload == {"deliveries": 0,
                                                                                     "provider_uses": 0}
    _assert_notifications_purged(db, seeded)


def test_notifications_purge_through_the_cli(db, capsys):
    from chalicelib import cli

    seeded = _seed_notifications(db)
    assert cli.main(["job", "notifications-purge"]) == 0
    assert json.loads(capsys.readouterr().out) == {"deliveries": 3, "provider_uses": 2}
    assert cli.main(["job", "notifications-purge"]) == 0
    assert json.loads(capsys.readouterr().out) == {"deliveries": 0, "provider_uses": 0}
    _assert_notifications_purged(db, seeded)


def test_the_allowance_still_counts_the_hour_after_the_purge(db):
    """provider_uses of the last hour survive: a caller at the hourly limit is still refused."""
    from chalicelib.areas.notifications import jobs
    from chalicelib.core.allowance import PER_HOUR, allow
    from chalicelib.core.errors import TooManyRequests
    from chalicelib.core.models import ProviderUse

    user = make_user(db)
    db.add_all([ProviderUse(kind="ai_summary", key=user.id, created_at=utcnow() - timedelta(minutes=30))
                for _ in range(PER_HOUR["ai_summary"])])
    db.flush()
    jobs.notifications_purge()

    class Ctx:
        user_id = user.id

    Ctx.db = db
    with pytest.raises(TooManyRequests):
        allow(Ctx, "ai_summary")


# ---------------------------------------------------------------- batches: one DELETE each, at most `batch` rows

@pytest.mark.parametrize("job", ["proposals", "calendar", "notifications"])
def test_each_batch_is_one_delete_of_at_most_batch_rows(api, db, exec_user, count_queries, job):
    from chalicelib.areas.calendar import jobs as calendar_jobs
    from chalicelib.areas.calendar.models import PlaceSearchCache
    from chalicelib.areas.notifications import jobs as notification_jobs
    from chalicelib.areas.proposals import jobs as proposal_jobs
    from chalicelib.areas.proposals.models import ProposalPasswordAttempt
    from chalicelib.core.models import ProviderUse
    from chalicelib.core.notify_models import NotificationDelivery

    old = utcnow() - timedelta(days=400)
    if job == "proposals":
        pid = create(api, exec_user)
        db.add_all([ProposalPasswordAttempt(proposal_id=pid, created_at=old) for _ in range(5)])
        run, expected = proposal_jobs.proposal_attempts_purge, {"password_attempts": 5}
    elif job == "calendar":
        db.add_all([PlaceSearchCache(key=f"gb|q{n}", results=[], cached_at=old) for n in range(5)])
        run, expected = calendar_jobs.place_cache_purge, {"places": 5}
    else:
        db.add_all([NotificationDelivery(channel="chat", type="mention", payload={}, status="sent", attempts=1,
                                         created_at=old, updated_at=old) for _ in range(5)])
        db.add_all([ProviderUse(kind="message", key="k", created_at=old) for _ in range(5)])
        run, expected = notification_jobs.notifications_purge, {"deliveries": 5, "provider_uses": 5}
    db.flush()
    with count_queries() as counter:
        assert run(batch=2) == expected
    deletes = [s for s in counter.statements if s.lstrip().upper().startswith("DELETE")]
    assert len(deletes) == 3 * len(expected)  # 2 + 2 + 1 per table: the batch of fewer than 2 ends the loop
    with count_queries() as counter:
        assert run(batch=2) == {key: 0 for key in expected}
    assert len([s for s in counter.statements if s.lstrip().upper().startswith("DELETE")]) == len(expected)
