"""Connections (executive access level; decisions.md section 5 paths)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, many, one

from . import service
from .schemas import (AuthorizeUrl, CalendarStatus, ChatSave, ConnectionList, ConnectionRead, LedgerCallback,
                      UserMappingRead, UserMappingSet, PlannerSave, UserMappingSyncRead)

bp = Blueprint(__name__)
EXEC = ("executive",)
PROVIDER = (502, 503, 504)  # the provider checked on a save or a callback: unreachable, not configured, too slow


@bp.route("/api/admin/connections", methods=["GET"])
@endpoint(access=EXEC, response=ConnectionList)
def list_connections(ctx):
    """The stored connections (no secrets)"""
    return {"connections": service.list_connections(ctx)}


@bp.route("/api/admin/connections/ledger/authorize-url", methods=["GET"])
@endpoint(access=EXEC, response=AuthorizeUrl)
def ledger_authorize_url(ctx):
    """The ledger's consent page (open in a popup), with a one-use state valid 10 minutes"""
    return {"url": service.ledger_authorize_url(ctx)}


@bp.route("/api/admin/connections/ledger/callback", methods=["POST"])
@endpoint(access=EXEC, body=LedgerCallback, errors=PROVIDER, response=one("connection", ConnectionRead))
def ledger_callback(ctx, body: LedgerCallback):
    """Exchange the authorisation code (with its state) for tokens and the tenant; stored encrypted"""
    return {"connection": service.ledger_callback(ctx, code=body.code, state=body.state)}


@bp.route("/api/admin/connections/ledger", methods=["DELETE"])
@endpoint(access=EXEC, response=OkResponse)
def ledger_disconnect(ctx):
    """Remove the stored ledger connection"""
    service.disconnect(ctx, "ledger")
    return {"ok": True}


@bp.route("/api/admin/connections/planner", methods=["PUT"])
@endpoint(access=EXEC, body=PlannerSave, errors=PROVIDER, response=one("connection", ConnectionRead))
def planner_save(ctx, body: PlannerSave):
    """Save the planner API token (checked with the planner first; 400 with its message when refused)"""
    return {"connection": service.save_planner(ctx, api_token=body.api_token)}


@bp.route("/api/admin/connections/planner", methods=["DELETE"])
@endpoint(access=EXEC, response=OkResponse)
def planner_disconnect(ctx):
    """Remove the stored planner connection"""
    service.disconnect(ctx, "planner")
    return {"ok": True}


@bp.route("/api/admin/connections/chat", methods=["PUT"])
@endpoint(access=EXEC, body=ChatSave, errors=PROVIDER, response=one("connection", ConnectionRead))
def chat_save(ctx, body: ChatSave):
    """Save the chat bot token (checked with auth.test) and channel"""
    return {"connection": service.save_chat(ctx, bot_token=body.bot_token, channel_id=body.channel_id)}


@bp.route("/api/admin/connections/chat", methods=["DELETE"])
@endpoint(access=EXEC, response=OkResponse)
def chat_disconnect(ctx):
    """Remove the stored chat connection"""
    service.disconnect(ctx, "chat")
    return {"ok": True}


@bp.route("/api/admin/connections/calendar/status", methods=["GET"])
@endpoint(access=EXEC, response=CalendarStatus)
def connections_calendar_status(ctx):
    """Whether the calendar is configured (through settings, not stored)"""
    return {"configured": service.calendar_status(ctx)}


@bp.route("/api/admin/connections/user-mappings", methods=["GET"])
@endpoint(access=EXEC, response=many("mappings", UserMappingRead))
def list_user_mappings(ctx):
    """Every active user with their ledger and planner ids"""
    return {"mappings": service.list_mappings(ctx)}


@bp.route("/api/admin/connections/user-mappings/sync", methods=["POST"])
@endpoint(access=EXEC, response=UserMappingSyncRead)
def sync_user_mappings(ctx):
    """Match users to ledger employees and planner people by e-mail"""
    return service.sync_mappings(ctx)


@bp.route("/api/admin/connections/user-mappings/{user_id}", methods=["PUT"])
@endpoint(access=EXEC, body=UserMappingSet, response=one("mapping", UserMappingRead))
def set_user_mapping(ctx, user_id: str, body: UserMappingSet):
    """Set a user's ledger and planner ids by hand"""
    return {"mapping": service.set_mapping(ctx, user_id=user_id, data=body)}
