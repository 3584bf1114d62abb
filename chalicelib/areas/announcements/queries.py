"""The announcements area's leaf module: scope, `load_announcement`, the record builders and read queries.

Announcements are company-wide: every holder of announcements:view sees every announcement (document 3),
so the scope clause is None.
"""
from __future__ import annotations

from sqlalchemy import and_, select
from sqlalchemy.orm import aliased

from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT, visible_row
from chalicelib.core.readers import seen_by
from chalicelib.core.serialize import row_dict
from chalicelib.core.timeutil import iso

from .models import Announcement, AnnouncementDistribution, AnnouncementReceipt

FIELDS = ("id", "title", "content", "category", "attachment_url", "attachment_name", "author_id", "created_at",
          "updated_at")
DISTRIBUTION_FIELDS = ("id", "announcement_id", "channel", "status", "external_id", "error", "sent_by", "sent_at")


def visible(principal):
    """Every holder of announcements:view sees every announcement (None: no limit)."""
    return None


def readers_select(author_id: str):
    """The active users but the author who hold announcements:view as their effective permissions
    (core.permissions.holders_select), in one statement whatever their number: those who may open a new
    announcement."""
    from chalicelib.core.permissions import holders_select

    return holders_select("announcements", "view").where(User.is_active.is_(True), User.id != author_id)


def load_announcement(ctx, announcement_id: str) -> Announcement:
    return visible_row(ctx.db, Announcement, announcement_id, visible(ctx.principal), "Announcement")


def announcement_seen_by(db, announcement_id: str, principals) -> set[str]:
    """Which of these principals see the announcement: its scope clause as each of them, in one statement (a
    UNION ALL; none for no principals). The notes area asks it of the users a note mentions."""
    return seen_by(db, Announcement, announcement_id, principals, visible)


_AUTHOR = aliased(User, name="author")  # once per process: an alias proxies its table's columns on first use


def announcement_select(user_id: str):
    """(Announcement, author name, author picture, the caller's read_at) rows."""
    author = _AUTHOR
    return (select(Announcement, author.name, author.picture, AnnouncementReceipt.read_at)
            .outerjoin(author, author.id == Announcement.author_id)
            .outerjoin(AnnouncementReceipt, and_(AnnouncementReceipt.announcement_id == Announcement.id,
                                                 AnnouncementReceipt.user_id == user_id)))


def announcement_record(row) -> dict:
    announcement, name, picture, read_at = row
    return {**row_dict(announcement, FIELDS), "author_name": name, "author_picture": picture,
            "is_read": 1 if read_at is not None else 0}


def list_records(db, user_id: str, category: str | None) -> list[dict]:
    """Newest first, capped at LIST_LIMIT; one statement."""
    stmt = announcement_select(user_id)
    if category:
        stmt = stmt.where(Announcement.category == category)
    stmt = stmt.order_by(Announcement.created_at.desc(), Announcement.id.desc()).limit(LIST_LIMIT)
    return [announcement_record(row) for row in db.execute(stmt)]


def one_record(db, user_id: str, announcement_id: str) -> dict:
    return announcement_record(db.execute(announcement_select(user_id).where(Announcement.id == announcement_id)).one())


def receipt_records(db, announcement_id: str) -> list[dict]:
    rows = db.execute(select(AnnouncementReceipt.user_id, User.name, AnnouncementReceipt.read_at)
                      .outerjoin(User, User.id == AnnouncementReceipt.user_id)
                      .where(AnnouncementReceipt.announcement_id == announcement_id)
                      .order_by(AnnouncementReceipt.read_at, AnnouncementReceipt.user_id).limit(LIST_LIMIT))
    return [{"user_id": user_id, "user_name": name, "read_at": iso(read_at)} for user_id, name, read_at in rows]


def distribution_records(db, announcement_id: str) -> list[dict]:
    """Newest first, capped at LIST_LIMIT; one statement."""
    rows = db.execute(select(AnnouncementDistribution, User.name)
                      .outerjoin(User, User.id == AnnouncementDistribution.sent_by)
                      .where(AnnouncementDistribution.announcement_id == announcement_id)
                      .order_by(AnnouncementDistribution.sent_at.desc(), AnnouncementDistribution.channel,
                                AnnouncementDistribution.id)
                      .limit(LIST_LIMIT))
    return [{**row_dict(dist, DISTRIBUTION_FIELDS), "sent_by_name": name} for dist, name in rows]
