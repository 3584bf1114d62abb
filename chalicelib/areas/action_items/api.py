"""Action items and the action centre (tool `action-centre`: view reads, update writes)."""
from chalice import Blueprint, Rate

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, one

from . import jobs, service
from .schemas import (ActionCentreQuery, ActionCentreRead, ActionItemCreate, ActionItemListQuery, ActionItemPage, ActionItemRead, ActionItemUpdate,
                      ActionItemCountsRead, ActionItemPreferencesRead, ActionItemPreferencesUpdate)

bp = Blueprint(__name__)


@bp.route("/api/action-items", methods=["GET"])
@endpoint(tool="action-centre", level="view", query=ActionItemListQuery, response=ActionItemPage)
def list_action_items(ctx, query: ActionItemListQuery):
    """The caller's action items (filters; `page`, `limit` default 50 at most 100), most urgent first"""
    return service.list_items(ctx, query)


@bp.route("/api/action-items/counts", methods=["GET"])
@endpoint(tool="action-centre", level="view", response=ActionItemCountsRead)
def action_item_counts(ctx):
    """Open items by urgency and by source module"""
    return service.counts(ctx)



@bp.route("/api/action-items/centre", methods=["GET"])
@endpoint(tool="action-centre", level="view", query=ActionCentreQuery, errors=(404,), response=ActionCentreRead)
def get_action_centre(ctx, query: ActionCentreQuery):
    """The action centre: items, counts, preferences, the sprint and its board, in one payload"""
    return service.centre(ctx, query, ActionItemListQuery())


@bp.route("/api/action-items/preferences", methods=["GET"])
@endpoint(tool="action-centre", level="view", response=ActionItemPreferencesRead)
def get_action_item_preferences(ctx):
    """The caller's per-module preferences (empty: role defaults)"""
    return {"preferences": service.preferences(ctx)}


@bp.route("/api/action-items/preferences", methods=["PUT"])
@endpoint(tool="action-centre", level="update", body=ActionItemPreferencesUpdate, response=OkResponse)
def update_action_item_preferences(ctx, body: ActionItemPreferencesUpdate):
    """Replace the caller's per-module preferences"""
    service.set_preferences(ctx, data=body)
    return {"ok": True}


@bp.route("/api/action-items", methods=["POST"])
@endpoint(tool="action-centre", level="update", body=ActionItemCreate, status=201,
          response=one("action_item", ActionItemRead))
def create_action_item(ctx, body: ActionItemCreate):
    """Create a manual action item"""
    return {"action_item": service.create_item(ctx, data=body)}


@bp.route("/api/action-items/{action_item_id}", methods=["PATCH"])
@endpoint(tool="action-centre", level="update", body=ActionItemUpdate, response=one("action_item", ActionItemRead))
def update_action_item(ctx, action_item_id: str, body: ActionItemUpdate):
    """Update an action item"""
    return {"action_item": service.update_item(ctx, item_id=action_item_id, data=body)}


@bp.route("/api/action-items/{action_item_id}/complete", methods=["POST"])
@endpoint(tool="action-centre", level="update", response=OkResponse)
def complete_action_item(ctx, action_item_id: str):
    """Complete an action item"""
    service.complete_item(ctx, item_id=action_item_id)
    return {"ok": True}


@bp.route("/api/action-items/{action_item_id}", methods=["DELETE"])
@endpoint(tool="action-centre", level="update", response=OkResponse)
def delete_action_item(ctx, action_item_id: str):
    """Delete a manual action item (its creator, or action-centre:manage)"""
    service.delete_item(ctx, item_id=action_item_id)
    return {"ok": True}


@bp.schedule(Rate(1, unit=Rate.HOURS))
def action_items_urgency(event):
    """Recompute open items' urgency from today in ORG_TIMEZONE (a new day is seen within the hour)."""
    return jobs.refresh_urgency()


@bp.schedule(Rate(1, unit=Rate.HOURS))
def action_items_unstar_retry(event):
    """Ask the actions agent again to unstar items whose unstar failed over an hour ago (at most 5 tries an item)."""
    return jobs.retry_unstar()
