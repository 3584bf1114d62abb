"""Portal connections (issue 19 item 4): list, connect (credentials validated, tested before they are stored,
encrypted, never answered; the delivery manager notified), disconnect (agency-managed 409, another company's
404), sync (202, after commit, idempotent; a campaign-day answered twice stored once, one connection's unwritable
figures marking it `error` without stopping the others), the daily job through the CLI, and the staff side that makes
agency-managed connections."""
import json
import os
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from chalicelib.areas.portal.models import AdConnection, AdDailyMetric
from chalicelib.core import crypto
from chalicelib.core.notify import Notification
from tests.areas.deals.factories import make_company
from tests.areas.portal.conftest import make_client, make_refused_google_ads
from tests.factories import make_user

GOOGLE = {"platform": "google_ads", "display_name": "Google Ads",
          "credentials": {"customer_id": "123-456-7890", "refresh_token": "1//refresh-SECRET-g"}}
META = {"platform": "meta_ads", "display_name": "Meta",
        "credentials": {"ad_account_id": "act_998877", "access_token": "EAAB-SECRET-meta"}}
SHOP = {"platform": "shopify", "display_name": "Store",
        "credentials": {"shop_domain": "acme-store.myshopify.com", "access_token": "shpat_SECRET_shop"}}
SECRETS = ("1//refresh-SECRET-g", "EAAB-SECRET-meta", "shpat_SECRET_shop")


def count(db, model, **where):
    stmt = select(func.count()).select_from(model)
    for key, value in where.items():
        stmt = stmt.where(getattr(model, key) == value)
    return db.scalar(stmt)


def no_secret(answer):
    text = answer.body.decode()
    assert not any(secret in text for secret in SECRETS), text
    assert "secret" not in (answer.json or {}).get("connection", {})


def test_connect_tests_stores_encrypted_notifies_and_syncs(portal, db, set_env):
    set_env(ADPLATFORMS_RESYNC_DAYS="40")
    manager = make_user(db)
    mine = make_client(db, dashboard=True, manager=manager)
    answer = portal.post("/connections", mine, role="collaborator", user="pu-9", json=GOOGLE)
    assert answer.status == 201, answer
    no_secret(answer)
    connection = answer.json["connection"]
    assert set(connection) == {"id", "company_id", "platform", "display_name", "account_id", "account_name",
                               "currency", "agency_managed", "status", "last_synced_at", "last_sync_error",
                               "backfilled_at", "created_by", "created_at", "updated_at"}
    assert (connection["platform"], connection["account_id"], connection["agency_managed"],
            connection["created_by"], connection["company_id"]) == ("google_ads", "1234567890", 0, "portal:pu-9", mine.id)
    row = db.get(AdConnection, connection["id"])
    assert "SECRET" not in row.secret
    assert json.loads(crypto.decrypt(row.secret))["refresh_token"] == "1//refresh-SECRET-g"
    assert db.scalar(select(Notification.type).where(Notification.user_id == manager.id)) == "portal_connection"
    # the first sync ran after the commit: the recent 40 days (ADPLATFORMS_RESYNC_DAYS) of each campaign
    campaigns = db.scalar(select(func.count(func.distinct(AdDailyMetric.campaign_id)))
                          .where(AdDailyMetric.connection_id == row.id))
    assert campaigns >= 2 and count(db, AdDailyMetric, connection_id=row.id) == 40 * campaigns
    db.refresh(row)
    assert row.status == "connected" and row.last_synced_at is not None and row.backfilled_at is None

    listed = portal.get("/connections", mine)
    assert listed.status == 200 and listed.json["dashboard_enabled"] == 1
    assert [c["id"] for c in listed.json["connections"]] == [row.id]
    assert listed.json["connections"][0]["last_synced_at"] is not None
    no_secret(listed)
    for body in (META, SHOP):
        made = portal.post("/connections", mine, role="admin", json=body)
        assert made.status == 201, made
        no_secret(made)
    assert len(portal.get("/connections", mine).json["connections"]) == 3
    # the same account again: 409
    assert portal.post("/connections", mine, role="admin", json=GOOGLE).status == 409
    # another client sees none of them
    other = make_client(db, dashboard=True)
    assert portal.get("/connections", other).json["connections"] == []


def test_refused_or_malformed_credentials_store_nothing(portal, db):
    mine = make_client(db, dashboard=True)
    refused = {**GOOGLE, "credentials": {**GOOGLE["credentials"], "refresh_token": "invalid-token"}}
    answer = portal.post("/connections", mine, role="admin", json=refused)
    assert answer.status == 400 and "refused" in answer.json["error"]
    assert count(db, AdConnection, company_id=mine.id) == 0
    cases = [
        ({**GOOGLE, "credentials": {"refresh_token": "x"}}, "credentials.customer_id"),
        ({**GOOGLE, "credentials": {"customer_id": "12345", "refresh_token": "x"}}, "credentials.customer_id"),
        ({**META, "credentials": {"ad_account_id": "act_x1", "access_token": "t"}}, "credentials.ad_account_id"),
        ({**SHOP, "credentials": {"shop_domain": "evil.example.com", "access_token": "t"}}, "credentials.shop_domain"),
        ({**SHOP, "credentials": {"shop_domain": "acme.myshopify.com"}}, "credentials.access_token"),
        ({**GOOGLE, "platform": "tiktok"}, "platform"),
        ({**GOOGLE, "credentials": "text"}, "credentials"),
        ({"platform": "google_ads", "credentials": GOOGLE["credentials"]}, "display_name"),
    ]
    for body, field in cases:
        answer = portal.post("/connections", mine, role="admin", json=body)
        assert answer.status == 400, (body, answer)
        assert field in [d["field"] for d in answer.json.get("details", [])], (field, answer.json)
    assert count(db, AdConnection, company_id=mine.id) == 0


def test_roles_dashboard_flag_and_provider_off(portal, db, set_env):
    mine = make_client(db, dashboard=True)
    assert portal.post("/connections", mine, role="viewer", json=GOOGLE).status == 403
    assert portal.post("/connections/sync", mine, role="viewer").status == 403
    disabled = make_client(db, dashboard=False)
    listed = portal.get("/connections", disabled)
    assert (listed.status, listed.json) == (200, {"connections": [], "dashboard_enabled": 0})
    results = portal.get("/results", disabled)
    assert results.status == 200 and results.json["dashboard_enabled"] == 0 and results.json["metrics"] == []
    for method, path, body in (("POST", "/connections", GOOGLE), ("POST", "/connections/sync", None),
                               ("DELETE", "/connections/00000000-0000-0000-0000-000000000000", None),
                               ("GET", "/results/campaigns", None), ("POST", "/results/ask", {"question": "How?"})):
        answer = portal.request(method, path, disabled, role="admin", json=body)
        assert answer.status == 403 and "not enabled" in answer.json["error"], (path, answer)
    assert count(db, AdConnection, company_id=disabled.id) == 0
    set_env(ADPLATFORMS_MODE="off")
    assert portal.post("/connections", mine, role="admin", json=GOOGLE).status == 503
    assert count(db, AdConnection, company_id=mine.id) == 0


def test_disconnect_scoping_and_agency_managed(portal, api, db, exec_user, set_env):
    set_env(ADPLATFORMS_RESYNC_DAYS="3")
    mine, other = make_client(db, dashboard=True), make_client(db, dashboard=True)
    own = portal.post("/connections", mine, role="admin", json=META).json["connection"]
    foreign = portal.post("/connections", other, role="admin", json=META).json["connection"]
    managed = api.post(f"/api/clients/{mine.id}/connections", as_=exec_user, json=GOOGLE)
    assert managed.status == 201, managed
    no_secret(managed)
    managed = managed.json["connection"]
    assert managed["agency_managed"] == 1 and managed["created_by"] == exec_user.id
    assert {c["id"] for c in portal.get("/connections", mine).json["connections"]} == {own["id"], managed["id"]}
    assert portal.delete(f"/connections/{foreign['id']}", mine, role="admin").status == 404
    assert portal.delete(f"/connections/{own['id']}", mine, role="viewer").status == 403
    assert portal.delete(f"/connections/{managed['id']}", mine, role="admin").status == 409
    assert count(db, AdDailyMetric, connection_id=own["id"]) > 0
    assert portal.delete(f"/connections/{own['id']}", mine, role="admin").json == {"ok": True}
    assert db.get(AdConnection, own["id"]) is None and count(db, AdDailyMetric, connection_id=own["id"]) == 0
    assert portal.delete(f"/connections/{own['id']}", mine, role="admin").status == 404
    assert db.get(AdConnection, foreign["id"]) is not None
    # staff: list, refuse a company that is not a client, remove the managed one
    staff = api.get(f"/api/clients/{mine.id}/connections", as_=exec_user)
    assert [c["id"] for c in staff.json["connections"]] == [managed["id"]]
    no_secret(staff)
    prospect = make_company(db)
    assert api.get(f"/api/clients/{prospect.id}/connections", as_=exec_user).status == 404
    assert api.post(f"/api/clients/{prospect.id}/connections", as_=exec_user, json=GOOGLE).status == 404
    assert api.delete(f"/api/clients/{other.id}/connections/{managed['id']}", as_=exec_user).status == 404
    assert api.delete(f"/api/clients/{mine.id}/connections/{managed['id']}", as_=exec_user).json == {"ok": True}
    refused = {**GOOGLE, "credentials": {**GOOGLE["credentials"], "refresh_token": "invalid"}}
    assert api.post(f"/api/clients/{mine.id}/connections", as_=exec_user, json=refused).status == 400
    assert count(db, AdConnection, company_id=mine.id) == 0


def test_sync_is_accepted_runs_after_commit_and_is_idempotent(portal, db, set_env, capsys):
    from chalicelib import cli

    set_env(ADPLATFORMS_BACKFILL_DAYS="10", ADPLATFORMS_RESYNC_DAYS="4")
    mine = make_client(db, dashboard=True)
    made = portal.post("/connections", mine, role="admin", json=SHOP).json["connection"]

    def stored():
        return db.execute(select(AdDailyMetric.date, AdDailyMetric.orders, AdDailyMetric.revenue)
                          .where(AdDailyMetric.connection_id == made["id"]).order_by(AdDailyMetric.date)).all()

    before = stored()
    assert len(before) == 4  # a request reads the recent days only
    db.get(AdConnection, made["id"]).last_synced_at -= timedelta(minutes=11)  # past the client's sync cooldown
    db.flush()
    answer = portal.post("/connections/sync", mine, role="collaborator")
    assert answer.status == 202 and answer.json == {"message": "Sync started for 1 connected platform"}
    assert stored() == before  # the same days re-read: updated in place, never duplicated
    # the scheduled job reads the history once (backfill), then the recent days again
    assert cli.main(["job", "adplatforms-sync"]) == 0
    backfilled = stored()
    assert len(backfilled) == 10 and backfilled[-4:] == before
    connection = portal.get("/connections", mine).json["connections"][0]
    assert connection["backfilled_at"] is not None
    assert cli.main(["job", "adplatforms-sync"]) == 0
    assert stored() == backfilled
    capsys.readouterr()


def test_daily_job_through_the_cli_is_idempotent(portal, db, set_env, capsys):
    from chalicelib import cli

    set_env(ADPLATFORMS_BACKFILL_DAYS="6", ADPLATFORMS_RESYNC_DAYS="2")
    mine = make_client(db, dashboard=True)
    good = portal.post("/connections", mine, role="admin", json=META).json["connection"]
    broken = make_refused_google_ads(db, mine)
    campaigns = db.scalar(select(func.count(func.distinct(AdDailyMetric.campaign_id)))
                          .where(AdDailyMetric.connection_id == good["id"]))
    assert count(db, AdDailyMetric, connection_id=good["id"]) == 2 * campaigns
    capsys.readouterr()
    assert cli.main(["job", "adplatforms-sync"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first == {"connections": 2, "synced": 1, "failed": 1, "rows": 6 * campaigns}
    assert count(db, AdDailyMetric, connection_id=good["id"]) == 6 * campaigns
    assert cli.main(["job", "adplatforms-sync"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second == {"connections": 2, "synced": 1, "failed": 1, "rows": 2 * campaigns}
    assert count(db, AdDailyMetric, connection_id=good["id"]) == 6 * campaigns
    db.refresh(broken)
    assert broken.status == "error" and "refused" in broken.last_sync_error and broken.backfilled_at is None
    assert count(db, AdDailyMetric, connection_id=broken.id) == 0


def test_an_unreachable_platform_stores_and_notifies_nothing(portal, db, api, exec_user, monkeypatch):
    """The platform is asked before anything is written (no transaction open): unreachable is 502 `{error}`,
    and neither a connection, nor its figures, nor the delivery manager's notification is kept."""
    from chalicelib.core.errors import BadGateway
    from chalicelib.providers.adplatforms.sandbox import SandboxAdPlatform

    manager = make_user(db)
    mine = make_client(db, dashboard=True, manager=manager)

    def unreachable(self):
        raise BadGateway("Google Ads unreachable (ConnectionError)")

    monkeypatch.setattr(SandboxAdPlatform, "verify", unreachable)
    failed = portal.post("/connections", mine, role="admin", json=GOOGLE)
    assert failed.status == 502 and failed.json == {"error": "Google Ads unreachable (ConnectionError)"}
    staff = api.post(f"/api/clients/{mine.id}/connections", as_=exec_user, json=META)
    assert staff.status == 502 and staff.json["error"]
    assert count(db, AdConnection, company_id=mine.id) == 0 and count(db, AdDailyMetric, company_id=mine.id) == 0
    assert count(db, Notification, user_id=manager.id) == 0


def test_each_connection_notifies_the_delivery_manager(portal, db):
    """Document 3, Events: a portal connection notifies the assigned delivery manager. Each connection is its
    own event: the notification names the connection, so the 5-minute de-duplication (same user, type and
    resource) no longer swallowed a second platform connected minutes after the first (both named the company)."""
    manager = make_user(db)
    mine = make_client(db, dashboard=True, manager=manager)
    made = [portal.post("/connections", mine, role="admin", json=body).json["connection"]["id"]
            for body in (GOOGLE, META)]
    told = db.execute(select(Notification.type, Notification.resource_type, Notification.resource_id,
                             Notification.title)
                      .where(Notification.user_id == manager.id).order_by(Notification.created_at)).all()
    assert [(t.type, t.resource_id) for t in told] == [("portal_connection", made[0]), ("portal_connection", made[1])]
    assert {t.resource_type for t in told} == {"ad_connection"}
    assert told[1].title.startswith("A client connected Meta Ads")


def test_a_portal_user_id_of_100_characters_can_connect(portal, db):
    """The boundary accepts an X-Portal-User-Id of up to 100 characters (docs/decisions/portal.md); the
    connection records who made it as `portal:<user id>`, which passed its 100-character column: the connect
    answered 400 ("A value is out of range or malformed") and stored nothing (migration adplatforms_0003)."""
    mine = make_client(db, dashboard=True)
    user = "u" * 100
    answer = portal.post("/connections", mine, role="admin", user=user, json=GOOGLE)
    assert answer.status == 201, answer.json
    assert answer.json["connection"]["created_by"] == f"portal:{user}"
    assert db.get(AdConnection, answer.json["connection"]["id"]).created_by == f"portal:{user}"


def test_a_client_sync_skips_connections_synced_in_the_last_10_minutes(portal, db, monkeypatch):
    """Each sync spends the agency's platform API quota and any collaborator may ask as often as they like (audit
    S1): a connection synced within 10 minutes is not read again for a client's request."""
    from chalicelib.providers.adplatforms.sandbox import SandboxAdPlatform

    mine = make_client(db, dashboard=True)
    made = portal.post("/connections", mine, role="admin", json=SHOP).json["connection"]  # synced as it connects
    reads = []
    real = SandboxAdPlatform.daily_metrics
    monkeypatch.setattr(SandboxAdPlatform, "daily_metrics", lambda self, *a, **k: reads.append(1) or real(self, *a, **k))
    answer = portal.post("/connections/sync", mine, role="collaborator")
    assert answer.status == 202 and answer.json == {
        "message": "Sync started for 0 connected platforms (1 synced in the last 10 minutes)"}
    assert reads == []
    db.get(AdConnection, made["id"]).last_synced_at -= timedelta(minutes=11)
    db.flush()
    assert portal.post("/connections/sync", mine, role="collaborator").json == {
        "message": "Sync started for 1 connected platform"}
    assert reads == [1]


def test_a_client_sync_skips_connections_that_failed_in_the_last_10_minutes(portal, db, monkeypatch):
    """The cooldown counts a failed read too: a failed sync leaves last_synced_at as it was (status `error`), so a
    connection failing on every read was read again on every client request, spending the quota the cooldown keeps."""
    from chalicelib.core.errors import ServiceUnavailable
    from chalicelib.providers.adplatforms.sandbox import SandboxAdPlatform

    mine = make_client(db, dashboard=True)
    made = portal.post("/connections", mine, role="admin", json=SHOP).json["connection"]
    db.get(AdConnection, made["id"]).last_synced_at -= timedelta(minutes=11)
    db.flush()
    reads = []

    def refused(self, *args, **kwargs):
        reads.append(1)
        raise ServiceUnavailable("The platform is unavailable")

    monkeypatch.setattr(SandboxAdPlatform, "daily_metrics", refused)
    assert portal.post("/connections/sync", mine, role="collaborator").json == {
        "message": "Sync started for 1 connected platform"}
    db.expire_all()
    assert (reads, db.get(AdConnection, made["id"]).status) == ([1], "error")
    assert portal.post("/connections/sync", mine, role="collaborator").json == {
        "message": "Sync started for 0 connected platforms (1 synced in the last 10 minutes)"}
    assert reads == [1]
    db.get(AdConnection, made["id"]).updated_at -= timedelta(minutes=11)
    db.flush()
    assert portal.post("/connections/sync", mine, role="collaborator").json == {
        "message": "Sync started for 1 connected platform"}
    assert reads == [1, 1]


# ---------------------------------------------------------------- one connection's figures never stop the sync

def _google(db, company, n):
    """A Google Ads connection of a fixed id: connections are synced in (company_id, id) order, so n=1 is first."""
    connection = AdConnection(id=f"00000000-0000-4000-8000-00000000000{n}", company_id=company.id,
                              platform="google_ads", display_name=f"Google {n}", account_id=f"{n}" * 10,
                              secret=crypto.encrypt(json.dumps({"customer_id": f"{n}" * 10, "refresh_token": f"t-{n}"})))
    db.add(connection)
    db.flush()
    return connection


def test_a_campaign_day_answered_twice_is_stored_once_as_the_later_copy(portal, db, set_env, monkeypatch):
    """A paged listing can answer one campaign-day on two pages; both copies in one INSERT ... ON CONFLICT DO
    UPDATE were refused by Postgres ("cannot affect row a second time") and ended the whole sync. The adapters
    answer one row per campaign and day, so the copy is a repeat, not a part: the later copy is kept, not summed."""
    from chalicelib.areas.portal.jobs import adplatforms_sync
    from chalicelib.providers.adplatforms.sandbox import SandboxAdPlatform

    set_env(ADPLATFORMS_BACKFILL_DAYS="3", ADPLATFORMS_RESYNC_DAYS="3")
    mine = make_client(db, dashboard=True)
    repeated = _google(db, mine, 1)
    real = SandboxAdPlatform.daily_metrics
    answered = []

    def twice(self, since, until):
        rows = real(self, since, until)
        answered.extend(rows)
        return rows + [{**rows[0], "clicks": 7, "spend": rows[0]["spend"] + 1}]  # answered again, later figures

    monkeypatch.setattr(SandboxAdPlatform, "daily_metrics", twice)
    outcome = adplatforms_sync()
    campaigns, first = len({row["campaign_id"] for row in answered}), answered[0]
    assert outcome == {"connections": 1, "synced": 1, "failed": 0, "rows": 3 * campaigns}
    assert count(db, AdDailyMetric, connection_id=repeated.id) == 3 * campaigns
    stored = db.execute(select(AdDailyMetric.clicks, AdDailyMetric.spend).where(
        AdDailyMetric.connection_id == repeated.id, AdDailyMetric.campaign_id == first["campaign_id"],
        AdDailyMetric.date == first["date"])).one()
    assert (stored.clicks, stored.spend) == (7, first["spend"] + 1)
    db.expire_all()
    assert db.get(AdConnection, repeated.id).status == "connected"


def test_a_connection_whose_figures_cannot_be_written_is_marked_and_the_others_sync(portal, api, db, exec_user,
                                                                                    set_env, monkeypatch):
    """The write of a connection's figures was outside the sync's try: a database error left the loop, so the
    connections after it (the same ones every day: (company_id, id) order) were never synced and the failing one
    was never marked. Now it is `error` (staff read the database's message, the client CLIENT_SYNC_FAILED), counted
    failed, and the others sync; a later run keeps going the same way."""
    from sqlalchemy.exc import DataError

    from chalicelib.areas.portal import service_connections
    from chalicelib.areas.portal.jobs import adplatforms_sync
    from chalicelib.areas.portal.service_connections import CLIENT_SYNC_FAILED

    set_env(ADPLATFORMS_BACKFILL_DAYS="2", ADPLATFORMS_RESYNC_DAYS="2")
    mine = make_client(db, dashboard=True)
    bad, *good = (_google(db, mine, n) for n in (1, 2, 3))
    real = service_connections._upsert

    def refusing(session, rows):
        if rows[0]["connection_id"] == bad.id:
            raise DataError("INSERT INTO ad_daily_metrics ...", {}, Exception("numeric field overflow"))
        real(session, rows)

    monkeypatch.setattr(service_connections, "_upsert", refusing)
    for _ in range(2):  # two daily runs
        outcome = adplatforms_sync()
        assert (outcome["connections"], outcome["synced"], outcome["failed"]) == (3, 2, 1)
    db.expire_all()
    assert all(count(db, AdDailyMetric, connection_id=c.id) and db.get(AdConnection, c.id).status == "connected"
               for c in good)
    marked = db.get(AdConnection, bad.id)
    assert marked.status == "error" and count(db, AdDailyMetric, connection_id=bad.id) == 0
    assert marked.backfilled_at is None and marked.last_synced_at is None
    staff = {c["id"]: c for c in api.get(f"/api/clients/{mine.id}/connections", as_=exec_user).json["connections"]}
    assert staff[bad.id]["last_sync_error"] == "The platform's figures could not be stored (Exception: numeric field overflow)"
    client = {c["id"]: c for c in portal.get("/connections", mine).json["connections"]}
    assert client[bad.id]["last_sync_error"] == CLIENT_SYNC_FAILED


@pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite",
                    reason="SQLite enforces no Numeric precision: only Postgres refuses the figure")
def test_a_figure_past_its_column_is_a_recorded_failure(portal, db, set_env, monkeypatch):
    """A platform's absurd figure (a spend past Numeric(16,2)) is refused by the database: that connection is
    `error` with the database's message, and the next one is synced."""
    from decimal import Decimal

    from chalicelib.areas.portal.service_connections import sync_connections
    from chalicelib.providers.adplatforms.sandbox import SandboxAdPlatform

    set_env(ADPLATFORMS_RESYNC_DAYS="2")
    mine = make_client(db, dashboard=True)
    absurd, fine = _google(db, mine, 1), _google(db, mine, 2)
    real = SandboxAdPlatform.daily_metrics

    def overflowing(self, since, until):
        rows = real(self, since, until)
        if self.seed == absurd.id:
            rows[0]["spend"] = Decimal("1e15")
        return rows

    monkeypatch.setattr(SandboxAdPlatform, "daily_metrics", overflowing)
    outcome = sync_connections(company_id=mine.id)
    assert (outcome["synced"], outcome["failed"]) == (1, 1)
    db.expire_all()
    failed = db.get(AdConnection, absurd.id)
    assert failed.status == "error" and "numeric field overflow" in failed.last_sync_error
    assert db.get(AdConnection, fine.id).status == "connected" and count(db, AdDailyMetric, connection_id=fine.id)
