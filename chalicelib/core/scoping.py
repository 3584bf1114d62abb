"""Data-scoping helpers: own, squad, direct reports, all.

Each returns a SQL expression (a scalar subquery of user ids) to put into an area's WHERE clause,
so scoping never costs a query per row. Squad members of a manager: the users of the squads the
manager manages and of the manager's own squad. Direct reports: users whose manager_id is the user.
"""
from __future__ import annotations

from sqlalchemy import Select, or_, select

from .models import Squad, User

WIDE_ACCESS = ("head", "executive")


def sees_all(principal) -> bool:
    return principal.access_level in WIDE_ACCESS


def is_manager(principal) -> bool:
    return principal.access_level == "manager"


def squad_member_ids(principal) -> Select:
    managed = select(Squad.id).where(Squad.manager_id == principal.id)
    conditions = [User.squad_id.in_(managed)]
    if principal.user.squad_id:
        conditions.append(User.squad_id == principal.user.squad_id)
    return select(User.id).where(or_(*conditions))


def direct_report_ids(principal) -> Select:
    return select(User.id).where(User.manager_id == principal.id)


def team_user_ids(principal) -> Select:
    """The principal, their squad members and direct reports (the manager's reach)."""
    return squad_member_ids(principal).union(direct_report_ids(principal), select(User.id).where(User.id == principal.id))


def squad_names(principal) -> Select:
    """Names of the squads a manager manages or belongs to (projects keep `squad` as a name)."""
    conditions = [Squad.manager_id == principal.id]
    if principal.user.squad_id:
        conditions.append(Squad.id == principal.user.squad_id)
    return select(Squad.name).where(or_(*conditions))
