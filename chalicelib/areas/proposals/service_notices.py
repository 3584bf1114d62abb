"""Notices to a proposal's owner (viewed, accepted, declined, approved, changes requested, expired), to the owner of
the project an accept made when that is another user (`tell_project_owner`), and, when the proposal's owner is not told,
to the first reader of the proposal among its deal's owner and its company's owner (`tell_owner_or_reader`,
`tell_expired`; session 25), and to a listed approver reactivated while a proposal waits on them (`user_reactivated`;
session 25) or whose proposals:update an admin gave back (`approvers_regained`; session 26): for service.py and
service_public.py (a leaf module: the area's service is never imported by its service_*.py)."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core.models import User
from chalicelib.core.permissions import allows, holders_select

from .models import Proposal, ProposalApproval


def tell_owner(ctx, proposal: Proposal, type: str, title: str, body: str | None = None,
               actor_id: str | None = None) -> bool:
    """`type` to the proposal's owner unless they made the move (`actor_id`) or may no longer read the proposal:
    active and holding proposals:view (the owner is always in their proposal's scope), as the approvers told of a
    submit (session 22: an owner whose permission was lowered was still told the title). Their principal in one
    statement, then the notice. Answers whether the owner was told (False: no owner, the actor, or no reader)."""
    from chalicelib.core.auth import principals_of
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    owner_id = proposal.owner_id
    if not owner_id or owner_id == actor_id:
        return False
    principal = principals_of(ctx.db, [owner_id]).get(owner_id)
    if principal is None or not allows(principal.permissions, "proposals", "view"):
        return False
    notify(ctx, user_id=owner_id, type=type, title=title, body=body, resource_type="proposal", resource_id=proposal.id,
           action_url=f"/proposals/{proposal.id}", actor_id=actor_id)
    return True


def stand_in_columns() -> tuple:
    """The owners of a proposal's deal and of its company, as columns of a statement that reads `proposals` (scalar
    subqueries correlated to the proposal: a FOR UPDATE of that statement locks no deal nor company)."""
    from chalicelib.areas.deals import service as deals_service

    deal, company = deals_service.Deal, deals_service.company_table()
    return (select(deal.owner_id).where(deal.id == Proposal.deal_id).scalar_subquery().label("deal_owner_id"),
            select(company.c.owner_id).where(company.c.id == Proposal.company_id).scalar_subquery()
            .label("company_owner_id"))


def first_readers(db, candidates: dict[str, list]) -> dict[str, str]:
    """`{proposal_id: the first of its candidates (in their order) who may read it}`, for the proposals with one:
    active, holding proposals:view and the proposal in their scope (`queries.visible`, the area's rule), asked as each
    of them by core.readers.rows_readers in two statements at most whatever the number of proposals and users."""
    from chalicelib.core.readers import rows_readers

    from .queries import visible

    wanted = {pid: {user_id for user_id in ids if user_id} for pid, ids in candidates.items()}
    if not any(wanted.values()):
        return {}
    found = rows_readers(db, Proposal, wanted, tool="proposals", scope_of=visible)
    return {pid: next(user_id for user_id in ids if user_id in found[pid])
            for pid, ids in candidates.items() if found[pid]}


def _notice(proposal_id: str, user_id: str, type: str, title: str, body: str | None) -> dict:
    return {"user_id": user_id, "type": type, "title": title, "body": body, "resource_type": "proposal",
            "resource_id": proposal_id, "action_url": f"/proposals/{proposal_id}"}


def tell_owner_or_reader(ctx, proposal: Proposal, type: str, title: str, body: str | None = None) -> None:
    """A client's move (viewed, declined, expired in the public viewer: no actor) to the proposal's owner
    (`tell_owner`); when the owner is not told (none, inactive, or no longer a reader), to the first reader of the
    proposal among its deal's owner and its company's owner (session 25: nobody heard of it). Their ids in one
    statement, their reading as `first_readers`; nobody when neither reads it."""
    from chalicelib.core.notify import notify_many

    if tell_owner(ctx, proposal, type, title, body):
        return
    row = ctx.db.execute(select(*stand_in_columns()).where(Proposal.id == proposal.id)).one_or_none()
    if row is None:
        return
    ids = [user_id for user_id in (row.deal_owner_id, row.company_owner_id) if user_id != proposal.owner_id]
    reader = first_readers(ctx.db, {proposal.id: ids}).get(proposal.id)
    if reader:
        notify_many(ctx, [_notice(proposal.id, reader, type, title, body)])


def expired_title(title: str) -> str:
    return f"Proposal expired: {title}"


def expired_body(valid_until) -> str:
    return f"Valid until {valid_until.isoformat()}, it expired unanswered."


def tell_expired(ctx, rows) -> int:
    """`proposal_expired` for each of these expired proposals (rows of id, title, valid_until, owner_id and the
    `stand_in_columns`, read with them) to its owner while a reader, else to the first reader among its deal's owner
    and its company's owner (as `tell_owner_or_reader`; session 25: the hourly expiry told nobody). One notice per
    proposal; a fixed number of statements whatever their number (`first_readers`, then one notify_many). Answers
    the notices written."""
    from chalicelib.core.notify import notify_many

    rows = list(rows)
    readers = first_readers(ctx.db, {row.id: [row.owner_id, row.deal_owner_id, row.company_owner_id] for row in rows})
    notices = [_notice(row.id, readers[row.id], "proposal_expired", expired_title(row.title),
                       expired_body(row.valid_until)) for row in rows if row.id in readers]
    return len(notify_many(ctx, notices)) if notices else 0


def tell_project_owner(ctx, proposal: Proposal, *, owner_id: str | None, project_id: str, title: str,
                       body: str | None = None) -> None:
    """`proposal_accepted` to the owner of the project the accept made when that is not the proposal's owner (the
    company's owner, the proposal's being inactive: service_onboarding._owner_of_made; session 25), who else learnt
    of nothing that waits for them. About the project they own (resource and link: they may not read the proposal,
    whose title is the project's name), while they may read projects: active and holding projects:view (a project's
    owner is always in its scope). None for no owner, nor for the proposal's owner (told by `tell_owner`: once).
    Written in the accept's transaction, delivered after commit as every notice (core.notify)."""
    from chalicelib.core.auth import principals_of
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    if not owner_id or owner_id == proposal.owner_id:
        return
    principal = principals_of(ctx.db, [owner_id]).get(owner_id)
    if principal is None or not allows(principal.permissions, "projects", "view"):
        return
    notify(ctx, user_id=owner_id, type="proposal_accepted", title=title, body=body, resource_type="project",
           resource_id=project_id, action_url=f"/projects/{project_id}")


def submitted_title(title: str) -> str:
    """The title of `proposal_submitted`: what a submit tells the listed approvers."""
    return f"Proposal to approve: {title}"


def user_reactivated(ctx, user_id: str) -> int:
    """After the admin write that made `user_id` active again (admin.update_user calls it through service.py): a
    listed approver deactivated when the proposal was submitted was not told (notify skips inactive users), and the
    proposal waits on them in `review`; told as `approvers_regained` tells (session 25; since session 26 only while
    they may approve: proposals:update). Answers the notices written."""
    return approvers_regained(ctx, [user_id])


def approvers_regained(ctx, user_ids) -> int:
    """After an admin write after which these users (a list or a SELECT of ids) may approve again: reactivated
    (`user_reactivated`, session 25), or their effective proposals level raised to update or above by their
    override, their access level's matrix cell or a change of access level (admin.service_permissions'
    `permissions_moved`, session 26). A listed approver not told of a submit while inactive or without
    proposals:view, or told while they could only read it, finds the proposal waiting on them. `proposal_submitted`
    (the submit's title and link) for each proposal in review listing them with no approval of theirs in the round,
    but those they own (nobody decides their own), to each of them who is active and holds proposals:update
    (approving needs it; a listed approver is in the proposal's scope by `queries.visible`, so they read it). One
    read of the proposals and their approvers (the holders as a subquery), then one notify_many: a fixed number of
    statements whatever the number of proposals and users (docs/decisions/proposals.md, sessions 25, 26). The actor
    is the caller (the administrator, never told), as a leave notice to a returning approver has it; a notice of the
    same proposal told them within notify's window is not repeated. Answers the notices written."""
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    approver = ProposalApproval.user_id
    where = [Proposal.status == "review", approver.in_(user_ids), ProposalApproval.listed.is_(True),
             ProposalApproval.approved_at.is_(None), Proposal.owner_id.is_distinct_from(approver),
             User.is_active.is_(True), approver.in_(holders_select("proposals", "update").correlate(None))]
    if ctx.user_id:
        where.append(approver != ctx.user_id)
    rows = ctx.db.execute(select(Proposal.id, Proposal.title, approver)
                          .join(ProposalApproval, ProposalApproval.proposal_id == Proposal.id)
                          .join(User, User.id == approver).where(*where)
                          .order_by(approver, Proposal.created_at, Proposal.id)).all()
    if not rows:
        return 0
    return len(notify_many(ctx, [{**_notice(row.id, row.user_id, "proposal_submitted", submitted_title(row.title),
                                            None), "actor_id": ctx.user_id} for row in rows]))
