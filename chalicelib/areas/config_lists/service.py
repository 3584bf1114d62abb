"""Config lists: administrator-managed lists whose items give labels, colours and stages elsewhere.

Rules (document 1, Config lists): items ordered by position then label; one default per list
(setting `is_default` clears the previous default first); system items keep their value and cannot
be deleted (400); reorder sets position = array index. Our additions: a value is unique within its
list ignoring case (409), an update with no field is 400, reorder accepts a subset of the list's items, a task status, task
priority or service type still in use is not deleted (409; session 25).
"""
from __future__ import annotations

from sqlalchemy import func, select, update

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict, not_found
from chalicelib.core.locks import lock_row, reorder as reorder_rows
from chalicelib.core.models import ConfigList, ConfigListItem

from . import queries
from .queries import ITEM_LIMIT, item_count, item_record, load_config_list, load_config_list_item
from .schemas import ConfigItemCreate, ConfigItemUpdate


def list_lists(ctx, *, key: str | None = None) -> list[dict]:
    """Every list (or the one with `key`) with its items: two queries whatever the row count."""
    return queries.lists_with_items(ctx.db, key)


def list_items(ctx, *, key: str) -> list[dict]:
    config_list = load_config_list(ctx, key)
    return [item_record(item) for item in queries.list_items(ctx.db, config_list.id)]


def _value_taken(db, list_id: str, value: str, *, except_id: str | None = None) -> str | None:
    """The value of another item of the list that is `value` ignoring case, or None (session 32, "labels" audit:
    `urgent` and `Urgent` were two items of one list, which staff read as one value and other areas find by it)."""
    stmt = select(ConfigListItem.value).where(ConfigListItem.list_id == list_id,
                                              func.lower(ConfigListItem.value) == value.lower())
    if except_id:
        stmt = stmt.where(ConfigListItem.id != except_id)
    return db.scalar(stmt.limit(1))


def _clear_default(db, list_id: str, *, except_id: str | None = None) -> None:
    stmt = update(ConfigListItem).where(ConfigListItem.list_id == list_id, ConfigListItem.is_default.is_(True))
    if except_id:
        stmt = stmt.where(ConfigListItem.id != except_id)
    db.execute(stmt.values(is_default=False).execution_options(synchronize_session="fetch"))


def create_item(ctx, *, key: str, data: ConfigItemCreate) -> dict:
    config_list = load_config_list(ctx, key)
    values = data.model_dump()
    lock_row(ctx.db, ConfigList, config_list.id, missing="Config list")  # concurrent creates cannot pass the cap together
    if item_count(ctx.db, config_list.id) >= ITEM_LIMIT:
        raise Conflict(f"The list {key} already holds {ITEM_LIMIT} items, the most a list may hold")
    if (taken := _value_taken(ctx.db, config_list.id, values["value"])) is not None:
        raise Conflict(f"The list {key} already has an item with value {taken}")
    if values["is_default"]:
        _clear_default(ctx.db, config_list.id)
    item = ConfigListItem(list_id=config_list.id, is_system=False, **values)
    ctx.db.add(item)
    ctx.db.flush()
    history.record(ctx.db, entity_type="config_list_item", entity_id=item.id, action="created",
                   actor_id=ctx.user_id, changes={"list": key, "label": item.label, "value": item.value})
    return item_record(item)


def update_item(ctx, *, key: str, item_id: str, data: ConfigItemUpdate) -> dict:
    config_list = load_config_list(ctx, key)
    item = load_config_list_item(ctx, config_list, item_id)
    values = data.model_dump(exclude_unset=True)
    if not values:
        raise BadRequest("No fields to update")
    if values.get("is_default") or "value" in values:
        # one default and unique values per list: checked and written under the list's lock, as create does
        lock_row(ctx.db, ConfigList, config_list.id, missing="Config list")
    # then the item's row (the same order as every holder of both; not the list's): its values re-read, and an
    # item deleted meanwhile is a 404 rather than an UPDATE matching no row
    item = ctx.db.get(ConfigListItem, item.id, with_for_update=True, populate_existing=True)
    if item is None:
        raise not_found("Config list item")
    if "value" in values and values["value"] != item.value:
        if item.is_system:
            raise BadRequest("The value of a system item cannot be changed",
                             details=[{"field": "value", "message": "read-only on system items"}])
        if (taken := _value_taken(ctx.db, config_list.id, values["value"], except_id=item.id)) is not None:
            raise Conflict(f"The list {key} already has an item with value {taken}")
    if values.get("is_default"):
        _clear_default(ctx.db, config_list.id, except_id=item.id)
    before = {name: getattr(item, name) for name in values}
    for name, value in values.items():
        setattr(item, name, value)
    ctx.db.flush()
    history.record_update(ctx.db, entity_type="config_list_item", entity_id=item.id, actor_id=ctx.user_id,
                          before=before, after={name: getattr(item, name) for name in values})
    return item_record(item)


def reorder(ctx, *, key: str, item_ids: list[str]) -> None:
    config_list = load_config_list(ctx, key)
    lock_row(ctx.db, ConfigList, config_list.id, missing="Config list")  # one reorder at a time: the result is exactly one request's order
    reorder_rows(ctx.db, ConfigListItem, ConfigListItem.position, item_ids,
                 parent=ConfigListItem.list_id == config_list.id, field="item_ids", what=f"items of the list {key}")


def _uses(key: str, item_id: str) -> dict:
    """Scalar counts of the records that name the item where clearing the reference would change what they are
    (session 25, config values audit): a task status (a task left with none counts as open: completed tasks
    reopened), a task priority (the service level rules for it were deleted with it, and the tasks' service levels
    read their hours through it), a service type (budget, invoice and pricing lines keep the id with no foreign key,
    and the ledger's account mapping went with it). Other lists' items (deal stages, project types, task types and
    phases, custom lists) are labels: their records are left without one, as before. Each area named is imported
    only for a delete of one of its lists' items."""
    uses = {}
    if key.startswith("task_"):
        from chalicelib.areas.tasks import service as tasks_service

        if key in ("task_status", "task_priority"):
            uses["tasks"] = tasks_service.config_item_tasks(key, item_id)
    if key == "task_priority":
        from chalicelib.areas.sla import service as sla_service

        uses.update(sla_service.priority_uses(item_id))
    if key == "service_type":
        from chalicelib.areas.budgets import service as budgets_service
        from chalicelib.areas.invoices import service as invoices_service
        from chalicelib.areas.proposals import service as proposals_service

        uses.update({"budget lines": budgets_service.service_type_uses(item_id),
                     "invoice lines": invoices_service.service_type_uses(item_id),
                     "proposal pricing items": proposals_service.service_type_uses(item_id)})
    return uses


def _refuse_if_used(ctx, key: str, item: ConfigListItem) -> None:
    """409 naming what still uses the item (`_uses`; one statement), nothing deleted: the records are moved to
    another item first. The item's row is locked before the count, so a write that names it with a foreign key
    (tasks, SLA rules) waits for the delete's answer."""
    uses = _uses(key, item.id)
    if not uses:
        return
    lock_row(ctx.db, ConfigListItem, item.id, missing="Config list item")
    counts = ctx.db.execute(select(*(count.label(f"c{i}") for i, count in enumerate(uses.values())))).one()
    named = [f"{int(n)} {what}" for what, n in zip(uses, counts) if n]
    if named:
        raise Conflict(f"The item {item.label!r} is in use ({', '.join(named)}): give them another item first",
                       details=[{"field": "item_id", "message": f"in use by {', '.join(named)}"}])


def delete_item(ctx, *, key: str, item_id: str) -> None:
    config_list = load_config_list(ctx, key)
    item = load_config_list_item(ctx, config_list, item_id)
    if item.is_system:
        raise BadRequest("System items cannot be deleted")
    _refuse_if_used(ctx, key, item)
    ctx.db.delete(item)
    ctx.db.flush()
    history.record(ctx.db, entity_type="config_list_item", entity_id=item_id, action="deleted",
                   actor_id=ctx.user_id, changes={"list": key, "label": item.label, "value": item.value})
