"""The notes area's leaf module: the scope clauses (`visible` for a note's visibility levels, `person_reach`
for the person-note hierarchy), `load_resource` (the noted record must exist and be visible), `load_note`,
and the record builders. service.py imports it, never the reverse."""
from __future__ import annotations

from sqlalchemy import String, cast, false, or_, select

from chalicelib.core.errors import BadRequest, NotFound, not_found
from chalicelib.core.models import ACCESS_LEVELS, User
from chalicelib.core.query import Page, in_scope, record_page, tree_ids
from chalicelib.core.readers import seen_by
from chalicelib.core.scoping import direct_report_ids

from .models import RESOURCE_TOOLS, Note

CLIENT_LEVEL = "client"  # a visibility value: the note is shown in the client portal
NOTE_FIELDS = ("id", "resource_type", "resource_id", "author_id", "content", "visibility", "mentions", "parent_id",
               "created_at", "updated_at")
# the frontend's page of each resource type, for the deep link of a mention
DEEP_LINKS = {
    "person": "/people/{id}", "candidate": "/candidates/{id}", "scorecard": "/scorecards/{id}",
    "review": "/performance/reviews/{id}", "deal": "/deals/{id}", "company": "/companies/{id}",
    "contact": "/contacts/{id}", "announcement": "/announcements/{id}", "task": "/tasks/{id}",
    "project": "/projects/{id}", "budget": "/budgets/{id}", "invoice": "/invoices/{id}", "proposal": "/proposals/{id}",
}


def visible(principal):
    """WHERE clause of the notes the principal may read (None: all): executives every note (they are always in a
    note's visibility); others the notes whose visibility names their access level, and their own notes."""
    if principal.access_level == "executive":
        return None
    # visibility is a JSON array of level names: '["employee", "executive"]'; a level is matched with its quotes
    return or_(Note.author_id == principal.id,
               cast(Note.visibility, String).like(f'%"{principal.access_level}"%'))


def person_reach(principal, subtree: str = "note_subtree"):
    """WHERE clause on User of the people whose notes the principal may read (None: everyone), as document 2 lists
    them: executives all, heads their subtree (reports of reports, any depth), managers their direct reports;
    nobody else, not even themselves (a manager's note about a report is not the report's to read).
    `subtree` names a head's recursive CTE (distinct names when several heads' clauses go in one statement)."""
    level = principal.access_level
    if level == "executive":
        return None
    if level == "head":
        return User.id.in_(tree_ids(User.id, User.manager_id, User.manager_id == principal.id, subtree))
    if level == "manager":
        return User.id.in_(direct_report_ids(principal))
    return false()


def reaches_people(principal) -> bool:
    """Whether the principal reaches any person through the hierarchy (employees and leads reach nobody)."""
    return principal.access_level in ("executive", "head", "manager")


def tool_for(resource_type: str) -> str:
    tool = RESOURCE_TOOLS.get(resource_type)
    if tool is None:
        raise BadRequest(f"Unknown resource type {resource_type[:40]!r}",
                         details=[{"field": "resource_type", "message": f"must be one of {', '.join(RESOURCE_TOOLS)}"}])
    return tool


def load_resource(ctx, resource_type: str, resource_id: str) -> None:
    """The noted record must exist and be visible to the caller (404 otherwise), and the caller must hold view
    on its type's tool (403). Types whose area is not built yet have no record to find: 404."""
    from chalicelib.areas.announcements import service as announcements_service
    from chalicelib.areas.budgets import service as budgets_service
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.areas.performance import service as performance_service
    from chalicelib.areas.projects import service as projects_service
    from chalicelib.areas.tasks import service as tasks_service

    ctx.require(tool_for(resource_type), "view")
    if resource_type == "person":
        # employees and leads reach nobody: 404 without asking the database
        if not reaches_people(ctx.principal) or ctx.db.scalar(in_scope(
                select(User.id).where(User.id == resource_id), person_reach(ctx.principal))) is None:
            raise not_found("Person")
    elif resource_type == "task":
        tasks_service.load_task(ctx, resource_id)
    elif resource_type == "project":
        projects_service.load_project(ctx, resource_id)
    elif resource_type == "announcement":
        announcements_service.load_announcement(ctx, resource_id)
    elif resource_type == "budget":
        budgets_service.load_budget(ctx, resource_id)
    elif resource_type == "company":
        deals_service.load_company(ctx, resource_id)
    elif resource_type == "contact":
        deals_service.load_contact(ctx, resource_id)
    elif resource_type == "deal":
        if deals_service.deal_brief(ctx.db, resource_id) is None:
            raise not_found("Deal")
    elif resource_type == "invoice":
        from chalicelib.areas.invoices import service as invoices_service

        invoices_service.load_invoice(ctx, resource_id)
    elif resource_type == "review":
        performance_service.load_review(ctx, resource_id)
    elif resource_type == "proposal":
        from chalicelib.areas.proposals import service as proposals_service

        proposals_service.load_proposal(ctx, resource_id)
    else:  # candidate, scorecard: their areas add the lookup
        raise not_found(resource_type.capitalize())


def readers(db, resource_type: str, resource_id: str, principals) -> set[str]:
    """Which of these principals may read notes on this (existing) record, as `load_resource` would answer asked as
    each of them: view on its type's tool, and the record in their scope, asked of all of them at once through the
    owning area (`<resource>_seen_by`): one statement whatever their number, none when no one holds the view."""
    from chalicelib.areas.announcements import service as announcements_service
    from chalicelib.areas.budgets import service as budgets_service
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.areas.performance import service as performance_service
    from chalicelib.areas.projects import service as projects_service
    from chalicelib.areas.tasks import service as tasks_service

    tool = tool_for(resource_type)
    holders = [principal for principal in principals if principal.can(tool, "view")]
    if not holders:
        return set()
    if resource_type == "person":  # each head's subtree a CTE of its own name, in the one statement
        names = {p.id: f"note_subtree_{n}" for n, p in enumerate(holders)}
        return seen_by(db, User, resource_id, holders, lambda p: person_reach(p, names[p.id]))
    if resource_type == "task":
        return tasks_service.task_seen_by(db, resource_id, holders)
    if resource_type == "project":
        return projects_service.project_seen_by(db, resource_id, holders)
    if resource_type == "announcement":
        return announcements_service.announcement_seen_by(db, resource_id, holders)
    if resource_type == "budget":
        return budgets_service.budget_seen_by(db, resource_id, holders)
    if resource_type in ("company", "contact", "deal"):
        return deals_service.seen_by(db, resource_type, resource_id, holders)
    if resource_type == "invoice":
        from chalicelib.areas.invoices import service as invoices_service

        return invoices_service.invoice_seen_by(db, resource_id, holders)
    if resource_type == "review":
        return performance_service.review_seen_by(db, resource_id, holders)
    if resource_type == "proposal":
        from chalicelib.areas.proposals import service as proposals_service

        return proposals_service.proposal_seen_by(db, resource_id, holders)
    return set()  # candidate, scorecard: no record to find yet (load_resource answers 404)


def load_note(ctx, note_id: str) -> Note:
    """The note if the caller may read it (its visibility, its record's visibility and tool): 404 otherwise. Without
    view on the record's tool the note is missing too (session 28): `load_resource`'s 403 named the tool, confirming
    that the note exists and what it is on, where a missing id answers 404. Nor does a note on a record out of the
    caller's row scope answer that record's 404 ("Project not found"), session 30: it is "Note not found" too."""
    note = ctx.db.scalar(in_scope(select(Note).where(Note.id == note_id), visible(ctx.principal)))
    if note is None or not ctx.can(tool_for(note.resource_type), "view"):
        raise not_found("Note")
    try:
        load_resource(ctx, note.resource_type, note.resource_id)
    except NotFound:  # its record out of the caller's scope: the note is missing too, not "Project not found"
        raise not_found("Note") from None
    return note


def ordered_levels(levels) -> list[str]:
    """Distinct levels in the order of ACCESS_LEVELS, with `executive` always included; `client` (shown in the
    client portal) last when chosen."""
    chosen = set(levels) | {"executive"}
    return [level for level in ACCESS_LEVELS if level in chosen] + ([CLIENT_LEVEL] if CLIENT_LEVEL in chosen else [])


def note_page(db, principal, resource_type: str, resource_id: str, query) -> Page:
    """One page (core.schemas.PageQuery) of the notes of one record that the principal may read, newest first,
    replies among them as any note, with the author's name and picture: one statement, and the count when the
    first page is full or an offset is asked (core.query.record_page)."""
    stmt = (select(*(getattr(Note, name) for name in NOTE_FIELDS), User.name.label("author_name"),
                   User.picture.label("author_picture"))
            .outerjoin(User, User.id == Note.author_id)
            .where(Note.resource_type == resource_type, Note.resource_id == resource_id)
            .order_by(Note.created_at.desc(), Note.id))
    return record_page(db, in_scope(stmt, visible(principal)), query)
