"""The admin area's leaf module: the scope clause `visible` (holders of admin:view see every user and
squad), the load-or-404 helper `load_user` (a squad is locked with `visible` by service_squads), the record
builders and the read queries. The services import it, never the reverse."""
from __future__ import annotations

from functools import cache

from sqlalchemy import func, select
from sqlalchemy.orm import aliased

from chalicelib.core.errors import not_found
from chalicelib.core.models import Squad, User, UserPermission
from chalicelib.core.query import visible_row
from chalicelib.core.serialize import row_dict

USER_FIELDS = (
    "id", "email", "name", "access_level", "squad_id", "manager_id", "job_title", "picture", "phone",
    "date_of_birth", "start_date", "end_date", "gender", "salary", "location", "employment_basis",
    "is_active", "created_at", "updated_at",
)
SQUAD_FIELDS = ("id", "name", "manager_id", "chat_channel_id", "created_at")


def visible(principal):
    """WHERE clause of the users the principal may see here: None, every user (the routes need admin:view)."""
    return None


def load_user(ctx, user_id: str) -> User:
    """The user; 404 otherwise."""
    return visible_row(ctx.db, User, user_id, visible(ctx.principal), "User")


def lock_user(ctx, user_id: str) -> User:
    """The user, read afresh and locked until the transaction ends (`SELECT ... FOR NO KEY UPDATE`), for a write
    that checks the row it changes; 404 otherwise (as `load_user`, after any write of the row it waited for).

    FOR NO KEY UPDATE, the lock an UPDATE of the row takes anyway, not `core.locks.lock_row`'s FOR UPDATE: edits of
    one user take turns, but a write naming the user (a foreign key: another user's `manager_id`, a history
    entry's actor) does not wait for them. With FOR UPDATE, X under Y and Y under X at once deadlocked (409): each
    held its own row, and the one holding the reporting-lines key waited for the other's row to name it."""
    from chalicelib.core.locks import lock_row

    return lock_row(ctx.db, User, user_id, where=visible(ctx.principal), missing="User", no_key=True)


# --- users ------------------------------------------------------------------------------------

def sees_salary(ctx) -> bool:
    """Salary is sensitive: only holders of admin:manage see it (and a user their own, through /api/me)."""
    return ctx.can("admin", "manage")


def user_record(user: User, squad_name: str | None, manager_name: str | None, *, show_salary: bool) -> dict:
    record = row_dict(user, USER_FIELDS, flags=("is_active",))
    record["squad_name"] = squad_name
    record["manager_name"] = manager_name
    if not show_salary:
        record.pop("salary")
    return record


@cache
def user_select():
    """Users with their squad's and manager's names (joins: one statement for any number). Built once per
    process (statements are immutable: `.where()` answers a copy)."""
    manager = aliased(User)
    return (
        select(User, Squad.name, manager.name)
        .outerjoin(Squad, Squad.id == User.squad_id)
        .outerjoin(manager, manager.id == User.manager_id)
    )


def user_row(ctx, user_id: str) -> tuple[User, str | None, str | None]:
    """(user, squad name, manager name); 404 when there is no such user."""
    row = ctx.db.execute(user_select().where(User.id == user_id)).first()
    if row is None:
        raise not_found("User")
    return row[0], row[1], row[2]


def get_user_record(ctx, *, user_id: str, show_salary: bool | None = None) -> dict:
    user, squad_name, manager_name = user_row(ctx, user_id)
    return user_record(user, squad_name, manager_name,
                       show_salary=sees_salary(ctx) if show_salary is None else show_salary)


def overrides(db, user_id: str) -> dict[str, str]:
    """The user's per-tool overrides."""
    return {tool: level for tool, level in db.execute(
        select(UserPermission.tool, UserPermission.level).where(UserPermission.user_id == user_id))}


# --- squads -----------------------------------------------------------------------------------

@cache
def squad_select():
    """Squads with their manager's name and active member count (one statement). Built once per process
    (statements are immutable: `.where()` answers a copy)."""
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


def squad_record(squad: Squad, manager_name: str | None, member_count: int) -> dict:
    return {**row_dict(squad, SQUAD_FIELDS), "manager_name": manager_name, "member_count": int(member_count or 0)}


def get_squad_record(ctx, squad_id: str) -> dict:
    row = ctx.db.execute(squad_select().where(Squad.id == squad_id)).first()
    if row is None:
        raise not_found("Squad")
    return squad_record(*row)


def squad_count(db) -> int:
    return db.scalar(select(func.count(Squad.id))) or 0
