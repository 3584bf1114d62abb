"""A portal sync while another transaction deletes one of the company's ad connections, against a real HTTP server
on Postgres (the server and helpers of test_concurrency.py; deterministic: the other transaction holds the
connection's row while the sync writes). The sync leaves the deleted connection out and still syncs the others (its
metrics insert failed on the deleted row's foreign key, which ended the whole sync: the connections after it, and
the daily job's, were not synced)."""
from __future__ import annotations

import json

from sqlalchemy import delete, func, select

from tests.concurrency.test_concurrency import while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there

from tests.concurrency.conftest import PORTAL_TOKEN as TOKEN  # the server's portal service token


def _portal_call(base, method, path, company_id):
    import urllib.error
    import urllib.request

    request = urllib.request.Request(base + "/api/portal" + path, method=method, headers={
        "Authorization": f"Bearer {TOKEN}", "X-Portal-Company-Id": company_id, "X-Portal-User-Role": "admin",
        "X-Portal-User-Id": "pu-1"})
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_a_sync_that_meets_a_deleted_connection_still_syncs_the_others(live):
    from chalicelib.areas.portal.models import AdConnection, AdDailyMetric
    from chalicelib.core import crypto
    from chalicelib.core.ids import new_id
    from tests.areas.portal.conftest import make_client

    base, sessions = live
    first, second = sorted([new_id(), new_id()])  # a sync takes a company's connections by id
    with sessions() as db:
        company = make_client(db, dashboard=True)
        for connection_id, customer in ((first, "1234567890"), (second, "2234567890")):
            db.add(AdConnection(id=connection_id, company_id=company.id, platform="google_ads",
                                display_name=customer, account_id=customer, status="connected",
                                secret=crypto.encrypt(json.dumps({"customer_id": customer,
                                                                  "refresh_token": "1//refresh-g"}))))
        db.commit()
    # a disconnect of the first connection, holding its row until it commits; the sync reads both connections
    status, body = while_held(sessions, delete(AdConnection).where(AdConnection.id == first),
                              lambda: _portal_call(base, "POST", "/connections/sync", company.id), wait=1.5)
    assert status == 202, body
    with sessions() as db:
        synced = db.get(AdConnection, second)
        rows = db.scalar(select(func.count()).select_from(AdDailyMetric).where(AdDailyMetric.connection_id == second))
        assert (synced.status, synced.last_synced_at is not None, rows > 0) == ("connected", True, True)
        assert db.scalar(select(func.count()).select_from(AdDailyMetric)
                         .where(AdDailyMetric.connection_id == first)) == 0
