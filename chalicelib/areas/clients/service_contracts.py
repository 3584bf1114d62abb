"""Contracts for staff (decisions.md section 6; tool `deals`: view reads, update creates and edits): list
(filters company_id, proposal_id, status; paged), detail, create and update, each change in history.
Contracts are not record-scoped, like the companies and deals they belong to (docs/decisions/clients.md);
a contract made by a proposal's acceptance is `service.create_contract_for`."""
from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, NotFound
from chalicelib.core.query import Page, paginate, visible_row
from chalicelib.core.serialize import row_dict, value_out

from .models import Contract
from .queries import CONTRACT_FIELDS, record_contract_created, signer_records

ENTITY = "contract"


def load_contract(ctx, contract_id: str) -> Contract:
    return visible_row(ctx.db, Contract, contract_id, None, "Contract")


def contract_records(db, contracts: list[Contract]) -> list[dict]:
    """Read models with the company's name (one statement for the page)."""
    from chalicelib.areas.deals import service as deals_service

    names = deals_service.company_names(db, [c.company_id for c in contracts])
    out = []
    for contract in contracts:
        record = row_dict(contract, CONTRACT_FIELDS)
        record["company_name"] = names.get(contract.company_id)
        record["signers"] = signer_records(contract.signers)
        out.append(record)
    return out


def list_contracts(ctx, query) -> Page:
    stmt = select(Contract)
    for field in ("company_id", "proposal_id", "status"):
        if getattr(query, field) is not None:
            stmt = stmt.where(getattr(Contract, field) == getattr(query, field))
    page = paginate(ctx.db, stmt.order_by(Contract.created_at.desc(), Contract.id), query, lambda row: row[0])
    return replace(page, items=contract_records(ctx.db, page.items))


def get_contract(ctx, *, contract_id: str) -> dict:
    return contract_records(ctx.db, [load_contract(ctx, contract_id)])[0]


def _signers(signers) -> list[dict]:
    return [{"name": s.name, "email": s.email, "signed_at": value_out(s.signed_at)} for s in signers]


def _check_references(ctx, values: dict) -> None:
    """company_id an existing company, proposal_id a proposal the caller may see (`proposals:view` and proposals'
    scope): 400 naming the field."""
    from chalicelib.areas.deals import service as deals_service

    deals_service.check_company(ctx.db, values.get("company_id"))
    if values.get("proposal_id"):
        from chalicelib.areas.proposals import service as proposals_service

        try:
            proposals_service.seen_proposal(ctx, values["proposal_id"])  # the `proposals` tool and the row scope
        except NotFound:
            raise BadRequest("proposal_id must be a proposal you can see",
                             details=[{"field": "proposal_id", "message": "must be a proposal you can see"}]) from None


def create_contract(ctx, *, data) -> dict:
    values = data.model_dump()
    _check_references(ctx, values)
    values["signers"] = _signers(data.signers)
    contract = Contract(**values, created_by=ctx.user_id)
    ctx.db.add(contract)
    ctx.db.flush()
    record_contract_created(ctx.db, contract, ctx.user_id)
    return get_contract(ctx, contract_id=contract.id)


def update_contract(ctx, *, contract_id: str, data) -> dict:
    contract = load_contract(ctx, contract_id)
    changes = data.changes()
    # a reference sent back as stored is not checked again, as the other areas' (a contract whose proposal was
    # deleted since, or whose proposal the caller cannot see, can be PUT back as it was read)
    _check_references(ctx, {key: value for key, value in changes.items()
                            if key in ("company_id", "proposal_id") and value != getattr(contract, key)})
    if "signers" in changes:
        changes["signers"] = _signers(data.signers)
    diff = {}
    for key, value in changes.items():
        before = getattr(contract, key)
        if before != value:
            diff[key] = {"from": value_out(before), "to": value_out(value)}
            setattr(contract, key, value)
    if diff:
        ctx.db.flush()
        history.record(ctx.db, entity_type=ENTITY, entity_id=contract.id, action="updated", actor_id=ctx.user_id,
                       changes=diff)
    return get_contract(ctx, contract_id=contract.id)
