"""The access-level matrix and the per-user overrides that replace one tool's level."""
from __future__ import annotations

from sqlalchemy import func, select

from chalicelib.core import history, permissions
from chalicelib.core.errors import BadRequest, Conflict, Forbidden
from chalicelib.core.locks import lock_key, set_cells
from chalicelib.core.models import AccessLevelPermission, User, UserPermission

from .queries import load_user, overrides, sees_salary, user_record, user_row


def get_matrix(ctx) -> dict:
    return permissions.matrix(ctx.db)


# The executive level's cells a matrix save may not lower: (tool, lowest level, why). admin:manage, or no one could
# administer; update:leave (session 27), or no one could decide the leave waiting on the executives (second steps,
# first steps no squad manager decides: the leave area's `queries.awaiting` needs update:leave).
EXECUTIVE_KEEPS = (
    ("admin", "manage", "no one could administer otherwise"),
    ("leave", "update", "no one could decide the executives' leave steps otherwise"),
)


def _keep_executive_cells(changes: dict[str, dict[str, str]]) -> None:
    """400 naming each cell of the executive level's row that `changes` would lower below what it keeps."""
    sent = changes.get("executive", {})
    lowered = [(tool, floor, why) for tool, floor, why in EXECUTIVE_KEEPS
               if tool in sent and permissions.RANK[sent[tool]] < permissions.RANK[floor]]
    if lowered:
        raise BadRequest("; ".join(f"The executive access level keeps {tool}:{floor} ({why})"
                                   for tool, floor, why in lowered),
                         details=[{"field": f"matrix.executive.{tool}",
                                   "message": "must stay " + (floor if floor == "manage" else f"{floor} or manage")}
                                  for tool, floor, _ in lowered])


def _cells(levels: dict[tuple, str | None]) -> dict[tuple, dict | None]:
    """Permission cells ({key values: level, None for no row}) as core.locks.set_cells takes them: one INSERT ...
    ON CONFLICT DO UPDATE of the levels set, one DELETE of the rows removed, a cell sent as stored not written."""
    return {key: None if level is None else {"level": level} for key, level in levels.items()}


def update_matrix(ctx, *, changes: dict[str, dict[str, str]]) -> dict:
    """Write the given cells (any subset of access levels and tools); answer the whole matrix."""
    _keep_executive_cells(changes)
    lock_key(ctx.db, "access-level-matrix")  # saves take turns: two cannot both insert a cell not stored yet
    before = permissions.matrix(ctx.db)
    own = ctx.principal.access_level
    if own != "executive" and any(permissions.RANK[level] > permissions.RANK[before[own][tool]]
                                  for tool, level in changes.get(own, {}).items()):
        raise Forbidden("You cannot raise the permissions of your own access level")
    if own != "executive" and any(permissions.RANK[tools["admin"]] > permissions.RANK[before[level]["admin"]]
                                  for level, tools in changes.items() if "admin" in tools):
        # only executives hand out administration, as on a user's overrides: a holder of admin:manage by override
        # raised another level's admin cell, giving an accomplice at that level admin:manage, who could then raise
        # the first one's own row (invariant audit)
        raise Forbidden("Only an executive can raise an access level's admin permission")
    stored = {(level, tool): value for level, tool, value in ctx.db.execute(
        select(AccessLevelPermission.access_level, AccessLevelPermission.tool, AccessLevelPermission.level)
        .where(AccessLevelPermission.access_level.in_(list(changes))))}
    set_cells(ctx.db, AccessLevelPermission, ("access_level", "tool"), _cells(
        {(level, tool): value for level, tools in changes.items() for tool, value in tools.items()}), _cells(stored))
    after = permissions.matrix(ctx.db)
    for access_level in changes:
        diff = history.diff(before[access_level], after[access_level])
        if diff:
            history.record(ctx.db, entity_type="access_level", entity_id=access_level, action="permissions_changed",
                           actor_id=ctx.user_id, changes=diff)
    permissions_moved(ctx, levels_moved(before, after, list(changes)))
    return after


# ---------------------------------------------------------------- what a permission change hands to other areas

def _changed(before: str, after: str) -> bool:
    return before != after


def _fell_below(level: str):
    return lambda before, after: permissions.RANK[before] >= permissions.RANK[level] > permissions.RANK[after]


def _rose_to(level: str):
    return lambda before, after: permissions.RANK[before] < permissions.RANK[level] <= permissions.RANK[after]


def permissions_moved(ctx, moved) -> None:
    """After an admin write that changed users' effective permissions (a user's overrides, a matrix cell, a user's
    access level), the areas whose work follows a permission are told, as after a (de)activation (session 26).
    `moved(tool, crossed)` answers the ids (a list or a SELECT) of the users whose effective level of `tool` went
    from `before` to `after` with `crossed(before, after)` true, or None for nobody (`one_user_moved`,
    `levels_moved`). Each hook below is one line: its tool, the line crossed, and the area's batch hook called
    with those ids; each hook costs a fixed number of statements whatever the number of users."""
    from chalicelib.areas.leave import service as leave_service  # other areas: imported lazily
    from chalicelib.areas.performance import service as performance_service
    from chalicelib.areas.projects import service as projects_service
    from chalicelib.areas.proposals import service as proposals_service

    hooks = (
        # who a client's request derives reads its task: their watches follow (docs/decisions/projects.md)
        ("tasks", _changed, projects_service.users_changed),
        # a reviewer who can no longer answer (below view) or rate (below update): those who asked, or who now rate the
        # reviews waiting on them, are told (docs/decisions/performance.md)
        ("performance", _fell_below("update"), performance_service.reviewers_lost_access),
        # a listed approver who may approve again: told of the proposals waiting on them (docs/decisions/proposals.md)
        ("proposals", _rose_to("update"), proposals_service.approvers_regained),
        # a squad manager who can no longer decide leave, or can again: whoever now decides their squads' first
        # steps is told (docs/decisions/leave.md)
        ("leave", _fell_below("update"), leave_service.deciders_changed),
        ("leave", _rose_to("update"), leave_service.deciders_changed),
    )
    for tool, crossed, hook in hooks:
        user_ids = moved(tool, crossed)
        if user_ids is not None:
            hook(ctx, user_ids)


def one_user_moved(user_id: str, before: dict[str, str], after: dict[str, str]):
    """`moved` for one user whose effective permissions were `before` and are `after` (no statement)."""
    return lambda tool, crossed: [user_id] if crossed(before[tool], after[tool]) else None


def levels_moved(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]], levels):
    """`moved` for a change of the matrix from `before` to `after`: the users of the access levels whose cell of the
    tool crossed, but those whose own override of that tool sets their level (the cell does not move them), as one
    SELECT of ids."""
    def moved(tool, crossed):
        crossed_levels = [level for level in levels if crossed(before[level][tool], after[level][tool])]
        if not crossed_levels:
            return None
        overridden = select(UserPermission.user_id).where(UserPermission.tool == tool)
        return select(User.id).where(User.access_level.in_(crossed_levels), User.id.not_in(overridden))
    return moved


def _admin_lowered():
    """Ids of the users whose own override puts admin below manage."""
    return select(UserPermission.user_id).where(UserPermission.tool == "admin", UserPermission.level != "manage")


def keep_an_executive(ctx, user_id: str, *, message: str | None = None) -> None:
    """409 when this user is the last active executive who keeps admin:manage (only an executive's admin:manage
    is kept by the matrix: none left locks everyone out of users, overrides and the matrix). An executive whose
    own override lowers admin below manage does not count, and losing one changes nothing. Such changes take
    turns on one lock, so two executives demoting each other at once cannot both pass."""
    lock_key(ctx.db, "active-executives")
    if ctx.db.scalar(_admin_lowered().where(UserPermission.user_id == user_id)) is not None:
        return
    others = ctx.db.scalar(select(func.count()).select_from(User).where(
        User.access_level == "executive", User.is_active.is_(True), User.id != user_id,
        User.id.not_in(_admin_lowered())))
    if not others:
        raise Conflict(message or "The last active executive cannot be deactivated or given another access level")


def keep_a_leave_decider(ctx, user_id: str, *, message: str | None = None) -> None:
    """409 when this user is the last active executive holding update:leave (session 27): the leave waiting on the
    executives (second steps, first steps no squad manager decides) would wait on nobody who can decide it. An
    executive below update:leave (their own override, or a cell stored lower before session 27) does not count, and
    lowering one changes nothing. One statement (the user and at most one other such executive), after the
    executives' lock that `keep_an_executive` takes, so two executives lowering each other at once cannot both
    pass."""
    lock_key(ctx.db, "active-executives")
    deciders = list(ctx.db.scalars(
        permissions.holders_select("leave", "update")
        .where(User.access_level == "executive", User.is_active.is_(True))
        .order_by((User.id == user_id).desc()).limit(2)))
    if deciders[:1] == [user_id] and len(deciders) == 1:
        raise Conflict(message or "The last active executive holding leave:update cannot have leave lowered below "
                                  "update (no one could decide the executives' leave steps otherwise)")


def user_permissions(ctx, *, user: User) -> dict:
    return permissions.effective_permissions(ctx.db, user.id, user.access_level)


def set_user_permissions(ctx, *, user_id: str, levels: dict[str, str | None]) -> tuple[dict, dict]:
    """Set (a level, `none` included) or remove (null) the user's override per tool; answers the
    user's effective permissions and overrides after the change."""
    user = load_user(ctx, user_id)
    executive, own = ctx.principal.access_level == "executive", user.id == ctx.user_id
    if not executive and user.access_level == "executive":
        # an executive's overrides are theirs as their record is (guard_executives): a holder of admin:manage by
        # override took another executive's admin away, or any tool, while one kept it (session 29)
        raise Forbidden("Only an executive can change an executive's permissions")
    # the user's access level's row of the matrix, read once and only when a check below needs it
    needs_row = (own and ("admin" in levels or not executive)) or (not own and not executive and levels.get("admin"))
    matrix_row = permissions.matrix(ctx.db)[user.access_level] if needs_row else None
    if (not executive and levels.get("admin") and not own
            and permissions.RANK[levels["admin"]] > permissions.RANK[matrix_row["admin"]]):
        # only executives hand out administration beyond a user's access level: a holder of admin:manage by
        # override could otherwise give an accomplice admin:manage (security audit S5)
        raise Forbidden("Only an executive can give someone admin beyond their access level")
    if own and "admin" in levels:
        current = ctx.principal.permissions.get("admin", "none")
        new = levels["admin"] or matrix_row["admin"]
        if permissions.RANK[new] < permissions.RANK[current]:
            raise BadRequest("You cannot lower your own admin permission",
                             details=[{"field": "permissions.admin", "message": "would lower your own admin level"}])
    if own and not executive:
        if any(permissions.RANK[level or matrix_row[tool]] > permissions.RANK[ctx.principal.permissions.get(tool, "none")]
               for tool, level in levels.items()):
            raise Forbidden("You cannot raise your own permissions")
    if (user.is_active and user.access_level == "executive" and levels.get("admin") is not None
            and permissions.RANK[levels["admin"]] < permissions.RANK["manage"]):
        keep_an_executive(ctx, user.id, message="The last active executive keeping admin:manage cannot have it "
                                                "lowered (no one could administer otherwise)")
    if user.is_active and user.access_level == "executive" and "leave" in levels:
        # removed, the override falls back to the executive level's cell (kept at update since session 27, but a
        # cell stored lower before is read as it is)
        leave = levels["leave"] or (matrix_row or permissions.matrix(ctx.db)["executive"])["leave"]
        if permissions.RANK[leave] < permissions.RANK["update"]:
            keep_a_leave_decider(ctx, user.id)
    # saves of this user's overrides take turns (after the executives' lock, as every holder of both takes them):
    # two cannot both insert an override not stored yet
    lock_key(ctx.db, "user-permissions", user.id)
    was = user_permissions(ctx, user=user)  # effective before (after the lock): what the change moves, below
    stored = overrides(ctx.db, user.id)
    changes = {tool: {"from": stored.get(tool), "to": level} for tool, level in levels.items()
               if stored.get(tool) != level}
    set_cells(ctx.db, UserPermission, ("user_id", "tool"),
              _cells({(user.id, tool): level for tool, level in levels.items()}),
              _cells({(user.id, tool): level for tool, level in stored.items()}))
    if changes:
        history.record(ctx.db, entity_type="user", entity_id=user.id, action="permissions_changed",
                       actor_id=ctx.user_id, changes=changes)
    now = user_permissions(ctx, user=user)
    if changes:  # the effective levels compared, not the override: one removed falls back to the matrix cell
        permissions_moved(ctx, one_user_moved(user.id, was, now))
    return now, overrides(ctx.db, user.id)


def user_detail(ctx, *, user_id: str) -> tuple[dict, dict, dict]:
    """The user's record, effective permissions and overrides, for the admin user page."""
    user, squad_name, manager_name = user_row(ctx, user_id)
    return (user_record(user, squad_name, manager_name, show_salary=sees_salary(ctx)),
            user_permissions(ctx, user=user), overrides(ctx.db, user.id))
