"""The onboarding automation of a public accept (document 2, Events; decisions.md section 5), run inside the
accept's transaction so that all of it happens or none of it:

1. a project for the proposal's company (none without a company: the project has no company), owned by an
   active user or by nobody (`_owner_of_made`: the proposal's owner when active, else the company's owner when
   active, else none; session 24), who is its one member (role owner) when there is one;
2. with pricing: a draft budget of that project, owned by the same user (or nobody), from the pricing sections'
   items (each item a line item, titled "<section>: <description>");
3. with that budget (type `fixed_price`: the accepted pricing is the price): a draft invoice generated from
   it (the invoices area: one line of the whole price, 0.00 for a free proposal), which is the company's first
   invoice milestone when it has no other;
4. always a contract signed by the accepting name and email;
5. the linked deal moved to won and the project linked to it (project_deal_links, linked_by none: the public
   accept has no actor), and a prospect company made a client (with its client profile);
6. the company's client onboarding milestones with auto_source `deal_won` completed (onboarding started
   from the profile's or the default template when needed), and those of the deal's own company when the deal
   really moved to won now and its company is another (or the proposal names none).
The owner's notification (and the project's owner's, when another user: session 25) and the history entry are written
by the caller (service_public.accept), which `run_onboarding` answers the project's owner.
"""
from __future__ import annotations

from sqlalchemy import case, or_, select

from chalicelib.core.models import User
from chalicelib.core.timeutil import iso

from .models import PricingItem, PricingSection, Proposal


def _pricing_items(db, proposal_id: str) -> list[dict]:
    rows = db.execute(select(PricingSection.title, PricingItem)
                      .join(PricingItem, PricingItem.section_id == PricingSection.id)
                      .where(PricingSection.proposal_id == proposal_id)
                      .order_by(PricingSection.position, PricingSection.id, PricingItem.position, PricingItem.id)).all()
    return [{"description": f"{title}: {item.description}"[:2000], "quantity": item.quantity,
             "unit_price": item.unit_price, "service_type_id": item.service_type_id} for title, item in rows]


def _owner_of_made(db, proposal: Proposal) -> str | None:
    """The owner of the project and budget the accept makes: the proposal's owner when active, else its company's
    owner when active, else None (session 24: the staff creates refuse an inactive owner, and a proposal whose owner
    left after sending it made a project whose only member, and a budget whose owner, could not sign in). One
    statement: the active users among the two, the proposal's owner first."""
    from chalicelib.areas.deals import service as deals_service

    candidates = [User.id == proposal.owner_id] if proposal.owner_id else []
    if proposal.company_id:
        company = deals_service.company_table()
        candidates.append(User.id == select(company.c.owner_id).where(company.c.id == proposal.company_id)
                          .scalar_subquery())
    if not candidates:
        return None
    query = select(User.id).where(User.is_active.is_(True), or_(*candidates)).limit(1)
    if proposal.owner_id:
        query = query.order_by(case((User.id == proposal.owner_id, 0), else_=1))
    return db.scalar(query)


def run_onboarding(ctx, proposal: Proposal, *, name: str, email: str, accepted_at) -> tuple[dict, str | None]:
    """The automation for `proposal`, accepted by `name` <`email`> at `accepted_at`; answers what it made
    (`project_id`, `budget_id`, `invoice_id`, `contract_id`, `deal_won`, `onboarding_milestones`) and the owner it
    gave the project and budget (an active user or None; kept out of what it made, which the history names). The
    proposal's row is not written here: the caller writes it once with these ids (service_public.accept), having
    locked the company and the deal before it."""
    from chalicelib.areas.budgets import service as budgets_service
    from chalicelib.areas.clients import service as clients_service
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.areas.projects import service as projects_service

    created: dict = {}
    owner_id = _owner_of_made(ctx.db, proposal)  # an active user or None: the project's member only when one
    created["project_id"] = projects_service.create_project_for(
        ctx, name=proposal.title, company_id=proposal.company_id, owner_id=owner_id,
        description=f"Created when the proposal \"{proposal.title}\" was accepted.")
    items = _pricing_items(ctx.db, proposal.id)
    if items:
        from chalicelib.areas.invoices import service as invoices_service

        created["budget_id"] = budgets_service.create_budget_for(
            ctx, name=proposal.title, project_id=created["project_id"], company_id=proposal.company_id,
            currency=proposal.currency, owner_id=owner_id, items=items, budget_type="fixed_price")
        created["invoice_id"] = invoices_service.create_draft_from_budget(ctx, budget_id=created["budget_id"],
                                                                          currency=proposal.currency)
    created["contract_id"] = clients_service.create_contract_for(
        ctx, title=proposal.title, company_id=proposal.company_id, proposal_id=proposal.id, status="signed",
        signers=[{"name": name, "email": email, "signed_at": iso(accepted_at)}])
    won = None
    if proposal.deal_id:
        # the project -> deal trail of GET /api/projects/:id/deal; no actor, as the rest of the public accept
        projects_service.link_deal_for(ctx, project_id=created["project_id"], deal_id=proposal.deal_id, linked_by=None)
        won = deals_service.mark_deal_won(ctx.db, proposal.deal_id)
        if won and won["changed"]:  # history says deal_won only when the deal really moved to won (session 24)
            created["deal_won"] = proposal.deal_id
    if proposal.company_id and deals_service.mark_client(ctx.db, proposal.company_id):
        created["company_became_client"] = proposal.company_id
    from chalicelib.areas.onboarding import service as onboarding_service

    created["onboarding_milestones"] = onboarding_service.auto_complete(ctx, company_id=proposal.company_id,
                                                                       source="deal_won")
    if won and won["changed"] and won["company_id"] and won["company_id"] != proposal.company_id:
        # the deal's own company, as any other move of a deal to won completes it (session 24)
        created["onboarding_milestones"] += onboarding_service.auto_complete(ctx, company_id=won["company_id"],
                                                                            source="deal_won")
    return created, owner_id
