"""Session 25 (audit "events that reach nobody"): an ad-platform connection whose sync failed (credentials refused
or unreadable, the figures refused) became `status: error` and told nobody: the client's dashboard figures silently
stopped. The change from a non-error status to `error` now tells the person `portal_connection` tells (the client
profile's active delivery manager, else the company's owner) with `portal_connection_error`; a failed retry of a
connection already in `error` tells nobody again. Whatever started the sync: the scheduled job, a staff member's
connection, a client's request. The notices of one sync are made in a fixed number of statements
(notify_many). docs/decisions/portal.md, session 25."""
import json
import os
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from chalicelib.areas.portal import jobs
from chalicelib.areas.portal.models import AdConnection
from chalicelib.areas.portal.service_connections import sync_connections
from chalicelib.core import crypto
from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from chalicelib.providers.adplatforms.base import CredentialsRefused
from chalicelib.providers.adplatforms.sandbox import SandboxAdPlatform
from tests.areas.portal.conftest import make_client, make_refused_google_ads, portal  # noqa: F401 - the portal fixture
from tests.areas.portal.test_connections_routes import GOOGLE
from tests.factories import grant, make_user

TYPE = "portal_connection_error"


def _notices(db) -> list:
    db.expire_all()
    return db.scalars(select(Notification).where(Notification.type == TYPE).order_by(Notification.created_at)).all()


def _age_notices(db) -> None:
    """Past the 5-minute de-duplication window: a repeat is then left out by the sync, not by core.notify."""
    db.execute(update(Notification).values(created_at=utcnow() - timedelta(minutes=30)))
    db.flush()


def _credentials(db, connection, refresh_token: str) -> None:
    db.execute(update(AdConnection).where(AdConnection.id == connection.id).values(secret=crypto.encrypt(json.dumps(
        {"customer_id": connection.account_id, "refresh_token": refresh_token}))))
    db.flush()


def test_a_failing_sync_tells_the_delivery_manager_once_and_again_after_a_recovery(db):
    manager = make_user(db, access_level="manager")
    mine = make_client(db, dashboard=True, manager=manager, name="Acme")
    broken = make_refused_google_ads(db, mine)
    assert sync_connections(connection_id=broken.id)["failed"] == 1
    told = _notices(db)
    assert [(n.user_id, n.resource_type, n.resource_id) for n in told] == [(manager.id, "ad_connection", broken.id)]
    assert "Acme" in told[0].title and "Broken" in told[0].title and "Google Ads" in told[0].title
    assert told[0].action_url == f"/companies/{mine.id}"
    assert "refused" in (told[0].body or "")
    # failing again (past the de-duplication window): already in error, nobody told again
    _age_notices(db)
    assert sync_connections(connection_id=broken.id)["failed"] == 1
    assert len(_notices(db)) == 1
    # recovers, then fails: one more
    _credentials(db, broken, "good-token")
    assert sync_connections(connection_id=broken.id)["synced"] == 1
    assert len(_notices(db)) == 1
    _credentials(db, broken, "invalid")
    assert sync_connections(connection_id=broken.id)["failed"] == 1
    assert [n.user_id for n in _notices(db)] == [manager.id, manager.id]


def test_the_scheduled_job_tells_of_unreadable_credentials(db):
    """Credentials that can no longer be read (SECRETS_KEY changed) fail every sync: told once."""
    manager = make_user(db, access_level="manager")
    mine = make_client(db, dashboard=True, manager=manager)
    broken = make_refused_google_ads(db, mine)
    db.execute(update(AdConnection).where(AdConnection.id == broken.id).values(secret="not-a-secret"))
    db.flush()
    assert jobs.adplatforms_sync()["failed"] == 1
    assert [n.user_id for n in _notices(db)] == [manager.id]
    _age_notices(db)
    assert jobs.adplatforms_sync()["failed"] == 1
    assert len(_notices(db)) == 1


def test_a_staff_connection_whose_first_sync_fails_tells_the_company_s_owner(api, db, exec_user, monkeypatch):
    """Staff connect an account (verified) whose first read fails: with the profile's manager deactivated, the
    company's owner is told, as `portal_connection` would tell."""
    former = make_user(db, access_level="manager", is_active=False)
    boss = make_user(db, access_level="lead")
    mine = make_client(db, dashboard=True, manager=former, owner_id=boss.id)

    def refused(self, since, until):
        raise CredentialsRefused("Google Ads refused the refresh token")

    monkeypatch.setattr(SandboxAdPlatform, "daily_metrics", refused)
    answer = api.post(f"/api/clients/{mine.id}/connections", as_=exec_user, json=GOOGLE)
    assert answer.status == 201, answer
    db.expire_all()
    assert db.get(AdConnection, answer.json["connection"]["id"]).status == "error"
    assert [(n.user_id, n.resource_id) for n in _notices(db)] == [(boss.id, answer.json["connection"]["id"])]


def test_a_recipient_who_may_not_read_the_company_is_told_without_its_names_or_link(db):
    manager = make_user(db, access_level="employee")
    grant(db, manager, "deals", "none")
    mine = make_client(db, dashboard=True, manager=manager, name="Acme")
    broken = make_refused_google_ads(db, mine)
    sync_connections(connection_id=broken.id)
    told = _notices(db)
    assert [n.user_id for n in told] == [manager.id]
    assert "Acme" not in told[0].title and "Broken" not in told[0].title
    assert told[0].action_url is None and told[0].body is None


def test_nobody_active_nobody_told(db):
    former = make_user(db, access_level="manager", is_active=False)
    mine = make_client(db, dashboard=True, manager=former)
    broken = make_refused_google_ads(db, mine)
    assert sync_connections(connection_id=broken.id)["failed"] == 1
    assert _notices(db) == []


def _failing(db, companies: int, *, in_error: bool) -> list:
    made = []
    for _ in range(companies):
        company = make_client(db, dashboard=True, manager=make_user(db, access_level="manager"))
        made.append(make_refused_google_ads(db, company))
    if in_error:
        db.execute(update(AdConnection).where(AdConnection.id.in_([c.id for c in made])).values(status="error"))
        db.flush()
    return made


def test_the_notices_cost_a_fixed_number_of_statements(db, count_queries, monkeypatch):
    """The statements the notices add to a sync are the same for one failing connection as for three (the
    deliveries are queued after commit, not delivered in process here: their statements are the worker's)."""
    from chalicelib.core import queue

    queued = []
    monkeypatch.setattr(queue, "send_batch", lambda name, messages: queued.extend(messages) or [])

    def cost(companies: int, in_error: bool) -> int:
        made = _failing(db, companies, in_error=in_error)
        with count_queries() as counter:
            assert sync_connections()["failed"] == companies
        db.execute(AdConnection.__table__.delete().where(AdConnection.id.in_([c.id for c in made])))
        db.flush()
        return counter.count

    quiet_one, quiet_three = cost(1, True), cost(3, True)
    told_one, told_three = cost(1, False), cost(3, False)
    assert told_three - quiet_three == told_one - quiet_one, (quiet_one, quiet_three, told_one, told_three)
    assert len(_notices(db)) == 4 and queued


@pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite",
                    reason="SQLite enforces no Numeric precision: only Postgres refuses the figure")
def test_figures_the_database_refuses_tell_once(db, set_env, monkeypatch):
    """The other way into `error`: the platform answers a figure past its column; the connection is marked in a
    unit of work of its own, and told of as any failure, once."""
    from decimal import Decimal

    set_env(ADPLATFORMS_RESYNC_DAYS="2")
    manager = make_user(db, access_level="manager")
    mine = make_client(db, dashboard=True, manager=manager)
    absurd = make_refused_google_ads(db, mine)
    _credentials(db, absurd, "good-token")
    real = SandboxAdPlatform.daily_metrics

    def overflowing(self, since, until):
        rows = real(self, since, until)
        rows[0]["spend"] = Decimal("1e15")
        return rows

    monkeypatch.setattr(SandboxAdPlatform, "daily_metrics", overflowing)
    assert sync_connections(connection_id=absurd.id)["failed"] == 1
    told = _notices(db)
    assert [n.user_id for n in told] == [manager.id] and "could not be stored" in told[0].body
    _age_notices(db)
    assert sync_connections(connection_id=absurd.id)["failed"] == 1
    assert len(_notices(db)) == 1


@pytest.mark.smoke
def test_a_write_that_fails_marks_and_tells_on_either_database(db, set_env, monkeypatch):
    """The refused write's marking (`_mark_refused`) on PostgreSQL and on the SQLite default (the smoke pass): its
    first form, an UPDATE ... FROM a locked read RETURNING the old status, answered nothing on SQLite, so nobody was
    told there (review of session 25)."""
    from chalicelib.areas.portal import service_connections

    manager = make_user(db, access_level="manager")
    mine = make_client(db, dashboard=True, manager=manager)
    failing = make_refused_google_ads(db, mine)
    _credentials(db, failing, "good-token")

    def refused(*args, **kwargs):
        raise ValueError("a figure the table refuses")

    monkeypatch.setattr(service_connections, "_write", refused)
    assert sync_connections(connection_id=failing.id)["failed"] == 1
    assert [n.user_id for n in _notices(db)] == [manager.id]
    assert db.scalar(select(AdConnection.status).where(AdConnection.id == failing.id)) == "error"


def test_a_connection_notice_to_an_owner_who_may_not_read_the_company_names_nothing(portal, db):
    """Review of session 25: a client's new connection now reaches the company's owner when no manager is active;
    one who may not read the company was shown the connection's name and a link to the company."""
    from chalicelib.core.models import User

    former = make_user(db, access_level="manager")
    boss = make_user(db, access_level="employee")
    grant(db, boss, "deals", "none")
    company = make_client(db, dashboard=True, manager=former, owner_id=boss.id, name="Acme")
    db.execute(update(User).where(User.id == former.id).values(is_active=False))
    db.flush()
    body = {**GOOGLE, "display_name": "Acme secret campaign account"}
    assert portal.post("/connections", company, role="collaborator", json=body).status == 201
    db.expire_all()
    told = db.scalars(select(Notification).where(Notification.type == "portal_connection")).all()
    assert [(n.user_id, n.title, n.action_url) for n in told] == [(boss.id, "A client connected an account", None)]
