"""Notices to a proposal's owner (viewed, accepted, declined, approved, changes requested): for service.py and
service_public.py (a leaf module: the area's service is never imported by its service_*.py)."""
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
