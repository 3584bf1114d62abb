"""The portal's leaf module: who the caller is (`resolve_caller`), the company scope of its own records
(`visible`), load-or-404 helpers and record builders of its own tables."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache

from sqlalchemy import select

from chalicelib.core.errors import not_found
from chalicelib.core.serialize import row_dict

from .models import ClientGoal, PortalNotification, PortalSubmission, Qbr, QbrSection

MAX_GROUP_IDS = 50
# a request or note identical to one the same portal user filed this recently is that one: a double submit (s27)
DOUBLE_SUBMIT = timedelta(seconds=60)


def submitted_just_now(ctx, portal_user_id: str | None, record_type: str, model, *same) -> str | None:
    """The id of the `model` row (`record_type` in portal_submissions) that this portal user of the company
    submitted within DOUBLE_SUBMIT and that matches the `same` conditions (the same text, the same record), newest
    first, or None: a client's double submit or retry (session 27). Without a portal user id nobody is known to
    have submitted anything (no submission is recorded): None. One statement; the caller holds the company's lock."""
    from chalicelib.core.ids import utcnow

    if not portal_user_id:
        return None
    return ctx.db.scalar(
        select(model.id).join(PortalSubmission, (PortalSubmission.record_type == record_type)
                              & (PortalSubmission.record_id == model.id))
        .where(PortalSubmission.company_id == ctx.portal.company_id, PortalSubmission.portal_user_id == portal_user_id,
               PortalSubmission.created_at > utcnow() - DOUBLE_SUBMIT, *same)
        .order_by(PortalSubmission.created_at.desc(), model.id.desc()).limit(1))


@dataclass(frozen=True)
class PortalCaller:
    company_id: str
    role: str
    user_id: str | None
    profile: dict
    group_ids: tuple[str, ...] = field(default=())  # the company first, then the honoured group companies

    @property
    def company_ids(self) -> list[str]:
        """The companies a group-aware route reads (the company alone on other routes)."""
        return list(self.group_ids or (self.company_id,))


def _group_candidates(header: str | None, company_id: str) -> list[str]:
    if not header:
        return []
    ids = []
    for part in header.split(","):
        part = part.strip()
        if part and len(part) <= 36 and part != company_id and part not in ids:
            ids.append(part)
    return ids[:MAX_GROUP_IDS]


def resolve_caller(db, *, company_id: str, role: str, user_id: str | None, group_header: str | None) -> PortalCaller:
    """The portal caller: the company must be a client (404 otherwise); group ids are kept only for client
    companies whose profile carries the company's non-empty `client_group` (others ignored). One statement (the
    client profiles of the companies that are clients)."""
    from chalicelib.areas.clients import service as clients_service

    if len(company_id) > 36:
        raise not_found("Client")
    candidates = _group_candidates(group_header, company_id)
    profiles = clients_service.portal_profiles(db, [company_id, *candidates])
    profile = profiles.get(company_id)
    if profile is None:
        raise not_found("Client")
    group = profile["client_group"]
    same_group = [cid for cid in candidates if group and profiles.get(cid, {}).get("client_group") == group]
    members = (company_id, *same_group) if candidates else ()
    return PortalCaller(company_id=company_id, role=role, user_id=user_id, profile=profile, group_ids=members)


# ---------------------------------------------------------------- own records

QBR_FIELDS = ("id", "company_id", "title", "quarter", "summary", "status", "presented_at", "created_by", "created_at",
              "updated_at")
SECTION_FIELDS = ("id", "qbr_id", "section_key", "title", "content", "portal_visible", "position")
GOAL_FIELDS = ("id", "company_id", "metric", "metric_key", "metric_label", "target", "unit", "period", "source",
               "created_at", "updated_at")
NOTIFICATION_FIELDS = ("id", "type", "title", "body", "resource_type", "resource_id", "action_url", "is_read",
                       "read_at", "archived", "archived_at", "created_at")
QUESTIONNAIRE_FIELDS = ("financial_year_start", "financial_year_end", "key_trading_periods", "channel_online_pct",
                        "channel_instore_pct", "channel_wholesale_pct", "celebration_vision", "growth_priorities_text",
                        "company_direction_text", "completed_by", "completed_at", "updated_at")


def qbr_record(qbr: Qbr, sections: list) -> dict:
    return {**row_dict(qbr, QBR_FIELDS),
            "sections": [row_dict(s, SECTION_FIELDS, flags=("portal_visible",)) for s in sections]}


def goal_record(goal: ClientGoal) -> dict:
    return row_dict(goal, GOAL_FIELDS)


def notification_record(notification: PortalNotification) -> dict:
    return row_dict(notification, NOTIFICATION_FIELDS, flags=("is_read", "archived"))


def load_qbr(db, company_id: str, qbr_id: str) -> Qbr:
    qbr = db.scalar(select(Qbr).where(Qbr.id == qbr_id, Qbr.company_id == company_id))
    if qbr is None:
        raise not_found("QBR")
    return qbr


def load_goal(db, company_id: str, goal_id: str) -> ClientGoal:
    goal = db.scalar(select(ClientGoal).where(ClientGoal.id == goal_id, ClientGoal.company_id == company_id))
    if goal is None:
        raise not_found("Client goal")
    return goal


def sections_of(db, qbr_ids) -> dict[str, list]:
    out: dict[str, list] = {qid: [] for qid in qbr_ids}
    if not qbr_ids:
        return out
    for section in db.scalars(select(QbrSection).where(QbrSection.qbr_id.in_(list(qbr_ids)))
                              .order_by(QbrSection.position, QbrSection.id)):
        out[section.qbr_id].append(section)
    return out


# ---------------------------------------------------------------- the company's records in other areas

def project_ids(company_ids):
    """A SELECT of the ids of these companies' projects."""
    from chalicelib.areas.projects import service as projects_service

    return projects_service.company_project_ids(company_ids)


def deal_ids(company_ids):
    """A SELECT of the ids of these companies' deals."""
    from chalicelib.areas.deals import service as deals_service

    return deals_service.company_deal_ids(company_ids)


def load_project(ctx, project_id: str) -> dict:
    """The portal record of a project of the caller's company; 404 for another company's or a missing one."""
    from chalicelib.areas.projects import service as projects_service

    found = projects_service.portal_project_detail(ctx.db, [ctx.portal.company_id], project_id, brief=True)
    if found is None:
        raise not_found("Project")
    return found


# ---------------------------------------------------------------- who hears of a client's write

def company_contact(db, company_id: str) -> str | None:
    """Who hears of a client's questionnaire or connection: as `connection_contacts` answers for the one company,
    the client profile's delivery manager when active, else the company's owner when active, else None (one
    statement). A request asks the projects area's chain instead (`request_manager` in a project,
    `company_request_manager` in none: the first active reader of tasks, since they watch its task)."""
    return connection_contacts(db, [company_id]).get(company_id, (None, None))[0]


@cache
def _contact_users():
    """The two aliases of users `connection_contacts` joins (the profile's manager, the company's owner): built once
    per process."""
    from sqlalchemy.orm import aliased

    from chalicelib.core.models import User

    return aliased(User, name="contact_manager"), aliased(User, name="contact_owner")


def connection_contacts(db, company_ids) -> dict[str, tuple[str, str]]:
    """`{company_id: (user_id, the company's name)}`: who hears of these companies' connections (the client
    profile's delivery manager when active, else the company's owner when active), for many companies in one
    statement (a sync's failures: session 25). A company with neither active is left out."""
    from sqlalchemy import and_, func

    from chalicelib.areas.clients import service as clients_service
    from chalicelib.areas.deals import service as deals_service

    ids = sorted({cid for cid in company_ids if cid})
    if not ids:
        return {}
    company = deals_service.company_table()
    manager, owner = _contact_users()
    rows = db.execute(
        select(company.c.id, company.c.name, func.coalesce(manager.id, owner.id).label("user_id"))
        .select_from(company)
        .outerjoin(manager, and_(manager.id == clients_service.profile_manager_of(company.c.id),
                                 manager.is_active.is_(True)))
        .outerjoin(owner, and_(owner.id == company.c.owner_id, owner.is_active.is_(True)))
        .where(company.c.id.in_(ids))).all()
    return {row.id: (row.user_id, row.name) for row in rows if row.user_id}
