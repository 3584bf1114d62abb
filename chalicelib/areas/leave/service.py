"""Leave requests: list by tab, detail with history, create in the initial status by submitter level, the
approval chain, reject, cancel, retry of integrations and the pending count (scope and reads in queries.py;
the integrations in service_integrations.py; types and balances in service_cache.py).

Rules (document 2, Leave; decisions.md section 9; docs/decisions/leave.md):
- a new request starts `approved` for an executive (integrations run), `pending_exec` for a manager or head,
  `pending_manager` for a lead or employee; end_date before start_date is 400; a request overlapping another
  pending or approved request of the same person is 409;
- approve at `pending_manager`: the requester's squad manager or an executive -> `pending_exec`; at
  `pending_exec`: an executive -> `approved`, then the integrations run after commit; anyone else 403, another
  status 409; nobody approves their own request;
- reject (a reason is required) a pending request: the same approvers as its step; cancel a pending or approved
  request: its owner or an executive (403); cancelling an approved request reverses its integrations;
- every step is a history entry; the next approver gets `leave_requested`, the requester `leave_approved` or
  `leave_rejected` (and `leave_cancelled` when someone else cancels); a requester below view:leave gets no link,
  a squad manager below update:leave leaves the first step to the executives, and an executive below it
  decides, lists and is told no leave, so every approver told may read the request (session 26).
"""
from __future__ import annotations

from datetime import date

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.orm import aliased

from chalicelib.core.errors import Conflict, Forbidden, bad_field
from chalicelib.core.history import record as record_history
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_key, lock_row
from chalicelib.core.models import Squad, User
from chalicelib.core.query import LIST_LIMIT, in_scope
from chalicelib.core.scoping import sees_all

from . import service_integrations
from .models import ACTIVE, PENDING, LeaveRequest, LeaveType
from .queries import (ENTITY, awaiting, history_records, leave_holders, load_leave_request, one_record,
                      request_record, request_select, squad_manager_id, visible)

INITIAL_STATUS = {"executive": "approved", "head": "pending_exec", "manager": "pending_exec",
                  "lead": "pending_manager", "employee": "pending_manager"}


def _history(ctx, request_id: str, action: str, comment: str | None = None) -> None:
    record_history(ctx.db, entity_type=ENTITY, entity_id=request_id, action=action, actor_id=ctx.user_id,
                   changes={"comment": comment} if comment else None)


def _is_executive(ctx) -> bool:
    return ctx.principal.access_level == "executive"


# ---------------------------------------------------------------- reads

def list_requests(ctx, query) -> list[dict]:
    """`mine` (default), `pending` (awaiting the caller's decision) or `all` (head and executive only, 403
    otherwise); newest first, one statement, at most 500."""
    stmt = request_select()
    if query.tab == "mine":
        stmt = stmt.where(LeaveRequest.user_id == ctx.user_id)
    elif query.tab == "pending":
        stmt = stmt.where(awaiting(ctx.principal))
    else:
        if not sees_all(ctx.principal):
            raise Forbidden("The all tab is for head and executive")
        stmt = in_scope(stmt, visible(ctx.principal))
    stmt = stmt.order_by(LeaveRequest.start_date.desc(), LeaveRequest.created_at.desc(), LeaveRequest.id)
    return [request_record(row) for row in ctx.db.execute(stmt.limit(LIST_LIMIT))]


def approved_leave_between(db, first, last, *, limit: int = 2000) -> list[tuple]:
    """The approved leave overlapping `first`..`last` (dates, inclusive) of active users, for the calendar's
    synthetic `leave` events: `(request id, user id, user name, start_date, end_date)`, by start date, one
    statement. Organisation-wide (the calendar shows who is away, never the leave type or notes)."""
    return list(db.execute(
        select(LeaveRequest.id, LeaveRequest.user_id, User.name, LeaveRequest.start_date, LeaveRequest.end_date)
        .join(User, User.id == LeaveRequest.user_id)
        .where(LeaveRequest.status == "approved", User.is_active.is_(True),
               LeaveRequest.start_date <= last, LeaveRequest.end_date >= first)
        .order_by(LeaveRequest.start_date, User.name, LeaveRequest.id).limit(limit)))


def pending_count(ctx) -> int:
    return ctx.db.scalar(select(func.count()).select_from(LeaveRequest).where(awaiting(ctx.principal)))


def get_request(ctx, *, request_id: str) -> dict:
    request = load_leave_request(ctx, request_id)
    return {"request": one_record(ctx.db, request.id), "history": history_records(ctx.db, request.id)}


# ---------------------------------------------------------------- notices

def _deciding_executives(*where):
    """`SELECT users.id` of the active executives who may decide leave (update:leave: approving and rejecting
    require it; an executive below it is told nothing and lists nothing, session 26), matching `where`."""
    return select(User.id).where(User.access_level == "executive", User.is_active.is_(True),
                                 User.id.in_(leave_holders("update")), *where)


def _executive_ids(db, exclude: str | None = None) -> list[str]:
    """The ids of the executives who decide leave (`_deciding_executives`), but `exclude`: one statement."""
    stmt = _deciding_executives()
    if exclude:
        stmt = stmt.where(User.id != exclude)
    return list(db.scalars(stmt.order_by(User.id)))


def _requested_notices(ctx, approvers, *, request_id: str, requester_name: str, type_name: str, start_date,
                       end_date) -> list[dict]:
    """The `leave_requested` notices of one request to its approvers (the actor left out). Every approver holds
    update:leave (the squad manager `_notify_next` and `_first_step_approver` name, `_deciding_executives`), so may
    read the request the notice names and links (session 26)."""
    title = f"Leave request from {requester_name}: {type_name}, {start_date.isoformat()} to {end_date.isoformat()}"
    return [{"user_id": user_id, "type": "leave_requested", "title": title, "resource_type": ENTITY,
             "resource_id": request_id, "action_url": f"/leave/requests/{request_id}", "actor_id": ctx.user_id}
            for user_id in approvers if user_id != ctx.user_id]


def _notify_next(ctx, request: LeaveRequest, requester: User) -> None:
    """`leave_requested` to whoever decides the next step: the squad manager at the first step (executives when
    there is none, or they are deactivated or below update:leave, as `queries.awaiting`), every executive at the
    second (only those holding update:leave, `_executive_ids`); core notify's 5-minute de-duplication applies, as
    document 3 states for every notification."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    approvers: list[str] = []
    if request.status == "pending_manager":
        manager = squad_manager_id(ctx.db, request.user_id)
        if manager and manager != request.user_id:
            active = ctx.db.scalar(select(User.id).where(User.id == manager, User.is_active.is_(True),
                                                         User.id.in_(leave_holders("update"))))
            approvers = [active] if active else []
    if not approvers:
        approvers = _executive_ids(ctx.db, request.user_id)
    notify_many(ctx, _requested_notices(
        ctx, approvers, request_id=request.id, requester_name=requester.name, type_name=request.leave_type_name,
        start_date=request.start_date, end_date=request.end_date))


# ---------------------------------------------------------------- approvers changed by an admin write

# Once per process: an alias proxies its table's columns on first use.
_REQUESTER, _REQUESTER_SQUAD = aliased(User, name="requester"), aliased(Squad, name="requester_squad")
_REQUESTER_MANAGER = aliased(User, name="requester_manager")


def _first_step_approver():
    """Who decides a first step: the requester's squad manager, or None where the executives do (no squad, no
    squad manager, the requester's own squad, a deactivated manager, a manager below update:leave), as
    `_notify_next` and `queries.awaiting` have it (over the requester, squad and manager aliases joined by
    `_approver_select`)."""
    member, squad, manager = _REQUESTER, _REQUESTER_SQUAD, _REQUESTER_MANAGER
    return case((and_(squad.manager_id.is_not(None), squad.manager_id != member.id, manager.is_active.is_(True),
                      squad.manager_id.in_(leave_holders("update"))), squad.manager_id), else_=None)


def _approver_select(*where):
    """The requests matching `where` with their requester's name and `approver` (`_first_step_approver`).
    Oldest first, at most LIST_LIMIT."""
    member, squad, manager = _REQUESTER, _REQUESTER_SQUAD, _REQUESTER_MANAGER
    return (select(LeaveRequest.id, LeaveRequest.user_id, member.name, LeaveRequest.leave_type_name,
                   LeaveRequest.start_date, LeaveRequest.end_date, _first_step_approver().label("approver"))
            .join(member, member.id == LeaveRequest.user_id)
            .outerjoin(squad, squad.id == member.squad_id).outerjoin(manager, manager.id == squad.manager_id)
            .where(*where)
            .order_by(LeaveRequest.created_at, LeaveRequest.id).limit(LIST_LIMIT))


def _first_step_select(where):
    """The pending first-step requests matching `where` with who decides them (`approver`; None: the
    executives)."""
    return _approver_select(LeaveRequest.status == "pending_manager", where)


def first_step_approvers(db, *, user_ids=(), squad_ids=(), managed_by: str | None = None) -> dict[str, str | None]:
    """Before an admin write that may change who decides the first step of pending leave (a user's squad, a
    squad's manager, a squad deleted, a manager deactivated): the `pending_manager` requests of the users named,
    of the members of the squads named and of the members of the squads `managed_by` manages, each with its
    approver (None: the executives). One statement; hand the answer to `tell_new_approvers` after the write."""
    clauses = []
    if user_ids:
        clauses.append(LeaveRequest.user_id.in_(list(user_ids)))
    if squad_ids:
        clauses.append(LeaveRequest.user_id.in_(select(User.id).where(User.squad_id.in_(list(squad_ids)))))
    if managed_by:
        clauses.append(LeaveRequest.user_id.in_(select(User.id).join(Squad, Squad.id == User.squad_id)
                                                .where(Squad.manager_id == managed_by)))
    if not clauses:
        return {}
    return {row.id: row.approver for row in db.execute(_first_step_select(or_(*clauses)))}


def tell_new_approvers(ctx, before: dict[str, str | None]) -> None:
    """After the admin write: `leave_requested` to the new approver(s) of each request of `before` (from
    `first_step_approvers`) still at its first step whose approver changed: the new squad manager, or every
    active executive but the requester where the executives now decide; the actor is left out, as in every leave
    notice. The old approver's notice stays (their pending tab no longer lists the request). A fixed number of
    statements whatever the number of requests: one read, the executives' ids when they now decide, and
    `notify_many`'s (docs/decisions/leave.md, session 24)."""
    if not before:
        return
    _tell_approvers(ctx, [row for row in ctx.db.execute(_first_step_select(LeaveRequest.id.in_(list(before))))
                          if row.approver != before[row.id]])


def _tell_approvers(ctx, rows) -> None:
    """`leave_requested` for each first-step row of `_first_step_select` to its approver: the squad manager, or
    every active executive deciding leave but the requester (None); the actor left out.
    The executives' ids read only when some row needs them, then `notify_many`'s statements."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    executives = _executive_ids(ctx.db) if any(row.approver is None for row in rows) else []
    notices = []
    for row in rows:
        approvers = [row.approver] if row.approver else [user_id for user_id in executives if user_id != row.user_id]
        notices.extend(_requested_notices(ctx, approvers, request_id=row.id, requester_name=row.name,
                                          type_name=row.leave_type_name, start_date=row.start_date,
                                          end_date=row.end_date))
    notify_many(ctx, notices)


def deciders_changed(ctx, user_ids) -> None:
    """After an admin write that moved these users' (a list or a SELECT of ids) effective leave level across
    update (their override, their access level's matrix cell, a change of access level: admin.service_permissions'
    `permissions_moved`, session 26): the pending first steps of the members of the squads they manage, whose
    decider the write moved between the manager and the executives, are told to whoever now decides them
    (`_first_step_approver`): the executives when the manager fell below update:leave, the manager when they rose
    to it. Only active managers, and not their own requests: the executives decided those already and still do.
    The old approvers' notices stay (their pending tab no longer lists the requests), as in `tell_new_approvers`.
    One read whatever the number of users and requests (at most LIST_LIMIT, oldest first), the executives' ids
    when they now decide, then `notify_many`'s.
    The active executives among them who now hold update:leave (they rose to it) are told of the requests waiting
    on the executives, as `tell_new_executive` (an executive who fell below is no longer listed nor told: nothing
    to send): one read of those executives, one of the requests when there are some, then `notify_many`'s."""
    squad = _REQUESTER_SQUAD
    _tell_approvers(ctx, ctx.db.execute(_first_step_select(and_(
        squad.manager_id.in_(user_ids), squad.manager_id != _REQUESTER.id,
        _REQUESTER_MANAGER.is_active.is_(True)))).all())
    risen = list(ctx.db.scalars(_deciding_executives(User.id.in_(user_ids)).order_by(User.id)))
    if risen:
        _tell_executives(ctx, risen, ctx.db.execute(_waiting_on_executives()).all())


def _waiting_on_executives(*where):
    """`_approver_select` of the requests waiting on the executives, as `queries.awaiting` has it: every
    `pending_exec` request, and the first step of requesters whom no squad manager approves."""
    return _approver_select(or_(LeaveRequest.status == "pending_exec",
                                and_(LeaveRequest.status == "pending_manager", _first_step_approver().is_(None))),
                            *where)


def _tell_executives(ctx, executive_ids: list[str], rows) -> None:
    """`leave_requested` to each of `executive_ids` for each row of `_waiting_on_executives` but their own; the
    actor left out, then `notify_many`'s statements (none without notices)."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    notices = []
    for row in rows:
        notices.extend(_requested_notices(ctx, [user_id for user_id in executive_ids if user_id != row.user_id],
                                          request_id=row.id, requester_name=row.name,
                                          type_name=row.leave_type_name, start_date=row.start_date,
                                          end_date=row.end_date))
    if notices:
        notify_many(ctx, notices)


def tell_new_executive(ctx, user_id: str) -> None:
    """After an admin write that made `user_id` an active executive (promoted, or an executive reactivated):
    `leave_requested` to them for each request now waiting on the executives, as `queries.awaiting` has it (every
    `pending_exec` request, and the first step of requesters whom no squad manager approves), but their own; the
    actor is left out, as in every leave notice. Notices they had before are de-duplicated by notify. Nothing
    when they are below update:leave: they decide no leave (session 26; told when they rise to it,
    `deciders_changed`). One read whatever the number of requests, then `notify_many`'s (docs/decisions/leave.md,
    session 25)."""
    rows = ctx.db.execute(_waiting_on_executives(LeaveRequest.user_id != user_id,
                                                 leave_holders("update").where(User.id == user_id).exists()))
    _tell_executives(ctx, [user_id], rows)


def _notify_requester(ctx, request: LeaveRequest, type: str, title: str, body: str | None = None) -> None:
    """The requester's notice of a decision (not when they made it): the title names their own leave; the link
    only when they may read leave (view:leave: it would answer 403 otherwise; session 26), one statement."""
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    if request.user_id != ctx.user_id:
        reads = ctx.db.scalar(leave_holders("view").where(User.id == request.user_id)) is not None
        notify(ctx, user_id=request.user_id, type=type, title=title, body=body, resource_type=ENTITY,
               resource_id=request.id, action_url=f"/leave/requests/{request.id}" if reads else None,
               actor_id=ctx.user_id)


# ---------------------------------------------------------------- writes

# One request covers at most a year: the planner and calendar integrations walk its days after commit.
MAX_SPAN_DAYS = 366
# the last day a request may not reach: the calendar's exclusive end and the planner's walk take the day after its
# end, which does not exist after 9999-12-31 (an approved request's integrations failed for good; session 22)
LAST_DAY = date.max


def create_request(ctx, *, data) -> dict:
    if data.end_date < data.start_date:
        raise bad_field("end_date", "must not be before start_date")
    if (data.end_date - data.start_date).days >= MAX_SPAN_DAYS:
        raise bad_field("end_date", f"a leave request spans at most {MAX_SPAN_DAYS} days (split a longer leave)")
    if data.end_date >= LAST_DAY:  # the integrations take the day after it (the calendar's exclusive end)
        raise bad_field("end_date", "must be before 9999-12-31")
    type_name = data.leave_type_name
    if ctx.db.scalar(select(LeaveType.id).limit(1)) is not None:  # the ledger's types are known: check it
        known = ctx.db.scalar(select(LeaveType.name).where(LeaveType.id == data.leave_type_id))
        if known is None:
            raise bad_field("leave_type_id", "must be a leave type of the ledger")
        type_name = known
    lock_key(ctx.db, "leave-requests", ctx.user_id)  # two overlapping submissions serialise: one is 409
    overlap = ctx.db.scalar(select(LeaveRequest.id).where(
        LeaveRequest.user_id == ctx.user_id, LeaveRequest.status.in_(ACTIVE),
        LeaveRequest.start_date <= data.end_date, LeaveRequest.end_date >= data.start_date).limit(1))
    if overlap:
        raise Conflict("This request overlaps another pending or approved leave request of yours")
    status = INITIAL_STATUS[ctx.principal.access_level]
    request = LeaveRequest(user_id=ctx.user_id, leave_type_id=data.leave_type_id, leave_type_name=type_name,
                           start_date=data.start_date, end_date=data.end_date, total_hours=data.total_hours,
                           notes=data.notes, status=status)
    if status == "approved":
        request.exec_approved_by, request.exec_approved_at = ctx.user_id, utcnow()
    ctx.db.add(request)
    ctx.db.flush()
    _history(ctx, request.id, "submitted", data.notes)
    if status == "approved":
        _history(ctx, request.id, "approved")
        service_integrations.run_after_commit(ctx, request.id)
    else:
        _notify_next(ctx, request, ctx.principal.user)
    ctx.db.flush()
    return one_record(ctx.db, request.id)


def _approver_of_step(ctx, request: LeaveRequest) -> None:
    """403 unless the caller decides the request's current step (never their own request)."""
    if request.user_id == ctx.user_id:
        raise Forbidden("You cannot decide your own leave request")
    if request.status == "pending_manager":
        if not (_is_executive(ctx) or squad_manager_id(ctx.db, request.user_id) == ctx.user_id):
            raise Forbidden("Only the squad manager or an executive approves this step")
    elif request.status == "pending_exec":
        if not _is_executive(ctx):
            raise Forbidden("Only an executive approves this step")


def _locked(ctx, request_id: str) -> LeaveRequest:
    load_leave_request(ctx, request_id)
    return lock_row(ctx.db, LeaveRequest, request_id, missing="Leave request")


def approve(ctx, *, request_id: str) -> dict:
    request = _locked(ctx, request_id)
    if request.status not in PENDING:
        raise Conflict(f"A {request.status} request cannot be approved")
    _approver_of_step(ctx, request)
    now = utcnow()
    if request.status == "pending_manager":
        request.status, request.manager_approved_by, request.manager_approved_at = "pending_exec", ctx.user_id, now
        ctx.db.flush()
        _history(ctx, request.id, "manager_approved")
        _notify_next(ctx, request, ctx.db.get(User, request.user_id))
    else:
        request.status, request.exec_approved_by, request.exec_approved_at = "approved", ctx.user_id, now
        ctx.db.flush()
        _history(ctx, request.id, "approved")
        _notify_requester(ctx, request, "leave_approved", f"Your leave was approved: {request.leave_type_name}, "
                          f"{request.start_date.isoformat()} to {request.end_date.isoformat()}")
        service_integrations.run_after_commit(ctx, request.id)
    ctx.db.flush()
    return one_record(ctx.db, request.id)


def reject(ctx, *, request_id: str, data) -> dict:
    request = _locked(ctx, request_id)
    if request.status not in PENDING:
        raise Conflict(f"A {request.status} request cannot be rejected")
    _approver_of_step(ctx, request)
    request.status, request.rejected_by, request.rejected_at = "rejected", ctx.user_id, utcnow()
    request.rejection_reason = data.reason
    ctx.db.flush()
    _history(ctx, request.id, "rejected", data.reason)
    _notify_requester(ctx, request, "leave_rejected", f"Your leave request was rejected: {request.leave_type_name}",
                      body=data.reason)
    ctx.db.flush()
    return one_record(ctx.db, request.id)


def cancel(ctx, *, request_id: str) -> dict:
    request = _locked(ctx, request_id)
    if request.user_id != ctx.user_id and not _is_executive(ctx):
        raise Forbidden("Only the requester or an executive cancels a leave request")
    if request.status not in (*PENDING, "approved"):
        raise Conflict(f"A {request.status} request cannot be cancelled")
    was_approved = request.status == "approved"
    request.status, request.cancelled_by, request.cancelled_at = "cancelled", ctx.user_id, utcnow()
    ctx.db.flush()
    _history(ctx, request.id, "cancelled")
    _notify_requester(ctx, request, "leave_cancelled", f"Your leave was cancelled: {request.leave_type_name}")
    if was_approved:
        service_integrations.reverse_after_commit(ctx, request.id)
    ctx.db.flush()
    return one_record(ctx.db, request.id)


def retry_integrations(ctx, *, request_id: str) -> dict:
    """Re-runs the integrations that have no id yet (failed or skipped), answering the request after the
    providers answered; no transaction is held open during the calls. 409 while another run holds the request
    (its claim: service_integrations.claim), so that two runs never make the same external object; 409 too when
    the ledger was asked when a run stopped (`ledger_interrupted`, session 32: booking again could deduct twice).
    A cancelled request whose reversal failed (a ledger, planner or calendar id kept) has what it still holds
    reversed instead (`_retry_reversal`, session 26)."""
    request = load_leave_request(ctx, request_id)
    if request.status == "cancelled":
        return _retry_reversal(ctx, request)
    if request.status != "approved":
        raise Conflict("Only an approved request runs integrations")
    token = service_integrations.claim(ctx.db, request.id)
    if token is None:
        if ctx.db.scalar(select(LeaveRequest.status).where(LeaveRequest.id == request.id)) != "approved":
            raise Conflict("Only an approved request runs integrations")  # cancelled since it was read
        raise Conflict("Integrations are already running for this request")
    request = lock_row(ctx.db, LeaveRequest, request.id, missing="Leave request")  # as the run before this one left it
    if service_integrations.ledger_interrupted(request):  # refused before writing: the claim goes with the rollback
        raise Conflict(service_integrations.INTERRUPTED_LEDGER)
    names = [name for name, field in service_integrations.ID_FIELDS.items() if not getattr(request, field)]
    _history(ctx, request.id, "integrations_retried", ", ".join(names) or None)
    ctx.db.flush()
    service_integrations.run(ctx, request.id, names, token=token)
    return one_record(ctx.db, request.id)


NOTHING_TO_REVERSE = "A cancelled request whose integrations are reversed has nothing left to reverse"


def _retry_reversal(ctx, request: LeaveRequest) -> dict:
    """Reverse again what a cancelled request still holds (`service_integrations.left_to_reverse`: its earlier
    reversal failed, or never ran; a chat cancellation not yet posted, session 27), claimed as the cancellation's
    reversal is, the claim and the history entry committed before the providers are called; answers the request
    after they answered, as a retry of an approved request does. 409 when nothing is left to reverse (the chat
    post's ts is never reversed; a posted cancellation is not posted again) or a run holds the request. Not held
    back by the job's cap (service_integrations.REVERSAL_ATTEMPTS)."""
    if not service_integrations.left_to_reverse(request):
        raise Conflict(NOTHING_TO_REVERSE)
    token = service_integrations.claim(ctx.db, request.id, status="cancelled")
    if token is None:
        raise Conflict("Integrations are already running for this request")
    request = lock_row(ctx.db, LeaveRequest, request.id, missing="Leave request")  # as the run before left it
    names = service_integrations.left_to_reverse(request)
    if not names:  # reversed since it was read; the claim goes with the rollback
        raise Conflict(NOTHING_TO_REVERSE)
    _history(ctx, request.id, "integrations_retried", "Reversal: " + ", ".join(names))
    ctx.db.flush()
    service_integrations.reverse_again(ctx, request.id, token=token)
    return one_record(ctx.db, request.id)
