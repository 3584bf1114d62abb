"""The portal's notes: the client-visible notes on the company's projects, deals, budgets and invoices (at
most 100, group-aware), and a client's note or reply on a project or invoice of the company."""
from __future__ import annotations

from sqlalchemy import select

from chalicelib.core import history
from chalicelib.core.errors import BadRequest
from chalicelib.core.locks import lock_key

from .queries import deal_ids, project_ids, submitted_just_now


def list_notes(ctx) -> list[dict]:
    from chalicelib.areas.budgets import service as budgets_service
    from chalicelib.areas.notes import service as notes_service

    from . import service_invoices

    ids = ctx.portal.company_ids
    projects, deals = project_ids(ids), deal_ids(ids)
    targets = {"project": projects, "deal": deals, "budget": budgets_service.portal_budget_ids(projects, deals),
               "invoice": service_invoices.invoice_ids(ids)}
    # a note only to the company (group) it was written for: not to a client the record was moved to since
    return notes_service.portal_notes(ctx.db, targets, ids)


def _record_of(ctx, resource_type: str, resource_id: str) -> dict | None:
    """The record of the company the client writes on, or None: a project (the portal's project record, with its
    delivery manager and owner), or an invoice the company (not a sister company) sees in the portal (`{id}`)."""
    from chalicelib.areas.projects import service as projects_service

    from . import service_invoices

    if resource_type == "project":
        return projects_service.portal_project_detail(ctx.db, [ctx.portal.company_id], resource_id, brief=True)
    # an invoice: one the company sees in the portal (issued), not a sister company's
    return {"id": resource_id} if service_invoices.company_has_invoice(ctx, resource_id) else None


def _note_facts(db, *, company_id: str, parent_id: str | None, invoice_id: str | None) -> dict:
    """What the notice of a client's note needs that the write did not read, in one statement: the company's owner,
    the parent note's author (a reply), and for an invoice its number and the delivery manager and owner of its
    budget's project."""
    from chalicelib.areas.budgets import service as budgets_service
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.areas.invoices import service as invoices_service
    from chalicelib.areas.notes import service as notes_service
    from chalicelib.areas.projects import service as projects_service

    company = deals_service.company_table()
    columns = [select(company.c.owner_id).where(company.c.id == company_id).scalar_subquery().label("company_owner")]
    if parent_id:
        Note = notes_service.Note
        columns.append(select(Note.author_id).where(Note.id == parent_id).scalar_subquery().label("parent_author"))
    if invoice_id:
        Budget, Invoice, Project = budgets_service.Budget, invoices_service.Invoice, projects_service.Project
        project_id = (select(Budget.resource_id).join(Invoice, Invoice.budget_id == Budget.id)
                      .where(Invoice.id == invoice_id, Budget.resource_type == "project").scalar_subquery())
        columns += [select(Invoice.invoice_number).where(Invoice.id == invoice_id).scalar_subquery()
                    .label("invoice_number"),
                    select(Project.delivery_manager_id).where(Project.id == project_id).scalar_subquery()
                    .label("delivery_manager_id"),
                    select(Project.owner_id).where(Project.id == project_id).scalar_subquery().label("owner_id")]
    return dict(db.execute(select(*columns)).one()._mapping)


def _tell_staff(ctx, *, record: dict, resource_type: str, note_id: str, parent_id: str | None, content: str) -> None:
    """One staff member hears of a client's note (`portal_note`), after it is written: on a reply the parent note's
    staff author, when active and a reader of the record; otherwise (and for a new note) the first active reader of
    the record among its project's delivery manager, the client profile's, the project's owner and the company's
    owner (an invoice's project: its budget's). Nobody when none of them reads the record. The title names the
    record, which the one told reads; the link goes to it. Three statements at most (the facts, the people's
    permissions, their scope of the record) before the notice's (session 25: a client's note told no one)."""
    from chalicelib.areas.notes import service as notes_service
    from chalicelib.core.auth import principals_of
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify
    from chalicelib.core.serialize import clipped

    facts = _note_facts(ctx.db, company_id=ctx.portal.company_id, parent_id=parent_id,
                        invoice_id=record["id"] if resource_type == "invoice" else None)
    project = facts if resource_type == "invoice" else record
    people = list(dict.fromkeys(uid for uid in (
        facts.get("parent_author"), project.get("delivery_manager_id"), ctx.portal.profile.get("delivery_manager_id"),
        project.get("owner_id"), facts["company_owner"]) if uid))
    principals = principals_of(ctx.db, people).values() if people else ()  # the active ones
    may_read = notes_service.readers(ctx.db, resource_type, record["id"], principals) if principals else set()
    told = next((uid for uid in people if uid in may_read), None)
    if told is None:
        return
    named = f"project {record['name']}" if resource_type == "project" else f"invoice {facts['invoice_number']}"
    if told == facts.get("parent_author"):
        title = f"The client replied to your note on {named}"
    else:
        title = f"The client {'replied to a note' if parent_id else 'wrote a note'} on {named}"
    notify(ctx, user_id=told, type="portal_note", title=clipped(title, 500),
           body=clipped(content, 500), resource_type="note", resource_id=note_id,
           action_url=f"/{resource_type}s/{record['id']}")


def _written_just_now(ctx, author: str | None, data) -> str | None:
    """The note identical to this one (same record, same parent note or none, same text) that the same portal user
    of the company wrote within DOUBLE_SUBMIT, or None (queries.submitted_just_now)."""
    from chalicelib.areas.notes import service as notes_service

    Note = notes_service.Note
    return submitted_just_now(ctx, author, "note", Note, Note.resource_type == data.resourceType,
                              Note.resource_id == data.resourceId, Note.parent_id.is_not_distinct_from(data.parentId),
                              Note.content == data.content)


def create_note(ctx, *, data) -> str:
    from chalicelib.areas.notes import service as notes_service
    from chalicelib.core.allowance import allow

    # the record checked holding its notes key, which the record's delete takes before deleting its notes: a record
    # deleted meanwhile is found gone (session 23's review: checked first, its note was kept for good)
    notes_service.hold_notes(ctx.db, data.resourceType, data.resourceId)
    record = _record_of(ctx, data.resourceType, data.resourceId)
    if record is None:
        raise BadRequest("resourceId must be a project or invoice of the company",
                         details=[{"field": "resourceId", "message": "not a record of the company"}])
    author = ctx.portal.user_id or data.portalUserId  # the header (set by the portal from its session) wins
    # a double submit (the same note by the same portal user within DOUBLE_SUBMIT) answers the note already written
    # and writes and tells nothing (session 27); under the company's lock, so that two at once are one after the other
    lock_key(ctx.db, "portal-note", ctx.portal.company_id)
    written = _written_just_now(ctx, author, data)
    if written:
        return written
    # each note is its staff told by e-mail: 60 an hour per company, 429 past it, counted before the write (session
    # 26); a double submit answered above counts nothing (session 27)
    allow(ctx, "portal_note", ctx.portal.company_id)
    note_id = notes_service.portal_create_note(ctx, resource_type=data.resourceType, resource_id=data.resourceId,
                                               content=data.content, parent_id=data.parentId,
                                               companies=ctx.portal.company_ids)  # as list_notes lists them
    history.record(ctx.db, entity_type="note", entity_id=note_id, action="created_in_portal", actor_id=None,
                   changes={"portal_user_id": author, "company_id": ctx.portal.company_id})
    from .service_notifications import record_submission

    record_submission(ctx, record_type="note", record_id=note_id, portal_user_id=author)
    _tell_staff(ctx, record=record, resource_type=data.resourceType, note_id=note_id, parent_id=data.parentId,
                content=data.content)
    return note_id
