"""Proposals: list (scoped, queries.visible), create (from a template: its rich content cloned into a new page
with the variables resolved), get, update, delete (with its page), duplicate, and the internal approval
flow: submit, approve, request changes, mark sent. A move from a wrong status is a 409; every change writes
history (entity `proposal`). Pricing is in service_pricing.py, sharing and the public viewer in
service_public.py, the template variables (their values, resolved into the rich content, and its plain text) in
service_variables.py. Other areas are reached through their `service`: deals (references, names), pages (the
content page).
"""
from __future__ import annotations

from dataclasses import replace
from datetime import date

from sqlalchemy import delete, select, update

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict, Forbidden, NotFound, not_found
from chalicelib.core.ids import new_id, utcnow
from chalicelib.core.locks import insert_rows, lock_row
from chalicelib.core.permissions import allows
from chalicelib.core.query import Page, in_scope, record_page
from chalicelib.core.serialize import clipped
from chalicelib.core.timeutil import org_today

from .models import PricingItem, PricingSection, Proposal, ProposalApproval
from .queries import (LIST_FLAGS, approval_rows, load_proposal, load_template, proposal_detail, proposal_list_select,
                      proposal_lookups, require_changeable, visible, with_proposal_lookups)
from .queries import proposal_seen_by  # noqa: F401 - the notes area asks who of a note's mentioned users see the record
from .queries import require_changeable_id  # noqa: F401 - the pages area, before a change of a proposal's page
from .queries import seen_proposal  # noqa: F401 - the pages and clients areas, naming a proposal
from .schemas import TITLE_MAX
from .service_notices import submitted_title, tell_owner
# the admin area tells a returning approver (session 25) and those whose proposals:update it gave back (session 26)
from .service_notices import approvers_regained, user_reactivated  # noqa: F401
from .service_pricing import APPROVED, FINAL, REAPPROVE  # FINAL: may no longer change; APPROVED: price and content
from .service_pricing import reset_approvals  # in review: a change of what the approvers approve clears theirs
from .service_public import EXPIRABLE  # the statuses the hourly job expires once valid_until has passed
from .service_templates import check_json
from .service_variables import _variable_values, plain_text, resolve_variables

ENTITY = "proposal"


def record(ctx, proposal_id: str, action: str, changes: dict | None = None) -> None:
    history.record(ctx.db, entity_type=ENTITY, entity_id=proposal_id, action=action, actor_id=ctx.user_id,
                   changes=changes)


# ---------------------------------------------------------------- reading

def list_proposals(ctx, query) -> Page:
    """The proposals the caller may see (filters), newest first: the page's records, then its total (when
    counted) and the approvers in one more statement (record_page)."""
    stmt = in_scope(proposal_list_select(), visible(ctx.principal))
    for field in ("status", "deal_id", "owner_id", "company_id"):
        value = getattr(query, field)
        if value:
            stmt = stmt.where(getattr(Proposal, field) == value)
    page, sets = record_page(ctx.db, stmt.order_by(Proposal.created_at.desc(), Proposal.id), query, LIST_FLAGS,
                             lookups=lambda rows: proposal_lookups(ctx.db, rows))
    return replace(page, items=with_proposal_lookups(page.items, sets))


def get_proposal(ctx, *, proposal_id: str) -> dict:
    return proposal_detail(ctx, proposal_id)


# ---------------------------------------------------------------- checks

def _check_references(ctx, values: dict, owner_id: str | None, stored: Proposal | None = None,
                      listed: list[str] | tuple[str, ...] = ()) -> None:
    """400 naming the field for a reference that does not hold. `owner_id` is the proposal's owner (as it is after
    the write): nobody approves their own proposal, so the owner may not be listed as an approver. On update,
    `stored` is the proposal and `listed` its listed approvers: a value sent back as stored is not checked again
    (session 25), so an approver deactivated (or who lost proposals:update) since being listed, who stays listed,
    does not refuse a save-back of the detail; a changed list checks only the ids not already listed, and the
    repeat and owner rules apply to the whole list."""
    from chalicelib.areas.deals import service as deals_service

    def changed(key: str) -> bool:
        return bool(values.get(key)) and (stored is None or values[key] != getattr(stored, key))

    # companies, contacts and deals are seen with `deals:view` (decisions.md section 5; session 29: a caller whose
    # deals permission is none addressed a proposal to any of them and read their names through its variables)
    details = deals_service.unseen_references(ctx, values, ("company_id", "contact_id", "deal_id"), changed)
    approvers = values.get("approver_ids") or []
    if approvers and sorted(approvers) != sorted(listed):
        from chalicelib.core.auth import principals_of

        new = [a for a in approvers if a not in listed]  # the ones listed already stay listed as they are
        found = principals_of(ctx.db, new) if new else {}  # active users with what they may do, in one statement
        missing = [a for a in new if a not in found]
        unable = [a for a in new if a in found and not allows(found[a].permissions, "proposals", "update")]
        if missing:
            details.append({"field": "approver_ids", "message": f"must be active users ({', '.join(missing[:5])})"})
        elif unable:  # approving needs proposals:update: such an approver would hold the proposal in review
            details.append({"field": "approver_ids",
                            "message": f"must be users who may approve (proposals:update) ({', '.join(unable[:5])})"})
        elif len(set(approvers)) != len(approvers):
            details.append({"field": "approver_ids", "message": "must not repeat a user"})
        elif owner_id is not None and owner_id in approvers:  # four eyes: the owner never approves their own
            details.append({"field": "approver_ids", "message": "must not name the proposal's owner"})
    if details:
        raise BadRequest("Invalid proposal references", details=details)


# The content page's fields that the pages API may not change once a proposal is decided (session 22): in FINAL all
# three (the client's answer is on what they read), in APPROVED the content (what the approver approved; the title is
# renamed by the proposal's own update, which a sent proposal still allows).
PAGE_CONTENT = ("title", "content", "content_rich")


def content_frozen(db, proposal_id: str, fields, *, actor_id: str | None = None) -> str | None:
    """Why the content page of this proposal may not have `fields` changed now (the message of a 409), or None.
    In review, a change of the content clears the approvals given in the round (reset_approvals, session 23; the
    history entry names `actor_id`, the editor, when the caller passes it).
    For the pages area's edit and version restore (docs/decisions/proposals.md, session 22). One statement (in
    review, a content change adds the reset's UPDATE and its history INSERT): the proposal's status, its row held
    FOR SHARE until the transaction ends, so an accept or an approval waits for the edit (and reads the content it
    wrote) or the edit for them (and sees their status). A page whose proposal was
    deleted meanwhile (its page with it): 404 Page."""
    status = db.scalar(select(Proposal.status).where(Proposal.id == proposal_id).with_for_update(read=True))
    if status is None:
        raise not_found("Page")
    fields = set(fields)
    if status in FINAL and fields & set(PAGE_CONTENT):
        return f"The proposal is {status}: its content page can no longer change"
    if status in APPROVED and fields & {"content", "content_rich"}:
        return (f"The proposal is approved (status {status}): its content cannot change without a new approval: "
                f"{REAPPROVE}")
    if status == "review" and fields & {"content", "content_rich"}:
        # the approvals given in the round were of the content before this edit (session 23): given again, or the
        # edit is refused and its transaction, this with it, rolled back. The pages area passes who edits.
        reset_approvals(db, proposal_id, status, actor_id=actor_id, reason="content")
    return None


def visible_ids(principal):
    """The ids of the proposals the principal may see, as a SELECT to use in a clause, or None when they see
    every one: the pages area shows a proposal's page only with the proposal."""
    scope = visible(principal)
    return None if scope is None else select(Proposal.id).where(scope)


def _set_approvers(ctx, proposal_id: str, approver_ids: list[str]) -> None:
    """Replace the listed approvers (one DELETE, one INSERT); approvals given by the kept ones stay. A user
    listed now who approved unlisted (a proposals:manage holder when nobody was listed) keeps that row and
    approval, now listed (one UPDATE; a second row would break the (proposal, user) key)."""
    rows = approval_rows(ctx.db, proposal_id)
    kept = {a.user_id for a in rows if a.listed}
    unlisted = [a.user_id for a in rows if not a.listed and a.user_id in approver_ids]
    ctx.db.execute(delete(ProposalApproval).where(ProposalApproval.proposal_id == proposal_id,
                                                  ProposalApproval.user_id.not_in(approver_ids or [""])))
    if unlisted:
        ctx.db.execute(update(ProposalApproval).where(ProposalApproval.proposal_id == proposal_id,
                                                      ProposalApproval.user_id.in_(unlisted)).values(listed=True))
    new = [{"proposal_id": proposal_id, "user_id": user_id, "listed": True}
           for user_id in approver_ids if user_id not in kept and user_id not in unlisted]
    insert_rows(ctx.db, ProposalApproval, new)


# ---------------------------------------------------------------- writing

def create_proposal(ctx, *, data) -> dict:
    from chalicelib.areas.pages import service as pages_service

    values = data.model_dump()
    check_json(values, ("speaker_notes", "brand_config"))
    _check_references(ctx, values, ctx.user_id)  # the creator is the owner
    try:
        template = load_template(ctx, values["template_id"]) if values.get("template_id") else None
    except NotFound:
        template = None  # a template that does not exist is refused as an inactive one is (session 26: it was 404)
        missing = True
    else:
        missing = template is not None and not template.is_active
    if missing:
        raise BadRequest("template_id must be an active template",
                         details=[{"field": "template_id", "message": "must be an active template"}])
    content_rich = None
    speaker_notes, brand_config = values.get("speaker_notes"), values.get("brand_config")
    if template is not None:
        content_rich = resolve_variables(template.content_rich,
                                         _variable_values(ctx, values, ctx.user_id, template, values["variables"]))
        speaker_notes = speaker_notes if speaker_notes is not None else template.speaker_notes
        brand_config = brand_config if brand_config is not None else template.brand_config
    proposal = Proposal(title=values["title"], deal_id=values.get("deal_id"), company_id=values.get("company_id"),
                        contact_id=values.get("contact_id"), template_id=template.id if template else None,
                        valid_until=values.get("valid_until"), currency=values["currency"],
                        speaker_notes=speaker_notes, brand_config=brand_config, status="draft", version=1,
                        owner_id=ctx.user_id, created_by=ctx.user_id, share_enabled=False)
    proposal.id = new_id()
    proposal.page_id = pages_service.create_record_page(
        ctx, title=values["title"], content=plain_text(content_rich), content_rich=content_rich,
        entity_type=ENTITY, entity_id=proposal.id, actor_id=ctx.user_id)
    ctx.db.add(proposal)
    ctx.db.flush()
    _set_approvers(ctx, proposal.id, values["approver_ids"])
    record(ctx, proposal.id, "created", {"title": proposal.title, "status": "draft",
                                         "template_id": proposal.template_id})
    ctx.db.flush()
    return {"id": proposal.id, "page_id": proposal.page_id}


def _locked(ctx, proposal_id: str, *, change: bool = True) -> Proposal:
    """The visible proposal, locked for a state change (404 when out of scope, or deleted while the lock was
    awaited). `change`: a change of the proposal, which a caller who sees it only as a listed approver may not make
    (403, `queries.require_changeable`); their approval moves and a duplicate pass `change=False`."""
    load_proposal(ctx, proposal_id)
    proposal = lock_row(ctx.db, Proposal, proposal_id, missing="Proposal")
    if change:
        require_changeable(ctx, proposal)
    return proposal


def update_proposal(ctx, *, proposal_id: str, data) -> None:
    proposal = _locked(ctx, proposal_id)
    changes = data.changes()
    if not changes:
        raise BadRequest("At least one field is required")
    if proposal.status in FINAL:
        raise Conflict(f"A proposal in status {proposal.status} cannot be changed")
    if proposal.status in APPROVED and "currency" in changes and changes["currency"] != proposal.currency:
        # the currency is the approved price's as much as the amounts are (session 22)
        raise Conflict(f"The currency of an approved proposal (status {proposal.status}) cannot change without a new "
                       f"approval: {REAPPROVE}")
    check_json(changes, ("speaker_notes", "brand_config"))
    if proposal.status in EXPIRABLE and changes.get("valid_until") != proposal.valid_until \
            and _passed(changes.get("valid_until")):
        # the hourly job would expire it, a final status, within the hour (session 28)
        raise BadRequest("valid_until must not be before today: the proposal would expire",
                         details=[{"field": "valid_until",
                                   "message": f"must not be before today ({org_today().isoformat()}): "
                                              f"a {proposal.status} proposal past it expires"}])
    before_approvers = []
    if "approver_ids" in changes:
        before_approvers = sorted(a.user_id for a in approval_rows(ctx.db, proposal.id) if a.listed)
    # an update never changes the owner; what is sent back as stored is not checked again (session 25)
    _check_references(ctx, changes, proposal.owner_id, stored=proposal, listed=before_approvers)
    if proposal.status in APPROVED:  # the client approved stays the client (session 24)
        _check_same_client(ctx, proposal, changes)
    before = {key: getattr(proposal, key) for key in changes if key != "approver_ids"}
    if "approver_ids" in changes:
        _set_approvers(ctx, proposal.id, changes["approver_ids"])
    for key, value in changes.items():
        if key != "approver_ids":
            setattr(proposal, key, value)
    diff = {k: {"from": _plain(v["from"]), "to": _plain(v["to"])}
            for k, v in history.diff(before, {k: v for k, v in changes.items() if k != "approver_ids"}).items()}
    if "approver_ids" in changes and sorted(changes["approver_ids"]) != before_approvers:
        diff["approver_ids"] = {"from": before_approvers, "to": sorted(changes["approver_ids"])}
    if "title" in changes:
        ctx.db.execute(update(_page_model()).where(_page_model().id == proposal.page_id).values(title=proposal.title))
    proposal.updated_at = utcnow()
    if diff:
        record(ctx, proposal.id, "updated", diff)
    if "currency" in diff:  # the price's currency: in review, the approvals given were of the other (session 23)
        reset_approvals(ctx.db, proposal.id, proposal.status, actor_id=ctx.user_id, reason="currency")
    ctx.db.flush()
    if "approver_ids" in changes and changes["approver_ids"] and proposal.status == "review":
        # one listed now, in review, who was not before: asked as the submit asks the listed ones, or the proposal
        # waits on someone never told (session 24)
        _tell_approvers_submitted(ctx, proposal, [user_id for user_id in changes["approver_ids"]
                                                  if user_id not in before_approvers])
        _approve_when_complete(ctx, proposal)  # the approvals kept may now be all of them


REFERENCES = ("company_id", "deal_id", "contact_id")


def _check_same_client(ctx, proposal: Proposal, changes: dict) -> None:
    """409 when an approved (approved, sent, viewed) proposal's company, deal or contact would change to another value
    (null included; the stored value sent back is no change): the approver approved an offer to that client, and the
    share link the client holds would accept an offer addressed to another (session 24). A contact alone may change
    to another person of the proposal's own company, the client approved (one query: the contact's company)."""
    from chalicelib.areas.deals import service as deals_service

    moved = [key for key in REFERENCES if key in changes and changes[key] != getattr(proposal, key)]
    if moved == ["contact_id"] and changes["contact_id"] and proposal.company_id:
        contact = deals_service.contact_briefs(ctx.db, [changes["contact_id"]]).get(changes["contact_id"])
        if contact is not None and contact["company_id"] == proposal.company_id:
            return  # another person of the same client
    if moved:
        raise Conflict(f"The client of an approved proposal (status {proposal.status}) cannot change without a new "
                       f"approval ({', '.join(moved)}): duplicate it to address another client",
                       details=[{"field": key, "message": "cannot change once approved"} for key in moved])


def _passed(valid_until: date | None) -> bool:
    """Whether `valid_until` is before the organisation's today: a proposal in an EXPIRABLE status with it is
    expired (the hourly job's rule, service_public.expire_due)."""
    return valid_until is not None and valid_until < org_today()


def _refuse_passed(proposal: Proposal, to: str) -> None:
    """409 when the proposal, moving into `to` (an EXPIRABLE status), is past its valid_until: the hourly job would
    expire it for good within the hour (session 28). The way on is a later valid_until (or none)."""
    if _passed(proposal.valid_until):
        raise Conflict(f"The proposal's valid_until ({proposal.valid_until.isoformat()}) has passed: set a later date "
                       f"before it is {to}",
                       details=[{"field": "valid_until", "message": f"must not be before today "
                                                                    f"({org_today().isoformat()})"}])


def _approve_when_complete(ctx, proposal: Proposal) -> None:
    """review -> approved once every listed approver has approved (one read of the approvals); the owner is
    told as for a final approval."""
    listed = [a for a in approval_rows(ctx.db, proposal.id) if a.listed]
    if listed and all(a.approved_at is not None for a in listed):
        _move(ctx, proposal, "approved", "approved", {"approver_ids": sorted(a.user_id for a in listed)})
        _tell_owner_approved(ctx, proposal)


def _page_model():
    from chalicelib.areas.pages import service as pages_service

    return pages_service.Page


def _plain(value):
    return value.isoformat() if isinstance(value, date) else value


def delete_proposal(ctx, *, proposal_id: str) -> None:
    from chalicelib.areas.notes import service as notes_service
    from chalicelib.areas.pages import service as pages_service

    proposal = _locked(ctx, proposal_id)
    if proposal.status == "accepted":  # the contract, project, budget and invoice made on accept name it (session 22)
        raise Conflict("An accepted proposal cannot be deleted: its contract, project, budget and invoice name it")
    page_id = proposal.page_id
    record(ctx, proposal.id, "deleted", {"title": {"from": proposal.title, "to": None}})
    notes_service.records_deleted(ctx.db, "proposal", [proposal.id])  # its notes go with it (session 23)
    ctx.db.delete(proposal)
    ctx.db.flush()
    pages_service.remove_record_page(ctx.db, page_id)


COPY_SUFFIX = " (Copy)"


def duplicate_proposal(ctx, *, proposal_id: str) -> str:
    """A new draft proposal owned by the caller: the page content, fields and pricing copied, and the listed
    approvers a create would accept; sharing off, no approvals, no outcome. The source is locked first, so that its
    total, sections and items are read from one pricing (a replacement committing between those reads gave sections
    without items, or another total)."""
    from chalicelib.areas.pages import service as pages_service

    source = _locked(ctx, proposal_id, change=False)  # a copy is the caller's own: reading the source suffices
    content, content_rich = pages_service.record_page_content(ctx.db, source.page_id) or ("", None)
    # " (Copy)" is always appended: the source's title is shortened so that the copy's fits its 300 characters (s30)
    copy = Proposal(id=new_id(), title=source.title[:TITLE_MAX - len(COPY_SUFFIX)] + COPY_SUFFIX,
                    deal_id=source.deal_id,
                    company_id=source.company_id, contact_id=source.contact_id, template_id=source.template_id,
                    status="draft", version=1, currency=source.currency, total_amount=source.total_amount,
                    # a date already passed is left out (session 28): submitted, the copy would be refused
                    valid_until=None if _passed(source.valid_until) else source.valid_until,
                    speaker_notes=source.speaker_notes,
                    brand_config=source.brand_config, share_enabled=False, owner_id=ctx.user_id,
                    created_by=ctx.user_id)
    copy.page_id = pages_service.create_record_page(ctx, title=copy.title, content=content, content_rich=content_rich,
                                                    entity_type=ENTITY, entity_id=copy.id, actor_id=ctx.user_id)
    ctx.db.add(copy)
    ctx.db.flush()
    # read in the order GET pricing reads them and renumbered 0..n-1 in it: sections sharing a position are read by
    # id, and the copy's ids are new, so copied as they were the copy would read them in another order (session 24)
    sections = ctx.db.scalars(select(PricingSection).where(PricingSection.proposal_id == source.id)
                              .order_by(PricingSection.position, PricingSection.id)).all()
    section_ids = {section.id: new_id() for section in sections}
    insert_rows(ctx.db, PricingSection, [{"id": section_ids[s.id], "proposal_id": copy.id, "title": s.title,
                                          "position": index} for index, s in enumerate(sections)])
    if sections:
        items = ctx.db.scalars(select(PricingItem).where(PricingItem.section_id.in_(list(section_ids)))).all()
        insert_rows(ctx.db, PricingItem, [
            {"section_id": section_ids[i.section_id], "description": i.description, "service_type_id": i.service_type_id,
             "quantity": i.quantity, "unit_price": i.unit_price, "amount": i.amount, "notes": i.notes,
             "position": i.position} for i in items])
    _set_approvers(ctx, copy.id, _approvers_to_copy(ctx, source.id))
    record(ctx, copy.id, "created", {"title": copy.title, "status": "draft", "duplicated_from": source.id})
    record(ctx, source.id, "duplicated", {"copy_id": copy.id})
    ctx.db.flush()
    return copy.id


def _approvers_to_copy(ctx, source_id: str) -> list[str]:
    """The source's listed approvers a create would accept for the copy: active users holding proposals:update
    (`_check_references`; their principals in one statement), never the copy's owner, the caller (nobody approves
    their own proposal). The others are left out silently (session 24): a duplicate has no body to answer 400 about,
    and listed they would hold the copy in review, able neither to decide nor to let a manage holder decide."""
    from chalicelib.core.auth import principals_of

    listed = [a.user_id for a in approval_rows(ctx.db, source_id) if a.listed and a.user_id != ctx.user_id]
    able = principals_of(ctx.db, listed)
    return [user_id for user_id in listed
            if user_id in able and allows(able[user_id].permissions, "proposals", "update")]


# ---------------------------------------------------------------- the approval flow

def _move(ctx, proposal: Proposal, to: str, action: str, extra: dict | None = None) -> None:
    changes = {"status": {"from": proposal.status, "to": to}, **(extra or {})}
    proposal.status = to
    proposal.updated_at = utcnow()
    record(ctx, proposal.id, action, changes)
    ctx.db.flush()


def submit(ctx, *, proposal_id: str) -> None:
    """draft or changes_requested to review (a new review round: earlier approvals are cleared; a resubmission
    after changes raises the version)."""
    proposal = _locked(ctx, proposal_id)
    if proposal.status not in ("draft", "changes_requested"):
        raise Conflict(f"Only a draft or a proposal with changes requested can be submitted (status {proposal.status})")
    _refuse_passed(proposal, "submitted")  # in review it would be expired within the hour (session 28)
    ctx.db.execute(delete(ProposalApproval).where(ProposalApproval.proposal_id == proposal.id,
                                                  ProposalApproval.listed.is_(False)))
    # every row left is a listed approver's: the reset answers who they are (no read of its own)
    listed = ctx.db.scalars(update(ProposalApproval).where(ProposalApproval.proposal_id == proposal.id)
                            .values(approved_at=None, comments=None).returning(ProposalApproval.user_id)).all()
    extra = {}
    if proposal.status == "changes_requested":
        extra["version"] = {"from": proposal.version, "to": proposal.version + 1}
        proposal.version += 1
    _move(ctx, proposal, "review", "submitted", extra)
    _tell_approvers_submitted(ctx, proposal, listed)


def _tell_approvers_submitted(ctx, proposal: Proposal, listed: list[str]) -> None:
    """`proposal_submitted` to each listed approver but the submitter who may read the proposal: active, with
    proposals:view (a listed approver is in the proposal's scope by `visible`). Their principals in one
    statement, the notices in one notify_many, whatever their number. Nobody listed: nobody is told (any
    proposals:manage holder may approve; docs/decisions/proposals.md)."""
    from chalicelib.core.auth import principals_of
    from chalicelib.core.notify import notify_many  # on first use: a read request never loads notify

    # the owner never decides their own proposal (an owner listed before that rule is not asked to)
    others = [user_id for user_id in dict.fromkeys(listed) if user_id not in (ctx.user_id, proposal.owner_id)]
    if not others:
        return
    principals = principals_of(ctx.db, others)
    readers = [user_id for user_id in others
               if user_id in principals and allows(principals[user_id].permissions, "proposals", "view")]
    notify_many(ctx, [{"user_id": user_id, "type": "proposal_submitted",
                       "title": submitted_title(proposal.title), "resource_type": ENTITY,
                       "resource_id": proposal.id, "action_url": f"/proposals/{proposal.id}",
                       "actor_id": ctx.user_id} for user_id in readers])


def _tell_owner_approved(ctx, proposal: Proposal) -> None:
    """`proposal_approved` to the owner after the move to approved, unless the owner made it."""
    tell_owner(ctx, proposal, "proposal_approved", f"Proposal approved: {proposal.title}", actor_id=ctx.user_id)


def _approver(ctx, proposal: Proposal) -> ProposalApproval | None:
    """The caller's listed approval row; None when nobody is listed and the caller holds proposals:manage.
    403 when the caller may not decide. Nobody decides their own proposal (as leave, timesheets and reviews):
    the owner is refused even when listed (a listing made before the rule). The one exception follows leave,
    where an executive's own request needs nobody's approval (document 2): an executive owner decides their own
    proposal when it lists nobody (docs/decisions/proposals.md)."""
    rows = [a for a in approval_rows(ctx.db, proposal.id) if a.listed]
    own = proposal.owner_id is not None and proposal.owner_id == ctx.user_id
    if rows:
        mine = next((a for a in rows if a.user_id == ctx.user_id), None)
        if mine is None:
            raise Forbidden("Only the proposal's listed approvers can decide")
        if own:
            raise Forbidden("You cannot decide your own proposal")
        return mine
    if not allows(ctx.principal.permissions, "proposals", "manage"):
        raise Forbidden("Requires proposals:manage (the proposal lists no approvers)")
    if own and ctx.principal.access_level != "executive":
        raise Forbidden("You cannot decide your own proposal: another proposals:manage holder approves it")
    return None


def approve(ctx, *, proposal_id: str, comments: str | None) -> None:
    proposal = _locked(ctx, proposal_id, change=False)  # a listed approver decides
    if proposal.status != "review":
        raise Conflict(f"Only a proposal in review can be approved (status {proposal.status})")
    mine = _approver(ctx, proposal)
    _refuse_passed(proposal, "approved")
    now = utcnow()
    if mine is None:
        ctx.db.add(ProposalApproval(proposal_id=proposal.id, user_id=ctx.user_id, listed=False, approved_at=now,
                                    comments=comments))
        ctx.db.flush()
        _move(ctx, proposal, "approved", "approved", {"comments": comments})
        _tell_owner_approved(ctx, proposal)
        return
    if mine.approved_at is not None:
        raise Conflict("You have already approved this proposal")
    mine.approved_at, mine.comments = now, comments
    ctx.db.flush()
    pending = [a for a in approval_rows(ctx.db, proposal.id) if a.listed and a.approved_at is None]
    if pending:
        record(ctx, proposal.id, "approval_given", {"approver_id": ctx.user_id, "comments": comments,
                                                    "pending": len(pending)})
        proposal.updated_at = now
        ctx.db.flush()
    else:
        _move(ctx, proposal, "approved", "approved", {"approver_id": ctx.user_id, "comments": comments})
        _tell_owner_approved(ctx, proposal)


def request_changes(ctx, *, proposal_id: str, comments: str) -> None:
    proposal = _locked(ctx, proposal_id, change=False)  # a listed approver decides
    if proposal.status != "review":
        raise Conflict(f"Changes can only be requested on a proposal in review (status {proposal.status})")
    _approver(ctx, proposal)
    _move(ctx, proposal, "changes_requested", "changes_requested", {"comments": comments})
    tell_owner(ctx, proposal, "proposal_changes_requested", f"Changes requested: {proposal.title}",
               clipped(comments, 500), actor_id=ctx.user_id)


def mark_sent(ctx, *, proposal_id: str) -> None:
    proposal = _locked(ctx, proposal_id)
    if proposal.status != "approved":
        raise Conflict(f"Only an approved proposal can be marked sent (status {proposal.status})")
    _refuse_passed(proposal, "sent")
    proposal.sent_at = utcnow()
    _move(ctx, proposal, "sent", "sent", {"sent_at": proposal.sent_at.isoformat()})


def service_type_uses(item_id: str):
    """A scalar count of the pricing items naming service type `item_id` (no foreign key; an accept copies it onto
    the budget and invoice lines it makes): the config lists area refuses to delete a service type in use
    (session 25)."""
    from sqlalchemy import func

    return select(func.count()).select_from(PricingItem).where(PricingItem.service_type_id == item_id) \
        .scalar_subquery()
