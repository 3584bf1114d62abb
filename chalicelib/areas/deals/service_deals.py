"""Deals: title, company, contact, owner, stage (config list `deal_stage`), value and status; a new owner is told
(`deal_assigned`)."""
from __future__ import annotations

from dataclasses import replace

from sqlalchemy.orm import Session

from chalicelib.core.errors import Conflict, bad_field
from chalicelib.core.locks import lock_row
from chalicelib.core.models import ConfigListItem
from chalicelib.core.query import Page, contains_text, record_page

from .models import Company, Contact, Deal
from .queries import (check_room, deal_order, deal_readers, deal_record, deal_records, deal_select,
                      require_company, require_user, stage_query, visible)


def _default_stage_id(db: Session) -> str | None:
    return db.scalar(stage_query().order_by(ConfigListItem.is_default.desc(), ConfigListItem.position,
                                            ConfigListItem.label, ConfigListItem.id).limit(1))


def _check_refs(db: Session, values: dict, deal: Deal | None = None) -> None:
    """The references a create names, or an update changes (`values` holds only the changed ones then): each
    must name a record (400 on its field); the owner an active user; the contact one of the deal's company or
    of none (checked when the contact or the company changes: the stored contact is read when only the company
    does)."""
    if values.get("company_id"):
        require_company(db, values["company_id"])
    contact = None
    if values.get("contact_id"):
        contact = db.get(Contact, values["contact_id"])
        if contact is None:
            raise bad_field("contact_id", "does not match a contact")
    if values.get("owner_id"):
        require_user(db, values["owner_id"], "owner_id")
    if values.get("stage_id") and db.scalar(stage_query().where(ConfigListItem.id == values["stage_id"])) is None:
        raise bad_field("stage_id", "is not an item of the deal_stage list")
    if "company_id" not in values and "contact_id" not in values:
        return
    company_id = values["company_id"] if "company_id" in values else deal.company_id
    if "contact_id" not in values and deal is not None and deal.contact_id and company_id:
        contact = db.get(Contact, deal.contact_id)  # only the company changes: the stored contact must follow
    if company_id and contact is not None and contact.company_id and contact.company_id != company_id:
        raise bad_field("contact_id", "must be a contact of the deal's company")


def _check_room(db: Session, values: dict, deal: Deal | None = None) -> None:
    """A company and a contact hold at most DETAIL_LIMIT deals each (409 beyond)."""
    for parent, column in ((Company, Deal.company_id), (Contact, Deal.contact_id)):
        parent_id = values.get(column.key)
        if parent_id and (deal is None or getattr(deal, column.key) != parent_id):
            check_room(db, parent, "deals", Deal, column, parent_id)


def list_deals(ctx, *, query) -> Page:
    """Newest first, `limit`/`offset` with the total (one statement, two when the page is cut), as records."""
    conditions = []
    for field in ("stage_id", "status", "owner_id", "company_id", "contact_id"):
        value = getattr(query, field)
        if value:
            conditions.append(getattr(Deal, field) == value)
    if query.search:
        conditions.append(contains_text(query.search, Deal.title, Company.name))
    page = record_page(ctx.db, deal_select().where(*conditions).order_by(*deal_order()), query)
    return replace(page, items=deal_records(page.items))


def get_deal(ctx, *, deal_id: str) -> dict:
    return deal_record(ctx.db, deal_id)


def _notify_owner(ctx, record: dict) -> None:
    """`deal_assigned` to the deal's new owner unless they gave it to themselves (or it has none). Called only when the
    deal is made or its owner really changes (under the deal's row lock); core notify's 5-minute de-duplication
    applies, as document 3 states for every notification. The deal's title, company and link only to an owner who
    holds `deals:view` (queries.deal_readers); another learns that a deal was given to them, and by whom."""
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    owner_id = record["owner_id"]
    if not owner_id or owner_id == ctx.user_id:
        return
    told = {"title": "You were assigned a deal"}
    if deal_readers(ctx.db, record["id"], [owner_id]):
        told = {"title": f"You were assigned a deal: {record['title']}",
                "body": f"Company: {record['company_name']}" if record["company_name"] else None,
                "action_url": f"/deals/{record['id']}"}
    notify(ctx, user_id=owner_id, type="deal_assigned", resource_type="deal", resource_id=record["id"],
           actor_id=ctx.user_id, **told)


def create_deal(ctx, *, data) -> dict:
    values = data.model_dump()
    if "owner_id" not in data.model_fields_set:
        values["owner_id"] = ctx.user_id
    _check_refs(ctx.db, values)
    _check_room(ctx.db, values)
    if not values.get("stage_id"):
        values["stage_id"] = _default_stage_id(ctx.db)
    deal = Deal(**values, created_by=ctx.user_id)
    ctx.db.add(deal)
    ctx.db.flush()
    record = deal_record(ctx.db, deal.id)
    _notify_owner(ctx, record)
    if deal.status == "won" and deal.company_id:
        _deal_won(ctx, deal.company_id)  # created won: as an update moving it to won (session 24)
    return record


def update_deal(ctx, *, deal_id: str, data) -> dict:
    # the deal locked and read in one statement: concurrent updates each see the others' changes, so an owner's
    # change is told by the one update that made it
    deal = lock_row(ctx.db, Deal, deal_id, where=visible(ctx.principal), missing="Deal")
    changes = data.changes()
    owner_before, status_before, company_before = deal.owner_id, deal.status, deal.company_id
    # a reference sent back as stored is not checked again (a deal whose owner was deactivated, or whose contact
    # moved to another company, since can be PUT back as it was read)
    _check_refs(ctx.db, {k: v for k, v in changes.items() if v != getattr(deal, k)}, deal)
    _check_room(ctx.db, changes, deal)
    if "company_id" in changes:  # a budget client A approved does not move to client B with the deal (session 25)
        from chalicelib.areas.budgets import service as budgets_service  # another area: imported lazily

        budgets_service.check_client_move(ctx.db, resource_type="deal", resource_id=deal.id,
                                          company_before=company_before, company_after=changes["company_id"])
    for key, value in changes.items():
        setattr(deal, key, value)
    ctx.db.flush()
    record = deal_record(ctx.db, deal_id)
    if deal.owner_id != owner_before:
        _notify_owner(ctx, record)
    # won now and (newly won, or won before and given a company or moved to another one): that company's milestone
    if deal.status == "won" and deal.company_id and (status_before != "won" or deal.company_id != company_before):
        _deal_won(ctx, deal.company_id)
    if deal.company_id and deal.company_id != company_before:  # its budgets are now in that client's portal
        from chalicelib.areas.budgets import service as budgets_service  # another area: imported lazily

        # those pending approval are told (session 24); each budget's history marks the move (session 27)
        budgets_service.deal_company_changed(ctx, deal_id=deal.id, company_before=company_before,
                                             company_after=deal.company_id)
    return record


def _deal_won(ctx, company_id: str) -> None:
    """The deal was created won, really moved to `won`, or (won) really got a company or another one (compared
    under its row lock), and has a company: that company's onboarding milestones with auto_source `deal_won` are
    completed, as on a proposal's acceptance (completing twice is a no-op; a fixed number of statements)."""
    from chalicelib.areas.onboarding import service as onboarding_service  # another area: imported lazily

    onboarding_service.auto_complete(ctx, company_id=company_id, source="deal_won")


def delete_deal(ctx, *, deal_id: str) -> None:
    """409 while budgets name the deal (their invoices hang off them), as for a project: nothing changed. The
    deal's row is locked first: a budget being made for it waits (budgets' check share-locks it), and a budget
    made before is counted. Its tasks are kept, no longer linked to it (tasks' `deal_deleted`)."""
    from chalicelib.areas.budgets import service as budgets_service  # another area: imported lazily
    from chalicelib.areas.notes import service as notes_service
    from chalicelib.areas.tasks import service as tasks_service

    deal = lock_row(ctx.db, Deal, deal_id, where=visible(ctx.principal), missing="Deal")
    budgets = budgets_service.deal_holds(ctx.db, deal.id)["budgets"]
    if budgets:
        raise Conflict(f"The deal has {budgets} budget{'s' if budgets != 1 else ''}: remove or move them first, "
                       "or set its status instead")
    tasks_service.deal_deleted(ctx.db, deal.id)  # its tasks are kept, no longer linked to it
    notes_service.records_deleted(ctx.db, "deal", [deal.id])  # its notes go with it (session 23)
    ctx.db.delete(deal)
    ctx.db.flush()
