"""Session 30 (audit "things switched off that are still used"): a company that stops being a client (staff set its
status back to `prospect`) is switched off for the portal: its portal answers 404, its users are told nothing, and
staff's `/api/clients/:companyId/connections` answers 404 (docs/decisions/portal.md). The daily `adplatforms-sync` job
still read every stored ad connection: it called Google Ads, Meta and Shopify with a former client's tokens every day,
for figures no route shows, and told the delivery manager of a failure (`portal_connection_error`) on connections they
can neither list nor remove. The job now reads the connections of client companies only; a company made a client
again is synced again."""
from sqlalchemy import select

from chalicelib.areas.portal.models import AdConnection
from chalicelib.core.notify import Notification
from tests.areas.portal.conftest import make_client, make_refused_google_ads
from tests.areas.portal.test_jobs import SHOP
from tests.factories import make_user


def _run(client):
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    return client.lambda_.invoke("adplatforms_sync", event).payload


def test_the_scheduled_sync_leaves_a_former_client_s_connections_alone(portal, api, db, client, employee):
    manager = make_user(db, access_level="manager")
    former = make_client(db, dashboard=True, manager=manager, name="Gone")
    kept = make_client(db, dashboard=True, name="Kept")
    shop = portal.post("/connections", former, role="admin", json=SHOP).json["connection"]
    broken = make_refused_google_ads(db, former)
    still = portal.post("/connections", kept, role="admin", json=SHOP).json["connection"]
    db.expire_all()
    read_at = db.get(AdConnection, shop["id"]).last_synced_at
    assert read_at is not None
    assert api.put(f"/api/deals/companies/{former.id}", as_=employee, json={"status": "prospect"}).status == 200
    assert api.get(f"/api/clients/{former.id}/connections", as_=employee).status == 404  # staff cannot reach them

    ran = _run(client)

    assert (ran["connections"], ran["synced"], ran["failed"]) == (1, 1, 0)  # the client's connection only
    db.expire_all()
    assert db.get(AdConnection, shop["id"]).last_synced_at == read_at  # the platform was not asked
    assert db.get(AdConnection, broken.id).status != "error"
    assert db.get(AdConnection, still["id"]).last_synced_at is not None
    assert db.scalars(select(Notification).where(Notification.type == "portal_connection_error")).all() == []

    # a client again: its connections are read again
    assert api.post(f"/api/clients/{former.id}/profile", as_=employee, json={}).status == 201
    again = _run(client)
    assert (again["connections"], again["synced"], again["failed"]) == (3, 2, 1)
    db.expire_all()
    assert db.get(AdConnection, shop["id"]).last_synced_at > read_at
