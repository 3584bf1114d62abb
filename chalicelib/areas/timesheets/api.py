"""Time entries (tool `timesheets`: view reads; update creates, edits, submits and deletes drafts; approve and
reject need update and an approver: a manager, head or executive, or timesheets:manage; manage deletes any status)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, TimeEntryRead, one, paged

from . import service
from .schemas import RejectBody, TimeEntryCreate, TimeEntryListQuery, TimeEntryUpdate

ONE = one("time_entry", TimeEntryRead)

bp = Blueprint(__name__)


@bp.route("/api/time-entries", methods=["GET"])
@endpoint(tool="timesheets", level="view", query=TimeEntryListQuery, response=paged("time_entries", TimeEntryRead))
def list_time_entries(ctx, query: TimeEntryListQuery):
    """List time entries in the caller's scope (filters: user, project, task, budget, status, dates;
    `limit` at most 500 and `offset`, with `total`)"""
    return service.list_entries(ctx, query=query).body("time_entries")


@bp.route("/api/time-entries", methods=["POST"])
@endpoint(tool="timesheets", level="update", body=TimeEntryCreate, status=201, errors=(409,), response=ONE)
def create_time_entry(ctx, body: TimeEntryCreate):
    """Log time (for yourself; managers and above for others)"""
    return {"time_entry": service.create_entry(ctx, data=body)}


@bp.route("/api/time-entries/{entry_id}", methods=["GET"])
@endpoint(tool="timesheets", level="view", response=ONE)
def get_time_entry(ctx, entry_id: str):
    """A time entry"""
    return {"time_entry": service.get_entry(ctx, entry_id=entry_id)}


@bp.route("/api/time-entries/{entry_id}", methods=["PUT"])
@endpoint(tool="timesheets", level="update", body=TimeEntryUpdate, errors=(409,), response=ONE)
def update_time_entry(ctx, entry_id: str, body: TimeEntryUpdate):
    """Edit a draft or rejected time entry"""
    return {"time_entry": service.update_entry(ctx, entry_id=entry_id, data=body)}


@bp.route("/api/time-entries/{entry_id}", methods=["DELETE"])
@endpoint(tool="timesheets", level="update", errors=(409,), response=OkResponse)
def delete_time_entry(ctx, entry_id: str):
    """Delete a draft or rejected time entry (any status with timesheets:manage)"""
    service.delete_entry(ctx, entry_id=entry_id)
    return {"ok": True}


@bp.route("/api/time-entries/{entry_id}/submit", methods=["POST"])
@endpoint(tool="timesheets", level="update", errors=(409,), response=ONE)
def submit_time_entry(ctx, entry_id: str):
    """Submit a draft or rejected time entry for approval"""
    return {"time_entry": service.submit_entry(ctx, entry_id=entry_id)}


@bp.route("/api/time-entries/{entry_id}/approve", methods=["POST"])
@endpoint(tool="timesheets", level="update", errors=(409,), response=ONE)
def approve_time_entry(ctx, entry_id: str):
    """Approve a submitted time entry"""
    return {"time_entry": service.approve_entry(ctx, entry_id=entry_id)}


@bp.route("/api/time-entries/{entry_id}/reject", methods=["POST"])
@endpoint(tool="timesheets", level="update", body=RejectBody, errors=(409,), response=ONE)
def reject_time_entry(ctx, entry_id: str, body: RejectBody):
    """Reject a submitted time entry (optional reason)"""
    return {"time_entry": service.reject_entry(ctx, entry_id=entry_id, reason=body.reason)}
