"""QBRs and client goals: the staff CRUD (decisions.md section 6; paths under /api/clients/:companyId, tool
`deals`) and the portal's reads (presented QBRs only, sections filtered by their own portal visibility and
the client profile's `portal_visibility`)."""
from __future__ import annotations

from sqlalchemy import delete, select

from chalicelib.core import history
from chalicelib.core.errors import Conflict, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_rows, lock_row
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.serialize import clipped

from .models import ClientGoal, Qbr, QbrSection
from .queries import goal_record, load_goal, load_qbr, qbr_record, sections_of


def require_client(ctx, company_id: str) -> None:
    """404 unless the company is a client (staff routes)."""
    from chalicelib.areas.deals import service as deals_service

    if len(company_id) > 36 or company_id not in deals_service.client_company_ids(ctx.db, [company_id]):
        raise not_found("Client")


def _qbr_records(db, qbrs) -> list[dict]:
    qbrs = list(qbrs)
    sections = sections_of(db, [q.id for q in qbrs])
    return [qbr_record(q, sections[q.id]) for q in qbrs]


def list_qbrs(ctx, *, company_id: str) -> list[dict]:
    require_client(ctx, company_id)
    return _qbr_records(ctx.db, ctx.db.scalars(select(Qbr).where(Qbr.company_id == company_id)
                                               .order_by(Qbr.quarter.desc(), Qbr.created_at.desc(), Qbr.id)
                                               .limit(LIST_LIMIT)))


def get_qbr(ctx, *, company_id: str, qbr_id: str) -> dict:
    require_client(ctx, company_id)
    return _qbr_records(ctx.db, [load_qbr(ctx.db, company_id, qbr_id)])[0]


def _replace_sections(db, qbr_id: str, sections) -> None:
    db.execute(delete(QbrSection).where(QbrSection.qbr_id == qbr_id))
    insert_rows(db, QbrSection, [{"qbr_id": qbr_id, "section_key": s.section_key, "title": s.title,
                                  "content": s.content or "", "portal_visible": s.portal_visible,
                                  "position": index} for index, s in enumerate(sections)])


def create_qbr(ctx, *, company_id: str, data) -> dict:
    require_client(ctx, company_id)
    qbr = Qbr(company_id=company_id, title=data.title, quarter=data.quarter, summary=data.summary, status="draft",
              created_by=ctx.user_id)
    ctx.db.add(qbr)
    ctx.db.flush()
    _replace_sections(ctx.db, qbr.id, data.sections or [])
    history.record(ctx.db, entity_type="qbr", entity_id=qbr.id, action="created", actor_id=ctx.user_id)
    return get_qbr(ctx, company_id=company_id, qbr_id=qbr.id)


def _section_rows(sections) -> list[tuple]:
    """What a save-back compares: each section's key, title, content, portal visibility and place."""
    return [(s.section_key, s.title, s.content or "", bool(s.portal_visible), index)
            for index, s in enumerate(sections)]


def update_qbr(ctx, *, company_id: str, qbr_id: str, data) -> dict:
    """Edit a QBR; `sections`, when given, replaces every section. Session 25: a save-back of what was read
    changes nothing: the sections are replaced only when they differ from the stored ones (key, title, content,
    portal visibility, order), so their ids stay, and `updated_at` moves only on a real change of the QBR or its
    sections."""
    require_client(ctx, company_id)
    qbr = lock_row(ctx.db, Qbr, qbr_id, where=Qbr.company_id == company_id, missing="QBR")
    changes = data.changes()
    sections = changes.pop("sections", None)
    changed = False
    for key, value in changes.items():
        if getattr(qbr, key) != value:
            setattr(qbr, key, value)
            changed = True
    if sections is not None and _section_rows(data.sections) != [
            (s.section_key, s.title, s.content, s.portal_visible, s.position)
            for s in sections_of(ctx.db, [qbr.id])[qbr.id]]:
        _replace_sections(ctx.db, qbr.id, data.sections)
        changed = True
    if changed:
        qbr.updated_at = utcnow()
        ctx.db.flush()
    return get_qbr(ctx, company_id=company_id, qbr_id=qbr.id)


def present_qbr(ctx, *, company_id: str, qbr_id: str) -> dict:
    """draft -> presented (409 when already presented): the portal shows it from now on."""
    require_client(ctx, company_id)
    qbr = lock_row(ctx.db, Qbr, qbr_id, where=Qbr.company_id == company_id, missing="QBR")
    if qbr.status == "presented":
        raise Conflict("This QBR has been presented already")
    qbr.status, qbr.presented_at = "presented", utcnow()
    ctx.db.flush()
    history.record(ctx.db, entity_type="qbr", entity_id=qbr.id, action="presented", actor_id=ctx.user_id)
    from .service_notifications import notify_portal_users

    notify_portal_users(ctx, company_ids=[company_id], type="portal_qbr_presented",
                        title=f"Quarterly business review: {qbr.title}", body=qbr.summary and clipped(qbr.summary, 500),
                        resource_type="qbr", resource_id=qbr.id, action_url="/qbrs")
    return get_qbr(ctx, company_id=company_id, qbr_id=qbr.id)


def delete_qbr(ctx, *, company_id: str, qbr_id: str) -> None:
    """Delete the QBR and its sections, and withdraw the portal notices of its presentation (session 24: they
    stayed in the client's notifications, pointing at a QBR the portal no longer lists)."""
    from .service_notifications import withdraw_notices

    require_client(ctx, company_id)
    qbr = load_qbr(ctx.db, company_id, qbr_id)
    withdraw_notices(ctx.db, type="portal_qbr_presented", resource_type="qbr", resource_id=qbr.id,
                     company_id=company_id)
    ctx.db.delete(qbr)
    ctx.db.flush()


def _kind(key: str) -> str:
    """A section kind as `portal_visibility` and `section_key` name it: letter case and surrounding spaces aside."""
    return key.strip().casefold()


def portal_qbrs(ctx) -> list[dict]:
    """The company's presented QBRs, newest quarter first, with only the sections marked portal-visible and
    not hidden by the client profile's `portal_visibility` (`{section_key: false}` hides that kind). The key and the
    section key are typed by staff on different pages: compared letter case and surrounding spaces aside, and a key
    false in any spelling hides (session 32: "Financials" was shown to a client whose profile hid "financials")."""
    hidden = {_kind(key) for key, shown in (ctx.portal.profile.get("portal_visibility") or {}).items() if not shown}
    out = []
    for record in _qbr_records(ctx.db, ctx.db.scalars(
            select(Qbr).where(Qbr.company_id == ctx.portal.company_id, Qbr.status == "presented")
            .order_by(Qbr.quarter.desc(), Qbr.presented_at.desc(), Qbr.id).limit(LIST_LIMIT))):
        sections = [{k: s[k] for k in ("id", "section_key", "title", "content", "position")}
                    for s in record["sections"] if s["portal_visible"] and _kind(s["section_key"]) not in hidden]
        out.append({k: record[k] for k in ("id", "title", "quarter", "summary", "presented_at")} | {"sections": sections})
    return out


# ---------------------------------------------------------------- client goals (staff)

def list_goals(ctx, *, company_id: str) -> list[dict]:
    require_client(ctx, company_id)
    return [goal_record(g) for g in ctx.db.scalars(select(ClientGoal).where(ClientGoal.company_id == company_id)
                                                    .order_by(ClientGoal.created_at, ClientGoal.id).limit(LIST_LIMIT))]


def check_goal_room(db, company_id: str, adding: int = 1, *others) -> None:
    """409 when the company's goals (those matching `others`, extra WHERE clauses, when given) and `adding` new ones
    would pass LIST_LIMIT (500, decisions.md section 4): the staff list answers the oldest 500, so a 501st would be
    cut from it silently (session 26). The company's row is locked first (the deals area's `check_room` idiom), so
    concurrent writes cannot pass the cap together. Two statements whatever the count."""
    from chalicelib.areas.deals import service as deals_service  # another area: imported lazily

    lock_row(db, deals_service.Company, company_id, missing="Client")  # deleted meanwhile: 404
    if adding > LIST_LIMIT or db.scalar(
            select(ClientGoal.id).where(ClientGoal.company_id == company_id, *others)
            .offset(LIST_LIMIT - adding).limit(1)) is not None:
        raise Conflict(f"A client holds at most {LIST_LIMIT} goals")


def create_goal(ctx, *, company_id: str, data) -> dict:
    """A staff goal; 409 when the client holds 500 already (session 26)."""
    require_client(ctx, company_id)
    check_goal_room(ctx.db, company_id)
    goal = ClientGoal(company_id=company_id, source="staff", created_by=ctx.user_id, **data.changes())
    ctx.db.add(goal)
    ctx.db.flush()
    return goal_record(goal)


def update_goal(ctx, *, company_id: str, goal_id: str, data) -> dict:
    """Edit a client goal. Session 25: only the fields whose value differs are written (the target compared as
    the exact decimal it is stored as), and `updated_at` moves only then: a goal sent back as read is unchanged."""
    require_client(ctx, company_id)
    goal = load_goal(ctx.db, company_id, goal_id)
    changed = False
    for key, value in data.changes().items():
        if getattr(goal, key) != value:
            setattr(goal, key, value)
            changed = True
    if changed:
        goal.updated_at = utcnow()
        ctx.db.flush()
    return goal_record(goal)


def delete_goal(ctx, *, company_id: str, goal_id: str) -> None:
    require_client(ctx, company_id)
    ctx.db.delete(load_goal(ctx.db, company_id, goal_id))
    ctx.db.flush()
