"""The scheduled job adplatforms-sync through the Lambda handler (the CLI run is tested in
test_connections_routes.py): run twice, one effect (developers' guide, scheduled jobs)."""
from sqlalchemy import func, select

from chalicelib.areas.portal.models import AdConnection, AdDailyMetric
from tests.areas.portal.conftest import make_client, make_refused_google_ads

SHOP = {"platform": "shopify", "display_name": "Store",
        "credentials": {"shop_domain": "acme-store.myshopify.com", "access_token": "shpat_SECRET_shop"}}


def test_adplatforms_sync_through_the_scheduled_handler(portal, db, client, set_env):
    set_env(ADPLATFORMS_BACKFILL_DAYS="7", ADPLATFORMS_RESYNC_DAYS="3")
    mine = make_client(db, dashboard=True)
    good = portal.post("/connections", mine, role="admin", json=SHOP).json["connection"]
    broken = make_refused_google_ads(db, mine)

    def stored():
        return db.execute(select(AdDailyMetric.id, AdDailyMetric.campaign_id, AdDailyMetric.date,
                                 AdDailyMetric.orders, AdDailyMetric.revenue)
                          .where(AdDailyMetric.connection_id == good["id"])
                          .order_by(AdDailyMetric.campaign_id, AdDailyMetric.date)).all()

    campaigns = db.scalar(select(func.count(func.distinct(AdDailyMetric.campaign_id)))
                          .where(AdDailyMetric.connection_id == good["id"]))
    assert campaigns and len(stored()) == 3 * campaigns  # connecting read the recent days only
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    first = client.lambda_.invoke("adplatforms_sync", event).payload
    assert first == {"connections": 2, "synced": 1, "failed": 1, "rows": 7 * campaigns}  # the history, once
    backfilled = stored()
    assert len(backfilled) == 7 * campaigns
    db.expire_all()
    done = db.get(AdConnection, good["id"])
    assert done.status == "connected" and done.backfilled_at is not None
    marked = done.backfilled_at
    second = client.lambda_.invoke("adplatforms_sync", event).payload
    # the recent days only are read again and upserted in place: no row added, none changed
    assert second == {"connections": 2, "synced": 1, "failed": 1, "rows": 3 * campaigns}
    assert stored() == backfilled
    db.expire_all()
    assert db.get(AdConnection, good["id"]).backfilled_at == marked
    failed = db.get(AdConnection, broken.id)
    assert failed.status == "error" and "refused" in failed.last_sync_error and failed.backfilled_at is None
    assert db.scalar(select(func.count()).select_from(AdDailyMetric)
                     .where(AdDailyMetric.connection_id == broken.id)) == 0
