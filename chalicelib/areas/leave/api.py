"""Leave (base /api/leave, tool `leave`): leave types and balances from the ledger, requests with the approval
chain, integrations on approval, and the pending count."""
from chalice import Blueprint, Rate

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import many, one

from . import jobs, service, service_cache
from .schemas import (LeaveBalanceRead, LeaveListQuery, LeaveReject, LeaveRequestCreate, LeaveRequestDetail,
                      LeaveRequestRead, LeaveTypeRead, PendingCountRead)

bp = Blueprint(__name__)
BASE = "/api/leave"
LEDGER = (502, 503, 504)  # the payroll ledger unreachable, refusing, not configured, or too slow


@bp.route(f"{BASE}/types", methods=["GET"])
@endpoint(tool="leave", level="view", errors=LEDGER, response=many("types", LeaveTypeRead))
def list_leave_types(ctx):
    """Leave types cached from the ledger (refreshed when older than an hour)"""
    return {"types": service_cache.list_types(ctx)}


@bp.route(f"{BASE}/balances", methods=["GET"])
@endpoint(tool="leave", level="view", errors=(409, *LEDGER), response=many("balances", LeaveBalanceRead))
def list_leave_balances(ctx):
    """The caller's leave balances (cached for an hour; 409 without a ledger employee mapping)"""
    return {"balances": service_cache.list_balances(ctx)}


@bp.route(f"{BASE}/balances/refresh", methods=["POST"])
@endpoint(tool="leave", level="update", errors=LEDGER, response=many("balances", LeaveBalanceRead))
def refresh_leave_balances(ctx):
    """The caller's leave balances fetched from the ledger now (bypasses the cache)"""
    return {"balances": service_cache.refresh_balances(ctx)}


@bp.route(f"{BASE}/requests", methods=["GET"])
@endpoint(tool="leave", level="view", query=LeaveListQuery, response=many("requests", LeaveRequestRead))
def list_leave_requests(ctx, query: LeaveListQuery):
    """Leave requests: tab `mine` (default), `pending` (awaiting your approval) or `all` (head and executive)"""
    return {"requests": service.list_requests(ctx, query)}


@bp.route(f"{BASE}/requests/{{leave_request_id}}", methods=["GET"])
@endpoint(tool="leave", level="view", response=LeaveRequestDetail)
def get_leave_request(ctx, leave_request_id: str):
    """A leave request with its history"""
    return service.get_request(ctx, request_id=leave_request_id)


@bp.route(f"{BASE}/requests", methods=["POST"])
@endpoint(tool="leave", level="update", body=LeaveRequestCreate, status=201, response=one("request", LeaveRequestRead))
def create_leave_request(ctx, body: LeaveRequestCreate):
    """Submit a leave request (its first status depends on the submitter's access level)"""
    return {"request": service.create_request(ctx, data=body)}


@bp.route(f"{BASE}/requests/{{leave_request_id}}/approve", methods=["POST"])
@endpoint(tool="leave", level="update", response=one("request", LeaveRequestRead))
def approve_leave_request(ctx, leave_request_id: str):
    """Approve the request's current step (squad manager or executive, then executive)"""
    return {"request": service.approve(ctx, request_id=leave_request_id)}


@bp.route(f"{BASE}/requests/{{leave_request_id}}/reject", methods=["POST"])
@endpoint(tool="leave", level="update", body=LeaveReject, response=one("request", LeaveRequestRead))
def reject_leave_request(ctx, leave_request_id: str, body: LeaveReject):
    """Reject a pending request with a reason"""
    return {"request": service.reject(ctx, request_id=leave_request_id, data=body)}


@bp.route(f"{BASE}/requests/{{leave_request_id}}/cancel", methods=["POST"])
@endpoint(tool="leave", level="update", response=one("request", LeaveRequestRead))
def cancel_leave_request(ctx, leave_request_id: str):
    """Cancel a pending or approved request (its owner or an executive); approved: integrations reversed"""
    return {"request": service.cancel(ctx, request_id=leave_request_id)}


@bp.route(f"{BASE}/requests/{{leave_request_id}}/retry-integrations", methods=["POST"])
@endpoint(tool="leave", level="manage", access=("executive",), response=one("request", LeaveRequestRead))
def retry_leave_integrations(ctx, leave_request_id: str):
    """Re-run the integrations of an approved request that failed or were skipped (executive)"""
    return {"request": service.retry_integrations(ctx, request_id=leave_request_id)}


@bp.route(f"{BASE}/pending-count", methods=["GET"])
@endpoint(tool="leave", level="view", response=PendingCountRead)
def leave_pending_count(ctx):
    """How many requests await the caller's approval"""
    return {"count": service.pending_count(ctx)}


@bp.schedule(Rate(1, unit=Rate.HOURS))
def leave_cache_refresh(event):
    """Refresh leave types and balances from the ledger when older than an hour."""
    return jobs.cache_refresh()


@bp.schedule(Rate(15, unit=Rate.MINUTES))
def leave_reverse_abandoned(event):
    """Reverse what cancelled requests have left: a stopped run's, a failed or never-run reversal (capped)."""
    return jobs.reverse_abandoned()
