"""The leave area's leaf module: the scope clause `visible`, `load_leave_request`, who approves what, the record
builders and the read queries. The services import it, never the reverse.

Scope (docs/decisions/leave.md): head and executive see every request; anyone else their own and those of the
squads they manage (a squad manager approves the first step)."""
from __future__ import annotations

from sqlalchemy import and_, false, or_, select
from sqlalchemy.orm import aliased

from chalicelib.core.models import HistoryEntry, Squad, User
from chalicelib.core.query import LIST_LIMIT, visible_row
from chalicelib.core.scoping import sees_all
from chalicelib.core.serialize import row_dict

from .models import LeaveRequest

ENTITY = "leave_request"
REQUEST_FIELDS = ("id", "user_id", "leave_type_id", "leave_type_name", "start_date", "end_date", "total_hours", "notes",
                  "status", "manager_approved_by", "manager_approved_at", "exec_approved_by", "exec_approved_at",
                  "rejected_by", "rejected_at", "rejection_reason", "cancelled_by", "cancelled_at",
                  "ledger_leave_application_id", "planner_booking_id", "calendar_event_id", "chat_message_ts",
                  "integration_errors", "created_at", "updated_at")


def managed_member_ids(user_id: str):
    """A select of the users in the squads `user_id` manages."""
    return select(User.id).where(User.squad_id.in_(select(Squad.id).where(Squad.manager_id == user_id)))


def visible(principal):
    """WHERE clause of the requests the principal may see (None: all)."""
    if sees_all(principal):
        return None
    return or_(LeaveRequest.user_id == principal.id, LeaveRequest.user_id.in_(managed_member_ids(principal.id)))


def load_leave_request(ctx, request_id: str) -> LeaveRequest:
    return visible_row(ctx.db, LeaveRequest, request_id, visible(ctx.principal), "Leave request")


def leave_holders(level: str):
    """`SELECT users.id` of the users whose effective `leave` permission is at least `level` (the override, else
    the access level's matrix cell, else its default: core.permissions.holders_select), never correlated to an
    enclosing query's users, so that it is one subquery whatever the number of users asked about."""
    from chalicelib.core.permissions import holders_select

    return holders_select("leave", level).correlate(None)


def squad_manager_id(db, user_id: str) -> str | None:
    """The manager of the user's squad (None when the user has no squad or it has no manager)."""
    return db.scalar(select(Squad.manager_id).join(User, User.squad_id == Squad.id).where(User.id == user_id))


# Once per process: an alias proxies its table's columns on first use.
_MEMBER, _MEMBER_SQUAD = aliased(User, name="member"), aliased(Squad, name="member_squad")
_SQUAD_MANAGER = aliased(User, name="squad_manager")


def awaiting(principal):
    """WHERE clause of the pending requests awaiting the principal's decision: the first step of the members of
    squads they manage; for an executive also every second step and the first step of requesters whom no other
    squad manager approves (no squad, no squad manager, their own squad's manager, a deactivated one, or one below
    update:leave, session 26: the executives are notified of those, `service._notify_next`). Nothing for a
    principal below update:leave, executive or not: approving and rejecting require it (session 26)."""
    if not principal.can("leave", "update"):
        return false()
    member, squad, squad_manager = _MEMBER, _MEMBER_SQUAD, _SQUAD_MANAGER
    mine = and_(LeaveRequest.status == "pending_manager", LeaveRequest.user_id.in_(managed_member_ids(principal.id)),
                LeaveRequest.user_id != principal.id)
    if principal.access_level != "executive":
        return mine
    unmanaged = (select(member.id).outerjoin(squad, squad.id == member.squad_id)
                 .outerjoin(squad_manager, squad_manager.id == squad.manager_id)
                 .where(or_(squad.manager_id.is_(None), squad.manager_id == member.id,
                            squad_manager.is_active.is_(False), squad.manager_id.not_in(leave_holders("update")))))
    return and_(LeaveRequest.user_id != principal.id, or_(
        mine, LeaveRequest.status == "pending_exec",
        and_(LeaveRequest.status == "pending_manager", LeaveRequest.user_id.in_(unmanaged))))


def request_select():
    return select(LeaveRequest, User.name, User.picture).join(User, User.id == LeaveRequest.user_id)


def request_record(row) -> dict:
    request, name, picture = row
    out = row_dict(request, REQUEST_FIELDS)
    out.update(user_name=name, user_picture=picture, integration_errors=request.integration_errors or None)
    return out


def one_record(db, request_id: str) -> dict:
    return request_record(db.execute(request_select().where(LeaveRequest.id == request_id)).one())


def history_records(db, request_id: str) -> list[dict]:
    """The request's history, oldest first, at most LIST_LIMIT (decisions.md section 4: every retry of the
    integrations adds an entry), with the actor's name (one statement)."""
    stmt = (select(HistoryEntry, User.name).outerjoin(User, User.id == HistoryEntry.actor_id)
            .where(HistoryEntry.entity_type == ENTITY, HistoryEntry.entity_id == request_id)
            .order_by(HistoryEntry.created_at, HistoryEntry.id).limit(LIST_LIMIT))
    return [{**row_dict(entry, ("id", "action", "actor_id", "created_at")), "actor_name": name,
             "comment": (entry.changes or {}).get("comment")} for entry, name in db.execute(stmt)]
