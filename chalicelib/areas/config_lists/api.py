"""Config lists routes (tool `config-lists`): view to read, manage to change."""
from chalice import Blueprint

from chalicelib.core.http import endpoint

from . import service
from .schemas import ConfigItemCreate, ConfigItemUpdate, ListQuery, Reorder

bp = Blueprint(__name__)


@bp.route("/api/config-lists", methods=["GET"])
@endpoint(tool="config-lists", level="view", query=ListQuery)
def list_config_lists(ctx, query: ListQuery):
    """Config lists (optionally the one with `key`), each with its items ordered by position then label."""
    return {"lists": service.list_lists(ctx, key=query.key)}


@bp.route("/api/config-lists/{key}/items", methods=["GET"])
@endpoint(tool="config-lists", level="view")
def list_config_list_items(ctx, key: str):
    """The items of one list."""
    return {"items": service.list_items(ctx, key=key)}


@bp.route("/api/config-lists/{key}/items", methods=["POST"])
@endpoint(tool="config-lists", level="manage", body=ConfigItemCreate, status=201, errors=(409,))
def create_config_list_item(ctx, key: str, body: ConfigItemCreate):
    """Add an item to a list (position 99 unless given)."""
    return {"item": service.create_item(ctx, key=key, data=body)}


@bp.route("/api/config-lists/{key}/items/{item_id}", methods=["PUT"])
@endpoint(tool="config-lists", level="manage", body=ConfigItemUpdate, errors=(409,))
def update_config_list_item(ctx, key: str, item_id: str, body: ConfigItemUpdate):
    """Update an item; a system item keeps its value; a new default replaces the previous one."""
    return {"item": service.update_item(ctx, key=key, item_id=item_id, data=body)}


@bp.route("/api/config-lists/{key}/reorder", methods=["PUT"])
@endpoint(tool="config-lists", level="manage", body=Reorder)
def reorder_config_list(ctx, key: str, body: Reorder):
    """Set each listed item's position to its index in `item_ids`."""
    service.reorder(ctx, key=key, item_ids=body.item_ids)
    return {"ok": True}


@bp.route("/api/config-lists/{key}/items/{item_id}", methods=["DELETE"])
@endpoint(tool="config-lists", level="manage")
def delete_config_list_item(ctx, key: str, item_id: str):
    """Delete an item (system items cannot be deleted: 400)."""
    service.delete_item(ctx, key=key, item_id=item_id)
    return {"ok": True}
