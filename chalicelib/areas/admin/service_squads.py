"""Squads: name, manager (the squad manager of its members), chat channel, active member count."""
from __future__ import annotations

from sqlalchemy import func, select, update
from sqlalchemy.orm import aliased

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, not_found
from chalicelib.core.models import Squad, User
from chalicelib.core.serialize import row_dict

from .schemas import SquadCreate, SquadUpdate

LIST_LIMIT = 500
SQUAD_FIELDS = ("id", "name", "manager_id", "chat_channel_id", "created_at")
EDITABLE = ("name", "manager_id", "chat_channel_id")


def _select():
    manager = aliased(User)
    members = (
        select(User.squad_id.label("squad_id"), func.count(User.id).label("member_count"))
        .where(User.is_active.is_(True), User.squad_id.is_not(None))
        .group_by(User.squad_id)
        .subquery()
    )
    return (
        select(Squad, manager.name, func.coalesce(members.c.member_count, 0))
        .outerjoin(manager, manager.id == Squad.manager_id)
        .outerjoin(members, members.c.squad_id == Squad.id)
    )


def _record(squad: Squad, manager_name: str | None, member_count: int) -> dict:
    return {**row_dict(squad, SQUAD_FIELDS), "manager_name": manager_name, "member_count": int(member_count or 0)}


def _get_record(db, squad_id: str) -> dict:
    row = db.execute(_select().where(Squad.id == squad_id)).first()
    if row is None:
        raise not_found("Squad")
    return _record(*row)


def list_squads(ctx) -> list[dict]:
    stmt = _select().order_by(func.lower(Squad.name), Squad.id).limit(LIST_LIMIT)
    return [_record(*row) for row in ctx.db.execute(stmt)]


def _check_manager(db, manager_id: str | None) -> None:
    if manager_id and db.get(User, manager_id) is None:
        raise BadRequest("manager_id does not match a user", details=[{"field": "manager_id", "message": "unknown user"}])


def create_squad(ctx, *, data: SquadCreate) -> dict:
    values = data.model_dump()
    _check_manager(ctx.db, values.get("manager_id"))
    squad = Squad(**values)
    ctx.db.add(squad)
    ctx.db.flush()
    history.record(ctx.db, entity_type="squad", entity_id=squad.id, action="created", actor_id=ctx.user_id,
                   changes={key: value for key, value in values.items() if value is not None})
    return _get_record(ctx.db, squad.id)


def update_squad(ctx, *, squad_id: str, data: SquadUpdate) -> dict:
    squad = ctx.db.get(Squad, squad_id)
    if squad is None:
        raise not_found("Squad")
    values = data.model_dump(exclude_unset=True)
    _check_manager(ctx.db, values.get("manager_id"))
    before = {key: getattr(squad, key) for key in EDITABLE}
    for key, value in values.items():
        setattr(squad, key, value)
    ctx.db.flush()
    changes = history.diff(before, {key: getattr(squad, key) for key in EDITABLE})
    if changes:
        history.record(ctx.db, entity_type="squad", entity_id=squad.id, action="updated", actor_id=ctx.user_id,
                       changes=changes)
    return _get_record(ctx.db, squad.id)


def delete_squad(ctx, *, squad_id: str) -> None:
    squad = ctx.db.get(Squad, squad_id)
    if squad is None:
        raise not_found("Squad")
    # Members stay, without a squad (the foreign key says the same; done explicitly for every backend).
    ctx.db.execute(update(User).where(User.squad_id == squad.id).values(squad_id=None).execution_options(
        synchronize_session="fetch"))
    ctx.db.delete(squad)
    ctx.db.flush()
    history.record(ctx.db, entity_type="squad", entity_id=squad_id, action="deleted", actor_id=ctx.user_id,
                   changes={"name": {"from": squad.name, "to": None}})
