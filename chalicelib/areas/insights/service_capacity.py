"""The capacity heatmap (document 1, project side effects): a cell per company and project type, filled when a
project has both and refreshed when its status, company or type changes. The projects area calls
`project_changed` explicitly (one way: insights never reads the projects area); a deleted project leaves the
heatmap with its row (ON DELETE CASCADE)."""
from __future__ import annotations

from sqlalchemy import delete, func, select

from chalicelib.core.models import ConfigListItem
from chalicelib.core.query import LIST_LIMIT

from .models import INACTIVE_PROJECT_STATUSES, CapacityProject
from .queries import count_if, folded


def project_changed(ctx, *, project_id: str, company_id: str | None, type_id: str | None, status: str) -> None:
    """Fill or refresh the project's cell; a project without a company or a type leaves the heatmap. The
    caller holds the project's row (created in this transaction, or locked for the update)."""
    if not (company_id and type_id):
        ctx.db.execute(delete(CapacityProject).where(CapacityProject.project_id == project_id)
                       .execution_options(synchronize_session=False))
        return
    row = ctx.db.get(CapacityProject, project_id)
    if row is None:
        ctx.db.add(CapacityProject(project_id=project_id, company_id=company_id, project_type_id=type_id,
                                   status=status))
    else:
        row.company_id, row.project_type_id, row.status = company_id, type_id, status
    ctx.db.flush()


def heatmap(ctx) -> list[dict]:
    """The filled cells, at most LIST_LIMIT (decisions.md section 4), by company name then type label (then
    their ids): each with its project count and active project count (not completed, cancelled or archived, letter
    case and surrounding spaces aside: a project's status is free text),
    the company's name and the type's label; one statement whatever the cells. A project whose type or company
    was deleted is left out (the type's deletion sets the project's type_id null, without a call here).
    A company is a record of the deals area, seen with `deals:view`: its name is null to a caller without it (session
    29: the heatmap named every client to a holder of insights:view whose deals permission is none); the cell and its
    figures stay, as the figures are organisation-wide."""
    from chalicelib.areas.deals import service as deals_service

    company = deals_service.company_table()
    # a project's status is a free string kept as typed: "Completed" or " cancelled" is not active (session 32)
    active = count_if(folded(CapacityProject.status).not_in(INACTIVE_PROJECT_STATUSES))
    name, label = func.max(company.c.name), func.max(ConfigListItem.label)
    rows = ctx.db.execute(
        select(CapacityProject.company_id, CapacityProject.project_type_id, func.count(), active, name, label)
        # a project counts while its company and type exist: a deleted type (the project's type_id set null) or
        # company leaves it without them (document 1: the cell is filled when both are set)
        .join(company, company.c.id == CapacityProject.company_id)
        .join(ConfigListItem, ConfigListItem.id == CapacityProject.project_type_id)
        .group_by(CapacityProject.company_id, CapacityProject.project_type_id)
        .order_by(func.lower(func.coalesce(name, "")), func.lower(func.coalesce(label, "")),
                  CapacityProject.company_id, CapacityProject.project_type_id)
        .limit(LIST_LIMIT)).all()
    named = ctx.principal.can("deals", "view")
    return [{"company_id": company_id, "company_name": company_name if named else None, "project_type_id": type_id,
             "project_type_label": type_label, "project_count": total, "active_project_count": running}
            for company_id, type_id, total, running, company_name, type_label in rows]
