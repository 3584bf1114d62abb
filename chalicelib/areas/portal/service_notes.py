"""The portal's notes: the client-visible notes on the company's projects, deals, budgets and invoices (at
most 100, group-aware), and a client's note or reply on a project or invoice of the company."""
from __future__ import annotations

from chalicelib.core import history
from chalicelib.core.errors import BadRequest

from .queries import deal_ids, project_ids


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


def _record_belongs(ctx, resource_type: str, resource_id: str) -> bool:
    from chalicelib.areas.projects import service as projects_service

    from . import service_invoices

    if resource_type == "project":
        return projects_service.portal_project_detail(ctx.db, [ctx.portal.company_id], resource_id,
                                                      brief=True) is not None
    # an invoice: one the company sees in the portal (issued), not a sister company's
    return service_invoices.company_has_invoice(ctx, resource_id)


def create_note(ctx, *, data) -> str:
    from chalicelib.areas.notes import service as notes_service

    # the record checked holding its notes key, which the record's delete takes before deleting its notes: a record
    # deleted meanwhile is found gone (session 23's review: checked first, its note was kept for good)
    notes_service.hold_notes(ctx.db, data.resourceType, data.resourceId)
    if not _record_belongs(ctx, data.resourceType, data.resourceId):
        raise BadRequest("resourceId must be a project or invoice of the company",
                         details=[{"field": "resourceId", "message": "not a record of the company"}])
    note_id = notes_service.portal_create_note(ctx, resource_type=data.resourceType, resource_id=data.resourceId,
                                               content=data.content, parent_id=data.parentId)
    author = ctx.portal.user_id or data.portalUserId  # the header (set by the portal from its session) wins
    history.record(ctx.db, entity_type="note", entity_id=note_id, action="created_in_portal", actor_id=None,
                   changes={"portal_user_id": author, "company_id": ctx.portal.company_id})
    from .service_notifications import record_submission

    record_submission(ctx, record_type="note", record_id=note_id, portal_user_id=author)
    return note_id
