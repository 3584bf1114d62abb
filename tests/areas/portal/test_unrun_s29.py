"""Session 29, "code no test runs": the portal area's lines the coverage run left unexecuted, run through the API
(and the sync job's entry point, as tests/areas/portal/test_connection_error_notice_s25.py does)."""
import json

from sqlalchemy import delete, func, select

from chalicelib.areas.portal.models import AdConnection, AdDailyMetric, PortalNotificationPreference
from chalicelib.areas.portal.service_connections import CLIENT_SYNC_FAILED, sync_connections
from chalicelib.core import crypto
from chalicelib.core.notify import Notification
from chalicelib.providers.adplatforms.sandbox import SandboxAdPlatform
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.portal.test_results_routes import connect, goal
from tests.factories import make_user


def _google(db, company):
    row = AdConnection(company_id=company.id, platform="google_ads", display_name="Main", account_id="1234567890",
                       secret=crypto.encrypt(json.dumps({"customer_id": "1234567890", "refresh_token": "good"})))
    db.add(row)
    db.flush()
    return row


def test_a_portal_user_id_past_100_characters_is_400(portal, db):
    mine = make_client(db)
    answer = portal.get("/notifications", mine, user="u" * 101)
    assert answer.status == 400 and answer.json["details"][0]["field"] == "X-Portal-User-Id"
    assert portal.get("/notifications", mine, user="u" * 100).status == 200


def test_a_metric_with_a_target_and_no_figures_is_no_data(portal, db):
    mine = make_client(db, dashboard=True)
    connect(db, mine)
    goal(db, mine, "cpa", 20)
    goal(db, mine, "ctr", 2)
    db.flush()
    answer = portal.get("/results?period_type=month&period_end=2024-03-31", mine)
    assert answer.status == 200, answer.json
    m = {x["key"]: x for x in answer.json["metrics"]}
    assert (m["cpa"]["value"], m["cpa"]["target"], m["cpa"]["tracking_status"]) == (None, 20.0, "no_data")
    assert (m["ctr"]["value"], m["ctr"]["tracking_status"]) == (None, "no_data")


def test_an_empty_preferences_list_changes_nothing(portal, db):
    mine = make_client(db)
    answer = portal.put("/notifications/preferences", mine, json={"preferences": []})
    assert answer.status == 200 and answer.json == {"ok": True}
    assert db.scalar(select(func.count()).select_from(PortalNotificationPreference)) == 0
    assert not any(p["is_customized"] for p in portal.get("/notifications/preferences", mine).json["preferences"])


def test_an_unexpected_platform_failure_marks_the_connection_and_the_sync_goes_on(db, monkeypatch):
    manager = make_user(db, access_level="manager")
    mine = make_client(db, dashboard=True, manager=manager, name="Acme")
    broken, fine = _google(db, mine), _google(db, make_client(db, dashboard=True))
    real = SandboxAdPlatform.daily_metrics

    def daily_metrics(self, since, until):
        if self.seed == broken.id:
            raise RuntimeError("connection reset")
        return real(self, since, until)

    monkeypatch.setattr(SandboxAdPlatform, "daily_metrics", daily_metrics)
    result = sync_connections()
    assert (result["failed"], result["synced"]) == (1, 1)
    db.expire_all()
    row = db.get(AdConnection, broken.id)
    assert row.status == "error" and row.last_sync_error == "The sync failed (RuntimeError)"
    assert row.client_sync_error == CLIENT_SYNC_FAILED  # the client reads nothing of our internals
    assert db.get(AdConnection, fine.id).status == "connected"
    told = db.scalars(select(Notification).where(Notification.type == "portal_connection_error")).all()
    assert [n.user_id for n in told] == [manager.id]


def test_a_failure_to_tell_of_a_failing_connection_still_answers_the_sync(db, monkeypatch):
    from chalicelib.core import notify

    manager = make_user(db, access_level="manager")
    mine = make_client(db, dashboard=True, manager=manager)
    broken = _google(db, mine)
    monkeypatch.setattr(SandboxAdPlatform, "daily_metrics",
                        lambda self, since, until: (_ for _ in ()).throw(RuntimeError("down")))

    def refuse(*args, **kwargs):
        raise RuntimeError("notifications unavailable")

    monkeypatch.setattr(notify, "notify_many", refuse)
    assert sync_connections(connection_id=broken.id)["failed"] == 1
    db.expire_all()
    assert db.get(AdConnection, broken.id).status == "error"


def test_a_connection_removed_while_its_figures_were_fetched_is_left_alone(db, monkeypatch):
    from chalicelib.core.db import unit_of_work

    mine = make_client(db, dashboard=True)
    gone = _google(db, mine).id
    real = SandboxAdPlatform.daily_metrics

    def daily_metrics(self, since, until):
        rows = real(self, since, until)
        with unit_of_work() as uow:  # a staff member disconnects the account meanwhile
            uow.session.execute(delete(AdConnection).where(AdConnection.id == gone))
        return rows

    monkeypatch.setattr(SandboxAdPlatform, "daily_metrics", daily_metrics)
    result = sync_connections(connection_id=gone)
    assert (result["connections"], result["synced"], result["failed"], result["rows"]) == (1, 0, 0, 0)
    db.expire_all()
    assert db.scalar(select(func.count()).select_from(AdDailyMetric).where(AdDailyMetric.connection_id == gone)) == 0
