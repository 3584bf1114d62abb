"""Users: the caller (`/api/me`), the user directory, user create and update.

Salary is sensitive: it appears only to callers holding admin:manage, and to a user reading their
own record through `/api/me`; otherwise the `salary` key is left out of the record.
"""
from __future__ import annotations

from sqlalchemy import func, select

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict, Forbidden
from chalicelib.core.locks import lock_key
from chalicelib.core.models import ACCESS_LEVELS, Squad, User
from chalicelib.core.query import Page, contains_text, paginate
from chalicelib.core.serialize import value_out

from .queries import USER_FIELDS, get_user_record, lock_user, sees_salary, user_record, user_select
from .schemas import UserCreate, UserListQuery, UserUpdate
from .service_permissions import (keep_a_leave_decider, keep_an_executive, one_user_moved, permissions_moved,
                                  user_permissions)

REDACTED = "[redacted]"


def me(ctx) -> tuple[dict, dict]:
    """The caller's own record (salary included) and effective permissions."""
    principal = ctx.principal  # the user and the names were read by the principal's statement
    return (user_record(principal.user, principal.squad_name, principal.manager_name, show_salary=True),
            dict(principal.permissions))


def list_users(ctx, *, query: UserListQuery) -> Page:
    stmt = user_select()
    if not query.include_inactive:
        stmt = stmt.where(User.is_active.is_(True))
    if query.squad_id:
        stmt = stmt.where(User.squad_id == query.squad_id)
    if query.access_level:
        stmt = stmt.where(User.access_level == query.access_level)
    if query.search:
        stmt = stmt.where(contains_text(query.search, User.name, User.email))
    stmt = stmt.order_by(func.lower(User.name), User.id)
    show = sees_salary(ctx)
    return paginate(ctx.db, stmt, query, lambda row: user_record(*row, show_salary=show))


def _email_taken(db, email: str, *, except_id: str | None = None) -> bool:
    stmt = select(User.id).where(func.lower(User.email) == email.lower())
    if except_id:
        stmt = stmt.where(User.id != except_id)
    return db.scalar(stmt.limit(1)) is not None


def _check_references(db, data: dict, *, user: User | None = None) -> None:
    if data.get("squad_id") and db.get(Squad, data["squad_id"]) is None:
        raise BadRequest("squad_id does not match a squad", details=[{"field": "squad_id", "message": "unknown squad"}])
    manager_id = data.get("manager_id")
    if not manager_id:
        return
    manager = db.get(User, manager_id)
    if manager is None:
        raise BadRequest("manager_id does not match a user", details=[{"field": "manager_id", "message": "unknown user"}])
    # a manager who cannot sign in approves nobody's leave or time: set or changed, it must be an active user; a
    # manager sent back as stored is not checked again (a user whose manager left can be PUT back as read)
    if not manager.is_active and (user is None or manager_id != user.manager_id):
        raise BadRequest("manager_id must be an active user",
                         details=[{"field": "manager_id", "message": "must be an active user"}])
    if user is None:
        return  # a new user manages no one yet: no cycle
    if manager_id != user.manager_id:
        # reporting-line changes take turns (after the user's row lock), so each walks the chain the others
        # committed: two crossed changes, X under Y and Y under X at once, both found no cycle and both saved
        lock_key(db, "reporting-lines")
    # A user cannot report to themselves, directly or through their own reports: the new manager and the managers
    # above them, walked up in one recursive statement (UNION stops on a cycle already stored), must not hold the user.
    chain = select(User.id.label("id"), User.manager_id.label("up")).where(User.id == manager_id).cte(
        "manager_chain", recursive=True)
    chain = chain.union(select(User.id, User.manager_id).join(chain, User.id == chain.c.up))
    if db.scalar(select(chain.c.id).where(chain.c.id == user.id).limit(1)) is not None:
        raise BadRequest("A user cannot be their own manager, directly or through their reports",
                         details=[{"field": "manager_id", "message": "would create a reporting cycle"}])


def _check_dates(start, end, sent) -> None:
    """400 when the user's end date would fall before their start date, naming the date the request sent (`sent`,
    its keys): `end_date` when it gives one, else `start_date`, moved past the stored end (session 32: that named
    `end_date`, a field the request did not send; as tasks and invoices name it since session 28)."""
    if not (start and end and end < start):
        return
    if "end_date" in sent or "start_date" not in sent:
        raise BadRequest("end_date is before start_date", details=[{"field": "end_date", "message": "before start_date"}])
    raise BadRequest("start_date is after end_date", details=[{"field": "start_date", "message": "after end_date"}])


def _audit_values(values: dict) -> dict:
    return {key: (REDACTED if key == "salary" and value is not None else value) for key, value in values.items()}


def _snapshot(user: User) -> dict:
    return {key: getattr(user, key) for key in USER_FIELDS if key not in ("id", "created_at", "updated_at")}


def _jsonable(values: dict) -> dict:
    return {key: value_out(value) for key, value in values.items()}


def guard_executives(ctx, target: User | None, values: dict) -> None:
    """Only an executive makes an executive or edits one (403 otherwise): a holder of admin:manage by override
    (an office or HR manager) could otherwise create an executive under an address they control, or take over an
    executive's account by changing its e-mail (security audit S5)."""
    if ctx.principal.access_level == "executive":
        return
    if values.get("access_level") == "executive":
        raise Forbidden("Only an executive can make an executive")
    if target is not None and target.access_level == "executive":
        raise Forbidden("Only an executive can change an executive's record")


def create_user(ctx, *, data: UserCreate) -> dict:
    values = data.model_dump()
    guard_executives(ctx, None, values)
    if _email_taken(ctx.db, values["email"]):
        raise Conflict("A user with this email already exists")
    _check_references(ctx.db, values)
    _check_dates(values.get("start_date"), values.get("end_date"), values)
    user = User(**values, is_active=True)
    ctx.db.add(user)
    ctx.db.flush()
    created = {key: value for key, value in _snapshot(user).items() if value is not None}
    history.record(ctx.db, entity_type="user", entity_id=user.id, action="created", actor_id=ctx.user_id,
                   changes=_jsonable(_audit_values(created)))
    if _decides_as_executive(user):  # made an executive by the create: told of the leave waiting on them, as a promotion
        from chalicelib.areas.leave import service as leave_service

        leave_service.tell_new_executive(ctx, user.id)
    return get_user_record(ctx, user_id=user.id)


SELF_FIXED = ("salary", "end_date", "manager_id", "squad_id")


def _cleared(field: str, value):
    return (value or None) if field in ("manager_id", "squad_id") else value  # an empty id clears it


def _no_self_raise(user: User, values: dict) -> None:
    """A holder of admin:manage who is not an executive neither raises their own access level nor sets their
    own salary, end date or reporting line (manager, squad: who approves their leave and time) (403): another
    administrator does (lowering oneself stays allowed; a value sent back unchanged is not a change)."""
    level = values.get("access_level")
    if level and ACCESS_LEVELS.index(level) > ACCESS_LEVELS.index(user.access_level):
        raise Forbidden("You cannot raise your own access level")
    for field in SELF_FIXED:
        if field in values and _cleared(field, values[field]) != getattr(user, field):
            raise Forbidden(f"You cannot change your own {field}")


def _pending_leave_approvers(ctx, user: User, values: dict) -> dict:
    """Who decides the first step of the pending leave this update may hand to someone else (the user moved to
    another squad or out of one: their requests; a squad manager deactivated or reactivated: their members'),
    read before the write; the leave area tells the new approvers after it (session 24). Empty otherwise, with
    no statement."""
    moved = "squad_id" in values and (values["squad_id"] or None) != user.squad_id
    toggled = "is_active" in values and values["is_active"] != user.is_active
    if not (moved or toggled):
        return {}
    from chalicelib.areas.leave import service as leave_service

    return leave_service.first_step_approvers(ctx.db, user_ids=[user.id] if moved else (),
                                              managed_by=user.id if toggled else None)


def _decides_as_executive(user: User) -> bool:
    """An active executive decides the leave waiting on the executives (the leave area's `queries.awaiting`)."""
    return bool(user.is_active) and user.access_level == "executive"


def update_user(ctx, *, user_id: str, data: UserUpdate) -> dict:
    """Change the fields sent. The user's row is read locked (`lock_user`), so every check (end_date against
    start_date, the executives' guards, the self-change limits, the last executive) reads the row as the edit
    before this one left it, not a copy another request is changing.

    Lock order, the same in every write of this service: the user's row first, then the "reporting-lines" key
    (only when `manager_id` changes, before the chain is walked), then the "active-executives" key
    (`keep_an_executive`, then `keep_a_leave_decider`: session 27)."""
    user = lock_user(ctx, user_id)
    values = data.model_dump(exclude_unset=True)
    guard_executives(ctx, user, values)
    if "email" in values and _email_taken(ctx.db, values["email"], except_id=user.id):
        raise Conflict("A user with this email already exists")
    _check_references(ctx.db, values, user=user)
    _check_dates(values.get("start_date", user.start_date), values.get("end_date", user.end_date), values)
    if values.get("is_active") is False and user.id == ctx.user_id:
        raise BadRequest("You cannot deactivate yourself",  # the field named, as every one-field 400 (session 32)
                         details=[{"field": "is_active", "message": "cannot be false on your own record"}])
    if user.id == ctx.user_id and ctx.principal.access_level != "executive":
        _no_self_raise(user, values)
    if user.is_active and user.access_level == "executive" and (
            values.get("is_active") is False or values.get("access_level", "executive") != "executive"):
        keep_an_executive(ctx, user.id)
        keep_a_leave_decider(ctx, user.id, message="The last active executive holding leave:update cannot be "
                                                   "deactivated or given another access level (no one could decide "
                                                   "the executives' leave steps otherwise)")
    pending = _pending_leave_approvers(ctx, user, values)
    was_active = bool(user.is_active)
    leaving = values.get("is_active") is False and was_active
    was_executive = _decides_as_executive(user)
    was_level = user.access_level
    toggled = "is_active" in values and bool(values["is_active"]) != was_active
    relevelled = values.get("access_level", was_level) != was_level
    # effective permissions before a change of access level (one statement): what the change moves, after the write
    was_permissions = user_permissions(ctx, user=user) if relevelled and not toggled else None
    before = _snapshot(user)
    for key, value in values.items():
        setattr(user, key, value)
    ctx.db.flush()
    if pending:
        from chalicelib.areas.leave import service as leave_service

        leave_service.tell_new_approvers(ctx, pending)
    if leaving:  # their pending feedback requests can no longer be answered: the requesters are told (session 25);
        # their reviews in review: whoever now rates them is told (session 27)
        from chalicelib.areas.performance import service as performance_service

        performance_service.reviewer_left(ctx, user.id)
    if values.get("is_active") is True and not was_active:  # the proposals waiting on them as an approver (session 25)
        from chalicelib.areas.proposals import service as proposals_service

        proposals_service.user_reactivated(ctx, user.id)
    if toggled:
        # who a client's request derives (the first active of a chain who may read tasks) may have changed: their
        # watches follow it
        from chalicelib.areas.projects import service as projects_service

        projects_service.user_activity_changed(ctx, user.id)
    elif was_permissions is not None:
        # a change of access level moves work as a permission change does (the tasks watches, the feedback they can
        # no longer give, the proposals they may approve again: session 26); a (de)activation in the same write is
        # covered by the hooks above
        permissions_moved(ctx, one_user_moved(user.id, was_permissions, user_permissions(ctx, user=user)))
    if _decides_as_executive(user) and not was_executive:
        # made an executive (or an executive reactivated): they now decide the leave waiting on the executives,
        # told after the write as above (session 25); a demotion tells nobody, the other executives decide
        from chalicelib.areas.leave import service as leave_service

        leave_service.tell_new_executive(ctx, user.id)
    changes = history.diff(before, _snapshot(user))
    if changes:
        if "salary" in changes:
            changes["salary"] = {"from": REDACTED, "to": REDACTED}
        history.record(ctx.db, entity_type="user", entity_id=user.id, action="updated", actor_id=ctx.user_id,
                       changes={key: _jsonable(change) for key, change in changes.items()})
    return get_user_record(ctx, user_id=user.id)
