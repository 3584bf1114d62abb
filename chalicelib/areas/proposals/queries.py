"""The proposals area's leaf module: the scope clause `visible(principal)`, the load-or-404 helpers
`load_proposal` and `load_template`, the record builders and the read queries. The services import it,
never the reverse.

Scope (issue 16 item 2): employee and lead see the proposals they own; a manager those owned by anyone
of their team (squad members and direct reports) and their own; head and executive all. A listed approver
also sees the proposals they are asked to approve (docs/decisions/proposals.md).
"""
from __future__ import annotations

from functools import cache

from sqlalchemy import exists, func, or_, select
from sqlalchemy.orm import aliased

from chalicelib.core.errors import not_found
from chalicelib.core.lookup import ids_read
from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT, first_per, grouped, visible_row
from chalicelib.core.readers import seen_by
from chalicelib.core.scoping import is_manager, sees_all, team_user_ids
from chalicelib.core.serialize import flag, row_dict, value_out

from .models import PricingItem, PricingSection, Proposal, ProposalApproval, ProposalTemplate

TEMPLATE_FIELDS = ("id", "name", "description", "category", "brand_config", "variables_schema", "speaker_notes",
                   "contract_template_id", "is_active", "created_by", "created_at", "updated_at")
PROPOSAL_FIELDS = ("id", "title", "deal_id", "company_id", "contact_id", "template_id", "page_id", "status",
                   "version", "currency", "total_amount", "valid_until", "speaker_notes", "brand_config",
                   "share_token", "share_enabled", "owner_id", "created_by", "sent_at", "viewed_at", "accepted_at",
                   "declined_at", "decline_reason", "responder_name", "responder_email", "contract_id", "project_id",
                   "budget_id", "invoice_id", "created_at", "updated_at")
# The lists' rows leave out the unbounded JSON text a template's and a proposal's detail answers (rich content up to
# 2,000,000 characters, the others up to 200,000 each): 500 rows of them passed the 6 MB a Lambda answer carries.
# The list statements select only these columns (docs/decisions/proposals.md, "Lists").
TEMPLATE_BODY_FIELDS = ("content_rich", "brand_config", "variables_schema", "speaker_notes")
TEMPLATE_LIST_FIELDS = tuple(name for name in TEMPLATE_FIELDS if name not in TEMPLATE_BODY_FIELDS)
PROPOSAL_BODY_FIELDS = ("speaker_notes", "brand_config")
PROPOSAL_LIST_FIELDS = tuple(name for name in PROPOSAL_FIELDS if name not in PROPOSAL_BODY_FIELDS)
ITEM_FIELDS = ("id", "section_id", "description", "service_type_id", "quantity", "unit_price", "amount", "notes",
               "position")


def visible(principal):
    """WHERE clause of the proposals the principal may see (None: all)."""
    if sees_all(principal):
        return None
    approver = exists().where(ProposalApproval.proposal_id == Proposal.id, ProposalApproval.user_id == principal.id,
                              ProposalApproval.listed.is_(True))
    if is_manager(principal):
        return or_(Proposal.owner_id.in_(team_user_ids(principal)), approver)
    return or_(Proposal.owner_id == principal.id, approver)


def changeable(principal):
    """WHERE clause of the proposals the principal may change (None: all): `visible` without its approver clause. A
    listed approver reads the proposal they are asked to approve and decides on it (approve, request changes), and
    may duplicate it; changing it (its fields, approvers, pricing, sharing, status moves of the owner's side, delete)
    stays with its owner's scope (session 29: an approver could reprice, re-list the approvers and share it)."""
    if sees_all(principal):
        return None
    if is_manager(principal):
        return Proposal.owner_id.in_(team_user_ids(principal))
    return Proposal.owner_id == principal.id


def require_changeable(ctx, proposal: Proposal) -> None:
    """403 when the caller sees `proposal` only as one of its listed approvers (`changeable`): they may read and
    decide on it, not change it. No statement for its owner, or for head and executive; one for anyone else."""
    if proposal.owner_id == ctx.principal.id:
        return
    require_changeable_id(ctx, proposal.id)


def require_changeable_id(ctx, proposal_id: str) -> None:
    """`require_changeable` by the proposal's id (the pages area, before a change of a proposal's content page: its
    read scope is `visible`, approvers included). No statement for head and executive; one for anyone else."""
    from chalicelib.core.errors import Forbidden

    scope = changeable(ctx.principal)
    if scope is None:
        return
    if ctx.db.scalar(select(Proposal.id).where(Proposal.id == proposal_id, scope)) is None:
        raise Forbidden("A listed approver may read this proposal and decide on it, not change it")


def visible_templates(principal):
    """Templates are shared by every holder of proposals:view (None: all)."""
    return None


def load_proposal(ctx, proposal_id: str) -> Proposal:
    """The proposal if the caller may see it; 404 otherwise (one query)."""
    return visible_row(ctx.db, Proposal, proposal_id, visible(ctx.principal), "Proposal")


def seen_proposal(ctx, proposal_id: str) -> Proposal:
    """`load_proposal` for another area that names the proposal (a page, a client contract): `proposals:view` as
    well as the row scope (session 29), else the 404 of a missing one."""
    if not ctx.reads("proposals"):
        raise not_found("Proposal")
    return load_proposal(ctx, proposal_id)


def proposal_seen_by(db, proposal_id: str, principals) -> set[str]:
    """Which of these principals see the proposal: its scope clause as each of them, in one statement (a
    UNION ALL; none for no principals). The notes area asks it of the users a note mentions."""
    return seen_by(db, Proposal, proposal_id, principals, visible)


def load_template(ctx, template_id: str) -> ProposalTemplate:
    return visible_row(ctx.db, ProposalTemplate, template_id, visible_templates(ctx.principal), "Proposal template")


def template_record(template: ProposalTemplate, *, detail: bool = False) -> dict:
    out = row_dict(template, TEMPLATE_FIELDS, flags=("is_active",))
    if detail:
        out["content_rich"] = template.content_rich
    return out


@cache
def template_list_select():
    """The template list's columns (TEMPLATE_LIST_FIELDS: none of the content and configuration), for
    core.query.record_page (flag is_active). Built once per process."""
    return select(*(getattr(ProposalTemplate, name) for name in TEMPLATE_LIST_FIELDS))


TEMPLATE_LIST_FLAGS = ("is_active",)


@cache
def proposal_select():
    """The proposal with its company name, contact names, deal title and owner name: one statement. Built
    once per process (an alias proxies its table's columns on first use; `.where()` answers a copy)."""
    from chalicelib.areas.deals import service as deals_service

    Company, Contact, Deal = deals_service.Company, deals_service.Contact, deals_service.Deal
    owner = aliased(User)
    return (select(Proposal, Company.name, Contact.first_name, Contact.last_name, Deal.title, owner.name)
            .outerjoin(Company, Company.id == Proposal.company_id)
            .outerjoin(Contact, Contact.id == Proposal.contact_id)
            .outerjoin(Deal, Deal.id == Proposal.deal_id)
            .outerjoin(owner, owner.id == Proposal.owner_id))


@cache
def proposal_list_select():
    """The list's rows: the proposal's columns but speaker_notes and brand_config (PROPOSAL_LIST_FIELDS; the detail
    answers them), share_protected, and the company name, contact names, deal title and owner name (joins); records
    through core.query.record_rows (flags share_enabled, share_protected). Built once per process."""
    from chalicelib.areas.deals import service as deals_service

    Company, Contact, Deal = deals_service.Company, deals_service.Contact, deals_service.Deal
    owner = aliased(User, name="proposal_owner")
    return (select(*(getattr(Proposal, name) for name in PROPOSAL_LIST_FIELDS),
                   (func.coalesce(Proposal.share_password, "") != "").label("share_protected"),
                   Company.name.label("company_name"), Contact.first_name.label("contact_first_name"),
                   Contact.last_name.label("contact_last_name"), Deal.title.label("deal_title"),
                   owner.name.label("owner_name"))
            .outerjoin(Company, Company.id == Proposal.company_id)
            .outerjoin(Contact, Contact.id == Proposal.contact_id)
            .outerjoin(Deal, Deal.id == Proposal.deal_id)
            .outerjoin(owner, owner.id == Proposal.owner_id))


LIST_FLAGS = ("share_enabled", "share_protected")


def _approvers_statement(proposal_in):
    """The listed approvers of the proposals, at most LIST_LIMIT a proposal (the first by listing time, as in
    the detail; decisions.md section 4), `seq` their order."""
    order = (ProposalApproval.created_at, ProposalApproval.user_id)
    seq = func.row_number().over(order_by=order)
    return first_per(select(ProposalApproval.proposal_id, ProposalApproval.user_id, seq.label("seq"))
                     .where(proposal_in(ProposalApproval.proposal_id), ProposalApproval.listed.is_(True)),
                     ProposalApproval.proposal_id, order)


def proposal_lookups(db, records) -> dict:
    """The read of the listed approvers of these proposals (a template), for one record_sets round trip."""
    return {"approvers": ids_read(db, _approvers_statement, "proposal_approver_ids", [r["id"] for r in records])}


def with_proposal_lookups(records: list[dict], sets: dict) -> list[dict]:
    """List records with contact_name (first and last names joined) and approver_ids (by approval time)."""
    approvers = {proposal_id: [row["user_id"] for row in rows]
                 for proposal_id, rows in grouped(sets["approvers"], "proposal_id").items()}
    for record in records:
        first, last = record.pop("contact_first_name"), record.pop("contact_last_name")
        record["contact_name"] = " ".join(part for part in (first, last) if part) or None
        record["approver_ids"] = approvers.get(record["id"], [])
    return records


def approver_ids(db, proposal_ids) -> dict[str, list[str]]:
    """`{proposal_id: [listed approver ids]}` (one statement for any number of proposals)."""
    ids = list(set(proposal_ids))
    found: dict[str, list[str]] = {}
    rows = db.execute(select(ProposalApproval.proposal_id, ProposalApproval.user_id)
                      .where(ProposalApproval.proposal_id.in_(ids), ProposalApproval.listed.is_(True))
                      .order_by(ProposalApproval.created_at, ProposalApproval.user_id).limit(LIST_LIMIT))
    for proposal_id, user_id in rows:
        found.setdefault(proposal_id, []).append(user_id)
    return found


def proposal_out(row, approvers: list[str]) -> dict:
    proposal, company_name, first_name, last_name, deal_title, owner_name = row
    out = row_dict(proposal, PROPOSAL_FIELDS, flags=("share_enabled",))
    contact_name = " ".join(part for part in (first_name, last_name) if part) or None
    out.update(share_protected=flag(proposal.share_password), company_name=company_name, contact_name=contact_name,
               deal_title=deal_title, owner_name=owner_name, approver_ids=approvers)
    return out


def proposal_records(db, rows) -> list[dict]:
    """Records of proposal_select() rows: one more statement for the approvers of them all."""
    rows = list(rows)
    approvers = approver_ids(db, [row[0].id for row in rows])
    return [proposal_out(row, approvers.get(row[0].id, [])) for row in rows]


def approvals(db, proposal_id: str) -> list[dict]:
    """The detail's approvals (each row's id, the approver and their name, listed, approved_at, comments): at most
    LIST_LIMIT, oldest first (decisions.md section 4)."""
    rows = db.execute(select(ProposalApproval, User.name).outerjoin(User, User.id == ProposalApproval.user_id)
                      .where(ProposalApproval.proposal_id == proposal_id)
                      .order_by(ProposalApproval.created_at, ProposalApproval.user_id).limit(LIST_LIMIT))
    return [{"id": a.id, "user_id": a.user_id, "user_name": name, "listed": flag(a.listed),
             "approved_at": value_out(a.approved_at), "comments": a.comments} for a, name in rows]


def proposal_detail(ctx, proposal_id: str) -> dict:
    """The proposal (scope-checked) with joined names, approver ids and approvals: three statements."""
    from chalicelib.core.query import in_scope

    row = ctx.db.execute(in_scope(proposal_select().where(Proposal.id == proposal_id), visible(ctx.principal))).first()
    if row is None:
        raise not_found("Proposal")
    out = proposal_records(ctx.db, [row])[0]
    out["approvals"] = approvals(ctx.db, proposal_id)
    return out


def pricing_sections(db, proposal_id: str, *, public: bool = False) -> list[dict]:
    """The proposal's sections by position with their items by position (two statements)."""
    sections = db.scalars(select(PricingSection).where(PricingSection.proposal_id == proposal_id)
                          .order_by(PricingSection.position, PricingSection.id)).all()
    items: dict[str, list[dict]] = {}
    if sections:
        rows = db.scalars(select(PricingItem).where(PricingItem.section_id.in_([s.id for s in sections]))
                          .order_by(PricingItem.position, PricingItem.id))
        for item in rows:
            record = row_dict(item, ITEM_FIELDS)
            if public:
                record = {key: record[key] for key in ("description", "quantity", "unit_price", "amount", "notes",
                                                        "position")}
            items.setdefault(item.section_id, []).append(record)
    if public:
        return [{"title": s.title, "position": s.position, "items": items.get(s.id, [])} for s in sections]
    return [{"id": s.id, "proposal_id": s.proposal_id, "title": s.title, "position": s.position,
             "items": items.get(s.id, [])} for s in sections]


def approval_rows(db, proposal_id: str) -> list[ProposalApproval]:
    return list(db.scalars(select(ProposalApproval).where(ProposalApproval.proposal_id == proposal_id)))


__all__ = ["visible", "changeable", "require_changeable", "require_changeable_id", "visible_templates", "load_proposal",
           "load_template", "template_record", "template_list_select", "TEMPLATE_LIST_FLAGS", "proposal_select",
           "proposal_records", "proposal_detail", "proposal_list_select", "proposal_lookups", "with_proposal_lookups",
           "LIST_FLAGS", "pricing_sections", "approval_rows"]
