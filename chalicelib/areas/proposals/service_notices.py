"""Notices to a proposal's owner (viewed, accepted, declined, approved, changes requested), and to the owner of the
project an accept made when that is another user (`tell_project_owner`): for service.py and service_public.py (a leaf
module: the area's service is never imported by its service_*.py)."""
from __future__ import annotations

from chalicelib.core.permissions import allows

from .models import Proposal


def tell_owner(ctx, proposal: Proposal, type: str, title: str, body: str | None = None,
               actor_id: str | None = None) -> None:
    """`type` to the proposal's owner unless they made the move (`actor_id`) or may no longer read the proposal:
    active and holding proposals:view (the owner is always in their proposal's scope), as the approvers told of a
    submit (session 22: an owner whose permission was lowered was still told the title). Their principal in one
    statement, then the notice."""
    from chalicelib.core.auth import principals_of
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    owner_id = proposal.owner_id
    if not owner_id or owner_id == actor_id:
        return
    principal = principals_of(ctx.db, [owner_id]).get(owner_id)
    if principal is None or not allows(principal.permissions, "proposals", "view"):
        return
    notify(ctx, user_id=owner_id, type=type, title=title, body=body, resource_type="proposal", resource_id=proposal.id,
           action_url=f"/proposals/{proposal.id}", actor_id=actor_id)


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
