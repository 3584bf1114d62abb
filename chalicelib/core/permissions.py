"""Tool permissions: levels, the access-level matrix (defaults and edits) and per-user overrides."""
from __future__ import annotations

from functools import cache

from sqlalchemy import bindparam, literal, select
from sqlalchemy.orm import Session

from .errors import Forbidden
from .models import ACCESS_LEVELS, AccessLevelPermission, UserPermission

TOOLS = (
    "tasks", "projects", "budgets", "roadmaps", "sla", "config-lists", "action-centre", "proposals",
    "deals", "invoices", "relationships", "templates", "performance", "leave", "insights", "pages",
    "announcements", "calendar", "meetings", "timesheets", "admin",
)
LEVELS = ("none", "view", "update", "manage")
RANK = {level: index for index, level in enumerate(LEVELS)}

_EMPLOYEE_UPDATE = {"tasks", "projects", "pages", "action-centre", "leave", "performance", "meetings",
                    "timesheets", "relationships", "deals", "proposals"}
_EMPLOYEE_VIEW = {"budgets", "roadmaps", "sla", "config-lists", "announcements", "calendar", "templates", "invoices"}


def _employee_level(tool: str) -> str:
    if tool in _EMPLOYEE_UPDATE:
        return "update"
    if tool in _EMPLOYEE_VIEW:
        return "view"
    return "none"


def _default_level(access_level: str, tool: str) -> str:
    if access_level == "executive":
        return "manage"
    if access_level == "head":
        return "update" if tool == "admin" else "manage"
    if access_level == "manager":
        return {"admin": "none", "insights": "view"}.get(tool, "update")
    return _employee_level(tool)


DEFAULT_MATRIX: dict[str, dict[str, str]] = {
    access: {tool: _default_level(access, tool) for tool in TOOLS} for access in ACCESS_LEVELS
}


def normalise_permission(text: str) -> tuple[str, str]:
    """`tasks:view` and `view:tasks` (or `tasks / view`) name the same permission."""
    left, _, right = text.replace(" / ", ":").partition(":")
    return (right, left) if left in LEVELS else (left, right)


def matrix(db: Session) -> dict[str, dict[str, str]]:
    result = {access: dict(levels) for access, levels in DEFAULT_MATRIX.items()}
    for row in db.scalars(select(AccessLevelPermission)):
        if row.access_level in result and row.tool in TOOLS:
            result[row.access_level][row.tool] = row.level
    return result


@cache
def _levels_statement():
    """Matrix cells of one access level, then one user's overrides (built once per process)."""
    return (
        select(AccessLevelPermission.tool, AccessLevelPermission.level, literal(False))
        .where(AccessLevelPermission.access_level == bindparam("access_level"))
        .union_all(select(UserPermission.tool, UserPermission.level, literal(True))
                   .where(UserPermission.user_id == bindparam("user_id")))
    )


def permission_cells():
    """(user_id, tool, level, is_override) for every user: the matrix cells of the user's access
    level, then the user's own overrides. Joined to one user, the planner filters both branches."""
    from .models import User

    return (
        select(User.id.label("user_id"), AccessLevelPermission.tool, AccessLevelPermission.level,
               literal(0).label("is_override"))
        .join(AccessLevelPermission, AccessLevelPermission.access_level == User.access_level)
        .union_all(select(UserPermission.user_id, UserPermission.tool, UserPermission.level,
                          literal(1).label("is_override")))
        .subquery("permission_cells")
    )


def apply_cells(access_level: str, cells) -> dict[str, str]:
    """The defaults of `access_level` with the matrix cells, then the overrides, laid over them."""
    levels = dict(DEFAULT_MATRIX.get(access_level, DEFAULT_MATRIX["employee"]))
    for tool, level, _is_override in sorted(cells, key=lambda cell: cell[2]):
        if tool in levels:
            levels[tool] = level
    return levels


def holders_select(tool: str, level: str):
    """`SELECT users.id` of the users whose effective permission on `tool` is at least `level`, in SQL what
    `apply_cells` computes in Python: the user's override, else their access level's matrix cell, else that
    level's default (an unknown access level as employee). One statement whatever the number of users; callers
    add their own conditions (active users, leaving the actor out)."""
    from sqlalchemy import and_, case, func

    from .models import User

    default = case({access: levels[tool] for access, levels in DEFAULT_MATRIX.items()}, value=User.access_level,
                   else_=DEFAULT_MATRIX["employee"][tool])
    effective = func.coalesce(UserPermission.level, AccessLevelPermission.level, default)
    return (select(User.id)
            .outerjoin(UserPermission, and_(UserPermission.user_id == User.id, UserPermission.tool == tool))
            .outerjoin(AccessLevelPermission, and_(AccessLevelPermission.access_level == User.access_level,
                                                   AccessLevelPermission.tool == tool))
            .where(effective.in_([name for name in LEVELS if RANK[name] >= RANK[level]])))


def effective_permissions(db: Session, user_id: str, access_level: str) -> dict[str, str]:
    """The matrix row of the user's access level with the user's overrides laid over it (one query)."""
    rows = db.execute(_levels_statement(), {"access_level": access_level, "user_id": user_id}).all()
    return apply_cells(access_level, rows)


def allows(permissions: dict[str, str], tool: str, level: str) -> bool:
    return RANK.get(permissions.get(tool, "none"), 0) >= RANK[level]


def require(permissions: dict[str, str], tool: str, level: str) -> None:
    if not allows(permissions, tool, level):
        raise Forbidden(f"Permission {tool}:{level} required")
