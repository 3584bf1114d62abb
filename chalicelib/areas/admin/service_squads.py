"""Squads: name, manager (the squad manager of its members), chat channel, active member count."""
from __future__ import annotations

from sqlalchemy import func, update

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict, Forbidden
from chalicelib.core.locks import lock_key, lock_row
from chalicelib.core.models import Squad, User
from chalicelib.core.query import LIST_LIMIT

from .queries import get_squad_record, squad_count, squad_record, squad_select, visible
from .schemas import SquadCreate, SquadUpdate

EDITABLE = ("name", "manager_id", "chat_channel_id")
# At most LIST_LIMIT (500) squads (409 beyond), so the squad list answers them all.
SQUAD_LIMIT = LIST_LIMIT


def list_squads(ctx) -> list[dict]:
    stmt = squad_select().order_by(func.lower(Squad.name), Squad.id).limit(SQUAD_LIMIT)
    return [squad_record(*row) for row in ctx.db.execute(stmt)]


def _check_manager(db, manager_id: str | None, squad: Squad | None = None) -> None:
    """The manager named must be a user, and an active one (a manager who cannot sign in approves nobody's leave
    or time) when set or changed: a manager sent back as stored is not checked again."""
    if not manager_id or (squad is not None and squad.manager_id == manager_id):
        return
    manager = db.get(User, manager_id)
    if manager is None:
        raise BadRequest("manager_id does not match a user", details=[{"field": "manager_id", "message": "unknown user"}])
    if not manager.is_active:
        raise BadRequest("manager_id must be an active user",
                         details=[{"field": "manager_id", "message": "must be an active user"}])


def _not_self(ctx, squad: Squad | None, values: dict) -> None:
    """A holder of admin:manage who is not an executive does not make themselves a squad's manager (the
    approver of its members' leave and time): 403, another administrator does."""
    manager_id = values.get("manager_id")
    if (manager_id and manager_id == ctx.user_id and ctx.principal.access_level != "executive"
            and (squad is None or squad.manager_id != manager_id)):
        raise Forbidden("You cannot make yourself a squad's manager")


def create_squad(ctx, *, data: SquadCreate) -> dict:
    values = data.model_dump()
    _not_self(ctx, None, values)
    _check_manager(ctx.db, values.get("manager_id"))
    lock_key(ctx.db, "squads")  # concurrent creates cannot pass the cap together
    if squad_count(ctx.db) >= SQUAD_LIMIT:
        raise Conflict(f"There are at most {SQUAD_LIMIT} squads")
    squad = Squad(**values)
    ctx.db.add(squad)
    ctx.db.flush()
    history.record(ctx.db, entity_type="squad", entity_id=squad.id, action="created", actor_id=ctx.user_id,
                   changes={key: value for key, value in values.items() if value is not None})
    return get_squad_record(ctx, squad.id)


def _locked_squad(ctx, squad_id: str) -> Squad:
    """The squad, row-locked until commit and re-read (404 otherwise): a rename or delete reads the name its
    projects carry under the lock, so two renames (or a rename and a delete) cannot act on a stale name, and a
    project write naming the squad (FOR SHARE, projects area) waits for it or is waited for."""
    return lock_row(ctx.db, Squad, squad_id, where=visible(ctx.principal), missing="Squad")


def update_squad(ctx, *, squad_id: str, data: SquadUpdate) -> dict:
    squad = _locked_squad(ctx, squad_id)
    values = data.model_dump(exclude_unset=True)
    _not_self(ctx, squad, values)
    _check_manager(ctx.db, values.get("manager_id"), squad)
    before = {key: getattr(squad, key) for key in EDITABLE}
    pending = {}
    if "manager_id" in values and values["manager_id"] != squad.manager_id:
        # its members' pending leave goes to the new manager (or the executives): they are told (session 24)
        from chalicelib.areas.leave import service as leave_service

        pending = leave_service.first_step_approvers(ctx.db, squad_ids=[squad.id])
    for key, value in values.items():
        setattr(squad, key, value)
    ctx.db.flush()
    if pending:
        leave_service.tell_new_approvers(ctx, pending)
    if squad.name != before["name"]:  # projects name their squad: they follow it (same transaction, same lock)
        from chalicelib.areas.projects import service as projects_service

        projects_service.squad_renamed(ctx.db, before["name"], squad.name)
    history.record_update(ctx.db, entity_type="squad", entity_id=squad.id, actor_id=ctx.user_id, before=before,
                          after={key: getattr(squad, key) for key in EDITABLE})
    return get_squad_record(ctx, squad.id)


def delete_squad(ctx, *, squad_id: str) -> None:
    from chalicelib.areas.leave import service as leave_service
    from chalicelib.areas.projects import service as projects_service

    squad = _locked_squad(ctx, squad_id)
    # its members' pending leave goes to the executives: they are told after the delete (session 24)
    pending = leave_service.first_step_approvers(ctx.db, squad_ids=[squad.id])
    # Its projects keep no squad: a squad created later under the same name does not inherit them.
    projects_service.squad_deleted(ctx.db, squad.name)
    # Members stay, without a squad (the foreign key says the same; done explicitly for every backend).
    ctx.db.execute(update(User).where(User.squad_id == squad.id).values(squad_id=None).execution_options(
        synchronize_session="fetch"))
    ctx.db.delete(squad)
    ctx.db.flush()
    history.record(ctx.db, entity_type="squad", entity_id=squad_id, action="deleted", actor_id=ctx.user_id,
                   changes={"name": {"from": squad.name, "to": None}})
    leave_service.tell_new_approvers(ctx, pending)
