"""Config lists routes (tool `config-lists`): view to read, manage to change."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, many, one

from . import service
from .schemas import (ConfigItemCreate, ConfigItemUpdate, ConfigListItemRead, ConfigListListQuery, ConfigListRead,
                      Reorder)

bp = Blueprint(__name__)


@bp.route("/api/config-lists", methods=["GET"])
@endpoint(tool="config-lists", level="view", query=ConfigListListQuery, response=many("lists", ConfigListRead))
def list_config_lists(ctx, query: ConfigListListQuery):
    """Config lists (optionally the one with `key`), each with its items ordered by position then label."""
    return {"lists": service.list_lists(ctx, key=query.key)}


@bp.route("/api/config-lists/{key}/items", methods=["GET"])
@endpoint(tool="config-lists", level="view", errors=(404,), response=many("items", ConfigListItemRead))
def list_config_list_items(ctx, key: str):
    """The items of one list (at most 500: a list holds no more)."""
    return {"items": service.list_items(ctx, key=key)}


@bp.route("/api/config-lists/{key}/items", methods=["POST"])
@endpoint(tool="config-lists", level="manage", body=ConfigItemCreate, status=201, errors=(404, 409),
          response=one("item", ConfigListItemRead))
def create_config_list_item(ctx, key: str, body: ConfigItemCreate):
    """Add an item to a list (position 99 unless given; at most 500 items per list)."""
    return {"item": service.create_item(ctx, key=key, data=body)}


@bp.route("/api/config-lists/{key}/items/{item_id}", methods=["PUT"])
@endpoint(tool="config-lists", level="manage", body=ConfigItemUpdate, errors=(404, 409),
          response=one("item", ConfigListItemRead))
def update_config_list_item(ctx, key: str, item_id: str, body: ConfigItemUpdate):
    """Update an item; a system item keeps its value; a new default replaces the previous one."""
    return {"item": service.update_item(ctx, key=key, item_id=item_id, data=body)}


@bp.route("/api/config-lists/{key}/reorder", methods=["PUT"])
@endpoint(tool="config-lists", level="manage", body=Reorder, errors=(404,), response=OkResponse)
def reorder_config_list(ctx, key: str, body: Reorder):
    """Set each listed item's position to its index in `item_ids`."""
    service.reorder(ctx, key=key, item_ids=body.item_ids)
    return {"ok": True}


@bp.route("/api/config-lists/{key}/items/{item_id}", methods=["DELETE"])
@endpoint(tool="config-lists", level="manage", errors=(404, 409), response=OkResponse)
def delete_config_list_item(ctx, key: str, item_id: str):
    """Delete an item (system items cannot be deleted: 400; a task status, task priority or service type in use:
    409)."""
    service.delete_item(ctx, key=key, item_id=item_id)
    return {"ok": True}
