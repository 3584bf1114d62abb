"""Session 24's record_portal_user (review of the session's diff) adds, to every portal request, a DELETE of portal_users by portal_user_id with
company_id <> the caller's. portal_users' only index is its primary key (company_id, portal_user_id): no index leads
with portal_user_id, so the DELETE cannot find the user's rows by index and scans the table on every portal call."""
import os

import pytest
from sqlalchemy import text

pytestmark = pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite", reason="reads Postgres' pg_indexes")


def test_an_index_serves_the_delete_by_portal_user_id(db):
    leading = db.execute(text(
        "SELECT indexdef FROM pg_indexes WHERE tablename = 'portal_users'")).scalars().all()
    assert any("(portal_user_id" in d for d in leading), leading



def test_an_index_serves_the_withdrawal_of_a_records_notices(db):
    """withdraw_notices deletes a record's notices by (type, resource_type, resource_id) on every note delete of a
    portal record type: without an index on the resource it scanned portal_notifications."""
    defs = db.execute(text("SELECT indexdef FROM pg_indexes WHERE tablename = 'portal_notifications'")).scalars().all()
    assert any("(resource_type, resource_id)" in d for d in defs), defs
