"""Announcements (tool `announcements`): company announcements, read receipts and distribution."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, many, one

from . import service
from .schemas import (AnnouncementCreate, AnnouncementDetail, AnnouncementListQuery, AnnouncementRead,
                      AnnouncementUpdate, DistributeRequest, DistributeResultsRead, DistributionRead, UnreadCountRead)

bp = Blueprint(__name__)


@bp.route("/api/announcements", methods=["GET"])
@endpoint(tool="announcements", level="view", query=AnnouncementListQuery,
          response=many("announcements", AnnouncementRead))
def list_announcements(ctx, query: AnnouncementListQuery):
    """Announcements newest first (optionally one category), with author and whether the caller read each"""
    return {"announcements": service.list_announcements(ctx, query)}


@bp.route("/api/announcements/unread-count", methods=["GET"])
@endpoint(tool="announcements", level="view", response=UnreadCountRead)
def announcements_unread_count(ctx):
    """How many announcements the caller has not read"""
    return {"unread_count": service.unread_count(ctx)}


@bp.route("/api/announcements/{announcement_id}", methods=["GET"])
@endpoint(tool="announcements", level="view", response=AnnouncementDetail)
def get_announcement(ctx, announcement_id: str):
    """One announcement; its read receipts for head and executive only"""
    return service.get_announcement(ctx, announcement_id)


@bp.route("/api/announcements", methods=["POST"])
@endpoint(tool="announcements", level="update", access=service.WRITER_ACCESS, body=AnnouncementCreate, status=201,
          response=one("announcement", AnnouncementRead))
def create_announcement(ctx, body: AnnouncementCreate):
    """Publish an announcement (head and executive); staff are notified"""
    return {"announcement": service.create_announcement(ctx, data=body)}


@bp.route("/api/announcements/{announcement_id}", methods=["PUT"])
@endpoint(tool="announcements", level="update", body=AnnouncementUpdate, response=one("announcement", AnnouncementRead))
def update_announcement(ctx, announcement_id: str, body: AnnouncementUpdate):
    """Edit an announcement (its author or an executive)"""
    return {"announcement": service.update_announcement(ctx, announcement_id=announcement_id, data=body)}


@bp.route("/api/announcements/{announcement_id}", methods=["DELETE"])
@endpoint(tool="announcements", level="manage", access=("executive",), response=OkResponse)
def delete_announcement(ctx, announcement_id: str):
    """Delete an announcement with its read receipts (executive)"""
    service.delete_announcement(ctx, announcement_id=announcement_id)
    return {"ok": True}


@bp.route("/api/announcements/{announcement_id}/read", methods=["POST"])
@endpoint(tool="announcements", level="view", response=OkResponse)
def read_announcement(ctx, announcement_id: str):
    """Mark an announcement read by the caller (idempotent)"""
    service.mark_read(ctx, announcement_id=announcement_id)
    return {"ok": True}


@bp.route("/api/announcements/{announcement_id}/distributions", methods=["GET"])
@endpoint(tool="announcements", level="view", response=many("distributions", DistributionRead))
def list_announcement_distributions(ctx, announcement_id: str):
    """Where an announcement was sent, newest first, with each channel's status"""
    return {"distributions": service.distributions(ctx, announcement_id=announcement_id)}


@bp.route("/api/announcements/{announcement_id}/distribute", methods=["POST"])
@endpoint(tool="announcements", level="update", body=DistributeRequest, response=DistributeResultsRead)
def distribute_announcement(ctx, announcement_id: str, body: DistributeRequest):
    """Send an announcement to team chat, the team calendar and e-mail (author or executive); each channel's outcome"""
    return service.distribute(ctx, announcement_id=announcement_id, data=body)
