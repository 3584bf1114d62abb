"""Meetings (tool `meetings`; admin routes: tool `admin`): meetings synchronised from the meeting-notes provider."""
from chalice import Blueprint, Rate

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, one

from . import jobs, service
from .schemas import (ActionItemStatusUpdate, MeetingActionItemRead, MeetingDetailRead, MeetingListQuery, MeetingMatch,
                      MeetingPage, MeetingStatsRead, MeetNotesStatusRead, TranscriptRead)

bp = Blueprint(__name__)


@bp.route("/api/meetings", methods=["GET"])
@endpoint(tool="meetings", level="view", query=MeetingListQuery, response=MeetingPage)
def list_meetings(ctx, query: MeetingListQuery):
    """Meetings the caller may see, newest first (filters, search over title and summary; 20 a page, at most 50)"""
    return service.list_meetings(ctx, query)


@bp.route("/api/meetings/stats", methods=["GET"])
@endpoint(tool="meetings", level="view", response=MeetingStatsRead)
def meeting_stats(ctx):
    """How many of the caller's meetings are not matched to an entity"""
    return service.stats(ctx)


@bp.route("/api/meetings/{meeting_id}", methods=["GET"])
@endpoint(tool="meetings", level="view", response=one("meeting", MeetingDetailRead))
def get_meeting(ctx, meeting_id: str):
    """A meeting with attendees, action items and match info"""
    return {"meeting": service.get_meeting(ctx, meeting_id)}


@bp.route("/api/meetings/{meeting_id}/transcript", methods=["GET"])
@endpoint(tool="meetings", level="view", errors=(502, 503, 504), response=one("transcript", TranscriptRead))
def get_meeting_transcript(ctx, meeting_id: str):
    """A meeting's transcript: fetched from the provider on the first request, cached afterwards"""
    return {"transcript": service.transcript(ctx, meeting_id)}


@bp.route("/api/meetings/{meeting_id}/match", methods=["POST"])
@endpoint(tool="meetings", level="update", body=MeetingMatch, response=one("meeting", MeetingDetailRead))
def match_meeting(ctx, meeting_id: str, body: MeetingMatch):
    """Match a meeting to a project, company, contact or deal (which must exist)"""
    return {"meeting": service.match(ctx, meeting_id, data=body)}


@bp.route("/api/meetings/{meeting_id}/unmatch", methods=["POST"])
@endpoint(tool="meetings", level="update", response=one("meeting", MeetingDetailRead))
def unmatch_meeting(ctx, meeting_id: str):
    """Clear a meeting's matched entity"""
    return {"meeting": service.unmatch(ctx, meeting_id)}


@bp.route("/api/meetings/{meeting_id}/action-items/{action_id}/status", methods=["POST"])
@endpoint(tool="meetings", level="update", body=ActionItemStatusUpdate,
          response=one("action_item", MeetingActionItemRead))
def set_meeting_action_item_status(ctx, meeting_id: str, action_id: str, body: ActionItemStatusUpdate):
    """Set a meeting action item's status: pending, done or dismissed"""
    return {"action_item": service.set_action_item_status(ctx, meeting_id, action_id, data=body)}


@bp.route("/api/meetings/{meeting_id}/reanalyse", methods=["POST"])
@endpoint(tool="meetings", level="update", status=202, errors=(429,), response=OkResponse)
def reanalyse_meeting(ctx, meeting_id: str):
    """Re-run the AI categorisation of a meeting (202: it runs after the response)"""
    service.reanalyse(ctx, meeting_id)
    return {"ok": True}


@bp.route("/api/admin/connections/meetnotes/sync", methods=["POST"])
@endpoint(tool="admin", level="update", status=202, response=OkResponse)
def sync_meeting_notes(ctx):
    """Sync meeting notes now (202: the sync runs after the response)"""
    service.request_sync(ctx)
    return {"ok": True}


@bp.route("/api/admin/connections/meetnotes/status", methods=["GET"])
@endpoint(tool="admin", level="view", response=MeetNotesStatusRead)
def meeting_notes_status(ctx):
    """The meeting-notes connection: configured, last sync, interval, enabled, notes and unmatched counts"""
    return service.sync_status(ctx)


@bp.schedule(Rate(5, unit=Rate.MINUTES))
def meetings_sync(event):
    """Sync meeting notes when due (every MEETNOTES_SYNC_INTERVAL_MINUTES, checked every 5 minutes)."""
    return jobs.scheduled_sync()
