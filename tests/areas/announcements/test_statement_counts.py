"""Announcements: every list a route answers costs the same statements at 5 and at 100 rows
(docs/area-contract.md, "Reads"). The announcement list is tested in test_announcements.py."""
from datetime import datetime, timezone

from chalicelib.areas.announcements.models import AnnouncementDistribution, AnnouncementReceipt
from chalicelib.core.locks import insert_rows
from tests.factories import assert_constant, make_user

from .factories import make_announcement


def test_detail_read_receipts(api, db, exec_user, count_queries):
    announcement = make_announcement(db, author_id=exec_user.id)
    insert_rows(db, AnnouncementReceipt, [{"announcement_id": announcement.id, "user_id": exec_user.id}])

    def grow(n):
        insert_rows(db, AnnouncementReceipt, [{"announcement_id": announcement.id, "user_id": make_user(db).id}
                                              for _ in range(n)])

    body = assert_constant(api, count_queries, exec_user, f"/api/announcements/{announcement.id}", grow,
                           lambda b: len(b["read_receipts"]) - 1)
    assert all(r["user_name"] for r in body["read_receipts"])


def test_distributions(api, db, exec_user, count_queries):
    announcement = make_announcement(db, author_id=exec_user.id)

    def grow(n):
        insert_rows(db, AnnouncementDistribution, [
            {"announcement_id": announcement.id, "channel": ("chat", "calendar", "email")[i % 3], "status": "sent",
             "external_id": f"x{i}", "sent_by": make_user(db).id, "sent_at": datetime.now(timezone.utc)}
            for i in range(n)])

    body = assert_constant(api, count_queries, exec_user, f"/api/announcements/{announcement.id}/distributions",
                           grow, lambda b: len(b["distributions"]))
    assert all(d["sent_by_name"] for d in body["distributions"])
