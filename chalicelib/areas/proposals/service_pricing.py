"""Proposal pricing: sections with items. An item's amount is quantity x unit_price, computed exactly with
decimals and rounded half-up to the cent (an `amount` sent is ignored); the proposal's total_amount is the
sum of its items (null when it has no section). Replacing the pricing is one DELETE and two multi-row
INSERTs under the proposal's row lock; a change after acceptance or decline is a 409, and so is one once approved
(approved, sent, viewed: what the approver approved is what the client gets; docs/decisions/proposals.md, session
22)."""
from __future__ import annotations

from collections import Counter
from decimal import Decimal

from sqlalchemy import delete, func, select, update

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict, not_found
from chalicelib.core.ids import new_id, utcnow
from chalicelib.core.locks import insert_rows, lock_row
from chalicelib.core.lookup import list_items_among
from chalicelib.core.money import line_amount
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.schemas import MONEY_LIMIT

from .models import PricingItem, PricingSection, Proposal, ProposalApproval
from .queries import load_proposal, pricing_sections, require_changeable

# An item's amount: what the accept's budget holds of a line (budgets' AMOUNT_LIMIT, 10^12: session 28's money audit;
# it was 10^14, the column's size, which a JSON number answers to the cent only below 2^46, and which the accept wrote
# as a budget line budgets refuse)
AMOUNT_LIMIT = MONEY_LIMIT
# The total: what the budget's total and the invoice's fixed-price line made on accept hold (core Money, 12 digits).
TOTAL_LIMIT = MONEY_LIMIT
ITEM_LIMIT = LIST_LIMIT  # items of one proposal in all: GET pricing answers every one (decisions.md section 4)
FINAL = ("accepted", "declined", "expired")
# What the approver approved (session 22): pricing, currency and content stay as approved. The state machine has no
# move back from approved (request changes is from review only), so a change needs a new proposal: a duplicate.
APPROVED = ("approved", "sent", "viewed")
REAPPROVE = "duplicate it for a new draft to change and submit for approval"


def reset_approvals(db, proposal_id: str, status: str, *, actor_id: str | None, reason: str) -> list[str]:
    """In review, a change of what the approvers approve (`reason`: pricing, currency, content) clears the approvals
    given in the round, so each approver approves the version they read (session 23; document 2: review -> approved
    when all approvers have approved). One UPDATE (its RETURNING says whose were cleared) and, when any was, the
    history entry `approvals_reset`. Nothing in another status: from approved on the change is refused (409), and a
    submit clears every approval anyway."""
    if status != "review":
        return []
    cleared = sorted(db.scalars(update(ProposalApproval)
                                .where(ProposalApproval.proposal_id == proposal_id,
                                       ProposalApproval.approved_at.is_not(None))
                                .values(approved_at=None, comments=None).returning(ProposalApproval.user_id)).all())
    if cleared:
        history.record(db, entity_type="proposal", entity_id=proposal_id, action="approvals_reset", actor_id=actor_id,
                       changes={"reason": reason, "approver_ids": cleared})
    return cleared


def _pricing_shape(sections: list[dict], items: list[dict]) -> Counter:
    """What a pricing says, ids aside: each section's title and position with its items (every field but the
    computed amount) by position; a multiset, so that sections may share a position."""
    by_section: dict[str, list[tuple]] = {}
    for item in items:
        by_section.setdefault(item["section_id"], []).append(
            (item["position"], item["description"], item["service_type_id"], item["quantity"], item["unit_price"],
             item["notes"]))
    return Counter((s["title"], s["position"], tuple(sorted(by_section.get(s["id"], []), key=lambda i: i[0])))
                   for s in sections)


def _stored_shape(db, proposal_id: str) -> Counter:
    """The proposal's pricing as `_pricing_shape` says it: one statement (its sections outer joined to their items)."""
    rows = db.execute(select(PricingSection.id, PricingSection.title, PricingSection.position, PricingItem.position,
                             PricingItem.description, PricingItem.service_type_id, PricingItem.quantity,
                             PricingItem.unit_price, PricingItem.notes)
                      .outerjoin(PricingItem, PricingItem.section_id == PricingSection.id)
                      .where(PricingSection.proposal_id == proposal_id)).all()
    sections = {row[0]: {"id": row[0], "title": row[1], "position": row[2]} for row in rows}
    items = [{"section_id": row[0], "position": row[3], "description": row[4], "service_type_id": row[5],
              "quantity": row[6], "unit_price": row[7], "notes": row[8]} for row in rows if row[3] is not None]
    return _pricing_shape(list(sections.values()), items)


def get_pricing(ctx, *, proposal_id: str) -> dict:
    proposal = load_proposal(ctx, proposal_id)
    return {"sections": pricing_sections(ctx.db, proposal.id), "currency": proposal.currency,
            "total_amount": float(proposal.total_amount) if proposal.total_amount is not None else None}


def _locked(ctx, proposal_id: str) -> Proposal:
    load_proposal(ctx, proposal_id)
    # deleted while the lock was awaited
    proposal = lock_row(ctx.db, Proposal, proposal_id, missing="Proposal")
    require_changeable(ctx, proposal)  # a listed approver reads the pricing, never sets it (session 29)
    if proposal.status in FINAL:
        raise Conflict(f"The pricing of a proposal in status {proposal.status} cannot change")
    if proposal.status in APPROVED:
        raise Conflict(f"The pricing of an approved proposal (status {proposal.status}) cannot change without a new "
                       f"approval: {REAPPROVE}")
    return proposal


def refresh_total(ctx, proposal: Proposal) -> Decimal | None:
    has_sections = ctx.db.scalar(select(PricingSection.id).where(PricingSection.proposal_id == proposal.id).limit(1))
    total = ctx.db.scalar(select(func.sum(PricingItem.amount)).join(PricingSection,
                                                                     PricingSection.id == PricingItem.section_id)
                          .where(PricingSection.proposal_id == proposal.id))
    proposal.total_amount = None if has_sections is None else (total or Decimal("0"))
    proposal.updated_at = utcnow()
    return proposal.total_amount


def _check_service_types(ctx, proposal_id: str, sections) -> None:
    """Every item's service_type_id names an item of config list `service_type` (the budget and invoice lines made
    on accept carry it): 400 naming each item otherwise. Only ids not already on the proposal's stored items are
    checked (one query for those, one for the list's): a pricing read and sent back as it is saves although a
    service type it names was deleted since, as a budget's or invoice's line sent back unchanged does; a new
    reference to a deleted or wrong-list item is still a 400 (session 25, docs/decisions/proposals.md)."""
    named = {item.service_type_id for section in sections for item in section.items if item.service_type_id}
    if not named:
        return
    stored = set(ctx.db.scalars(select(PricingItem.service_type_id).distinct()
                                .join(PricingSection, PricingSection.id == PricingItem.section_id)
                                .where(PricingSection.proposal_id == proposal_id,
                                       PricingItem.service_type_id.is_not(None))))
    found = stored | list_items_among(ctx.db, "service_type", named - stored)
    details = [{"field": f"sections.{s}.items.{i}.service_type_id",
                "message": "must be an item of the service_type list"}
               for s, section in enumerate(sections) for i, item in enumerate(section.items)
               if item.service_type_id and item.service_type_id not in found]
    if details:
        raise BadRequest("Invalid pricing references", details=details)


def _check_amounts(sections) -> None:
    """Each item's amount fits its column and the total what the accept's budget and invoice hold, and is not below
    zero (discount lines, negative unit prices, may take it down to zero): 400 naming the item's amount or
    `sections` otherwise (each quantity and unit price fits, their product and sum may not)."""
    amounts = {(s, i): line_amount(item.quantity, item.unit_price)
               for s, section in enumerate(sections) for i, item in enumerate(section.items)}
    details = [{"field": f"sections.{s}.items.{i}.amount",
                "message": f"quantity x unit_price must be below {AMOUNT_LIMIT:,} in size"}
               for (s, i), amount in amounts.items() if abs(amount) >= AMOUNT_LIMIT]
    total = sum(amounts.values(), Decimal("0"))
    if not details and abs(total) >= TOTAL_LIMIT:
        details = [{"field": "sections", "message": f"the items' total must be below {TOTAL_LIMIT:,} in size"}]
    if not details and total < 0:  # a discount larger than the items: nothing the accept's budget could hold
        details = [{"field": "sections", "message": "the items' total must not be below zero"}]
    if details:
        raise BadRequest("Invalid pricing amounts", details=details)


def replace_pricing(ctx, *, proposal_id: str, sections) -> None:
    if sum(len(section.items) for section in sections) > ITEM_LIMIT:
        raise BadRequest(f"A proposal's pricing holds at most {ITEM_LIMIT} items",
                         details=[{"field": "sections", "message": f"at most {ITEM_LIMIT} items in all"}])
    proposal = _locked(ctx, proposal_id)
    _check_service_types(ctx, proposal.id, sections)
    _check_amounts(sections)
    before = proposal.total_amount
    # in review the approvals given stand only for the pricing they approved (session 23): the stored one, compared
    stored = _stored_shape(ctx.db, proposal.id) if proposal.status == "review" else None
    ctx.db.execute(delete(PricingSection).where(PricingSection.proposal_id == proposal.id))
    section_rows, item_rows, total = [], [], Decimal("0")
    for index, section in enumerate(sections):
        section_id = new_id()
        section_rows.append({"id": section_id, "proposal_id": proposal.id, "title": section.title,
                             "position": section.position if section.position is not None else index})
        for position, item in enumerate(section.items):
            amount = line_amount(item.quantity, item.unit_price)
            total += amount
            item_rows.append({"section_id": section_id, "description": item.description,
                              "service_type_id": item.service_type_id, "quantity": item.quantity,
                              "unit_price": item.unit_price, "amount": amount, "notes": item.notes,
                              "position": position})
    insert_rows(ctx.db, PricingSection, section_rows)
    insert_rows(ctx.db, PricingItem, item_rows)
    proposal.total_amount = total if section_rows else None
    proposal.updated_at = utcnow()
    history.record(ctx.db, entity_type="proposal", entity_id=proposal.id, action="pricing_replaced",
                   actor_id=ctx.user_id, changes={"sections": len(section_rows), "items": len(item_rows),
                                                  "total_amount": {"from": _num(before), "to": _num(proposal.total_amount)}})
    if stored is not None and stored != _pricing_shape(section_rows, item_rows):
        reset_approvals(ctx.db, proposal.id, proposal.status, actor_id=ctx.user_id, reason="pricing")
    ctx.db.flush()


def delete_section(ctx, *, proposal_id: str, section_id: str) -> None:
    proposal = _locked(ctx, proposal_id)
    section = ctx.db.scalar(select(PricingSection).where(PricingSection.id == section_id,
                                                         PricingSection.proposal_id == proposal.id))
    if section is None:
        raise not_found("Pricing section")
    before = proposal.total_amount
    ctx.db.delete(section)
    ctx.db.flush()
    if (refresh_total(ctx, proposal) or 0) < 0:  # a discount left larger than the items: as a replacement's 400
        raise Conflict("The pricing total would be below zero: remove or change the discount first")
    history.record(ctx.db, entity_type="proposal", entity_id=proposal.id, action="pricing_section_deleted",
                   actor_id=ctx.user_id, changes={"section": section.title, "total_amount": {
                       "from": _num(before), "to": _num(proposal.total_amount)}})
    reset_approvals(ctx.db, proposal.id, proposal.status, actor_id=ctx.user_id, reason="pricing")  # in review only (session 23)
    ctx.db.flush()


def _num(value):
    return float(value) if value is not None else None
