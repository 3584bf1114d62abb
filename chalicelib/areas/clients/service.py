"""Client profiles: the functions other areas call, and the profile's read and edit.

`client_profile_for_company(db, company_id)` answers the profile as a dict, or None; `ensure_client_profile`
creates one with defaults when the company has none (deals calls it when a company becomes a client).
`get_profile` / `update_profile` serve `GET` / `PUT /api/clients/:companyId/profile`.
"""
from __future__ import annotations

from functools import cache

from sqlalchemy import func, or_, select

from chalicelib.core.locks import insert_ignore
from chalicelib.core.serialize import row_dict

from .models import ClientProfile
from .queries import signer_records

PROFILE_FIELDS = ("id", "company_id", "dashboard_enabled", "delivery_manager_id", "onboarding_template_id",
                  "portal_visibility", "client_group", "created_at", "updated_at")


def client_profile_for_company(db, company_id: str) -> dict | None:
    """The company's client profile (flags as 0/1), or None when it has none (one query)."""
    if not company_id:
        return None
    profile = db.scalar(select(ClientProfile).where(ClientProfile.company_id == company_id))
    return row_dict(profile, PROFILE_FIELDS, flags=("dashboard_enabled",)) if profile is not None else None


def profile_manager_of(company_id_column):
    """A correlated scalar for another area's statement: the delivery manager named on the client profile of the
    company `company_id_column` holds (null without a profile or a manager). The projects area derives a client
    request's manager from it (session 25)."""
    return select(ClientProfile.delivery_manager_id).where(ClientProfile.company_id == company_id_column) \
        .correlate_except(ClientProfile).scalar_subquery()  # the column's table is the caller's, however deep


def ensure_client_profile(db, company_id: str) -> None:
    """A profile with defaults for the company unless it has one (INSERT ... ON CONFLICT DO NOTHING)."""
    insert_ignore(db, ClientProfile, {"company_id": company_id, "dashboard_enabled": False, "portal_visibility": {}},
                  conflict=("company_id",))


def _load(ctx, company_id: str) -> ClientProfile:
    """The company's profile; 404 when the company is missing or not a client (a profile exists for every
    company that became a client: the deals area makes it, the database deletes it with the company)."""
    from chalicelib.core.errors import not_found

    profile = ctx.db.scalar(select(ClientProfile).where(ClientProfile.company_id == company_id))
    if profile is None:
        raise not_found("Client profile")
    return profile


def get_profile(ctx, *, company_id: str) -> dict:
    """The profile of a company that is (or was) a client: 404 for a prospect that never was one."""
    return client_profile_for_company(ctx.db, _load(ctx, company_id).company_id)


def update_profile(ctx, *, company_id: str, data) -> dict:
    from chalicelib.areas.onboarding import service as onboarding_service
    from chalicelib.core.errors import BadRequest
    from chalicelib.core.models import User

    profile = _load(ctx, company_id)
    changes = data.changes()
    manager = changes.get("delivery_manager_id")
    # set or changed (session 25): a profile sent back as read, its manager since deactivated, saves its other fields
    if manager and manager != profile.delivery_manager_id and ctx.db.scalar(select(User.id).where(User.id == manager, User.is_active.is_(True))) is None:
        raise BadRequest("delivery_manager_id must be an active user",
                         details=[{"field": "delivery_manager_id", "message": "must be an active user"}])
    template = changes.get("onboarding_template_id")
    # set or changed (session 27), as the manager: a disabled template is refused like a missing one (whose foreign
    # key answers a 400 naming the field); a profile sent back as read, its template disabled since, saves
    if template and template != profile.onboarding_template_id and onboarding_service.template_disabled(ctx.db, template):
        raise BadRequest("onboarding_template_id must be an active onboarding template",
                         details=[{"field": "onboarding_template_id", "message": "must be an active onboarding template"}])
    if changes.get("client_group"):
        changes["client_group"] = _group_spelling(ctx.db, changes["client_group"], company_id)
    moved = "delivery_manager_id" in changes and manager != profile.delivery_manager_id
    for key, value in changes.items():
        setattr(profile, key, value)
    ctx.db.flush()
    if moved:
        _request_watches_follow(ctx, company_id)
    return client_profile_for_company(ctx.db, company_id)


def _group_spelling(db, label: str, company_id: str) -> str:
    """The client group a label names, in the spelling the other profiles already use (session 32): inner runs of
    white space collapsed, and when another company's profile holds the label letter case aside, its spelling (the
    most used, then the first in order). The group, its filter and the portal's sister-company check compare labels
    exactly, so "Acme Group" and "acme  group" were two groups, and the portal refused the sister company; reading
    them folded instead would widen who sees what, so one spelling is kept on write."""
    label = " ".join(label.split())
    used = db.scalar(select(ClientProfile.client_group)
                     .where(func.lower(ClientProfile.client_group) == label.lower(),
                            ClientProfile.company_id != company_id)
                     .group_by(ClientProfile.client_group)
                     .order_by(func.count().desc(), ClientProfile.client_group).limit(1))
    return used or label


def _request_watches_follow(ctx, company_id: str) -> None:
    """After the profile's delivery manager was set, changed or cleared (flushed): the company's client requests in
    no project and in any of its projects watch the manager they now derive (tasks' `rederive_request_watches`, the
    projects' chain: a project with an active delivery manager of its own keeps it), in this transaction, two
    statements whatever the number of requests (session 27: the old manager kept the watch, the new one never got
    it). A watch somebody chose is never touched."""
    from chalicelib.areas.tasks import service as tasks_service  # another area: imported lazily

    tasks_service.rederive_request_watches(ctx.db, None, [company_id])


# ---------------------------------------------------------------- contracts

def create_contract_for(ctx, *, title: str, company_id: str | None, proposal_id: str | None, status: str,
                        signers: list[dict], actor_id: str | None = None) -> str:
    """A contract made by another area (proposals' onboarding on accept), with its `created` history entry like a
    staff create's (docs/decisions/clients.md); answers its id."""
    from .models import Contract
    from .queries import record_contract_created
    from chalicelib.core.spelling import composed

    # the addresses composed, as the staff routes store them (session 32): the portal finds the contract by them
    signers = [{**signer, "email": composed(signer.get("email"))} for signer in signers]
    contract = Contract(title=title[:300], company_id=company_id, proposal_id=proposal_id, status=status,
                        signers=signers, created_by=actor_id)
    ctx.db.add(contract)
    ctx.db.flush()
    record_contract_created(ctx.db, contract, actor_id)
    return contract.id


PORTAL_CONTRACT_FIELDS = ("id", "title", "company_id", "status", "signers", "document_url", "created_at", "updated_at")


def portal_contracts(db, signer_emails, limit: int, company_ids=()) -> list[dict]:
    """The contracts (drafts aside) of which any signer's e-mail is one of `signer_emails` (a SELECT of
    lower-cased addresses) and whose company is one of `company_ids` or none (a contact two clients share
    must not show one client the other's contracts), newest first, at most `limit` (one statement); no creator
    or proposal id, and of each signer only name, email and signed_at."""
    from sqlalchemy import case, cast, func, literal
    from sqlalchemy.dialects.postgresql import JSON

    from .models import Contract

    if db.get_bind().dialect.name == "postgresql":
        array = case((func.json_typeof(Contract.signers) == "array", Contract.signers),
                     else_=cast(literal("[]"), JSON))
        signer = func.json_array_elements(array).table_valued("value").render_derived(name="signer")
        email = signer.c.value.op("->>")("email")
    else:  # SQLite (the embedded default): json_each, whose rows have a `value` column of their own
        array = case((func.json_type(Contract.signers) == "array", Contract.signers), else_=literal("[]"))
        signer = func.json_each(array).table_valued("value").alias("signer")
        email = func.json_extract(signer.c.value, "$.email")
    matches = select(1).select_from(signer).where(func.lower(email).in_(signer_emails)).exists()
    ours = or_(Contract.company_id.is_(None), Contract.company_id.in_(list(company_ids)))
    rows = db.scalars(select(Contract).where(Contract.status != "draft", matches, ours)
                      .order_by(Contract.created_at.desc(), Contract.id).limit(limit))
    out = []
    for contract in rows:
        record = row_dict(contract, PORTAL_CONTRACT_FIELDS)
        record["signers"] = signer_records(contract.signers)
        out.append(record)
    return out


def portal_profiles(db, company_ids) -> dict[str, dict]:
    """`{company_id: {dashboard_enabled, delivery_manager_id, portal_visibility, client_group}}` of the given
    companies that are clients (company status `client`) and have a profile (one query; the portal's trust
    boundary and group check)."""
    from chalicelib.areas.deals import service as deals_service

    ids = {cid for cid in company_ids or () if cid}
    if not ids:
        return {}
    company = deals_service.company_table()
    rows = db.execute(select(ClientProfile.company_id, ClientProfile.dashboard_enabled, ClientProfile.delivery_manager_id,
                             ClientProfile.portal_visibility, ClientProfile.client_group)
                      .join(company, company.c.id == ClientProfile.company_id)
                      .where(ClientProfile.company_id.in_(ids), company.c.status == "client")).all()
    return {row.company_id: {"dashboard_enabled": bool(row.dashboard_enabled),
                             "delivery_manager_id": row.delivery_manager_id,
                             "portal_visibility": row.portal_visibility or {}, "client_group": row.client_group}
            for row in rows}


def group_company_ids(group):
    """SELECT of the ids of the companies whose client profile carries the client group `group` (a value or a bind
    parameter): the portal keeps a portal user known at the companies of one group (portal's record_portal_user)."""
    return select(ClientProfile.company_id).where(ClientProfile.client_group == group)


# ---------------------------------------------------------------- staff list and create

@cache
def _profile_select():
    """Profile records with the company's and the delivery manager's names (joins; records through
    core.query.record_rows, flag dashboard_enabled), and the companies table for the order. Built once per
    process (an alias proxies its table's columns on first use; `.where()` answers a copy)."""
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.core.models import User
    from sqlalchemy.orm import aliased

    company = deals_service.company_table()
    manager = aliased(User, name="profile_manager")
    return (select(*(getattr(ClientProfile, name) for name in PROFILE_FIELDS), company.c.name.label("company_name"),
                   manager.name.label("delivery_manager_name"))
            .join(company, company.c.id == ClientProfile.company_id)
            .outerjoin(manager, manager.id == ClientProfile.delivery_manager_id)), company


def list_profiles(ctx, query):
    """The client profiles (filters client_group, delivery_manager_id, dashboard_enabled), by company name (letter
    case aside, as the companies list), with the company's and the delivery manager's names: the page's records in
    one statement, its total (when counted) in one more (record_page)."""
    from chalicelib.core.query import record_page

    stmt, company = _profile_select()
    if query.client_group:  # empty or blank: no filter, as the other lists' text filters (it matched nothing)
        stmt = stmt.where(ClientProfile.client_group == query.client_group)
    if query.delivery_manager_id is not None:
        stmt = stmt.where(ClientProfile.delivery_manager_id == query.delivery_manager_id)
    if query.dashboard_enabled is not None:
        stmt = stmt.where(ClientProfile.dashboard_enabled.is_(query.dashboard_enabled))
    return record_page(ctx.db, stmt.order_by(func.lower(company.c.name), company.c.name, ClientProfile.id), query,
                       ("dashboard_enabled",))


def create_profile(ctx, *, company_id: str, data) -> dict:
    """`POST /api/clients/:companyId/profile`: the company (404 when missing) becomes a client with this
    profile; 409 when it is a client already (every client has a profile: edit it with PUT). A former client (a
    prospect again, whose profile was kept) is made a client again with the body's fields (session 29: it was a 409
    that pointed to PUT, which never makes a company a client)."""
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.core.errors import Conflict
    from chalicelib.core.locks import lock_key

    lock_key(ctx.db, "client-profile-create", company_id)  # concurrent creates: one 201, the others see it (409)
    company = deals_service.company_table()
    status = ctx.db.scalar(select(company.c.status).join(ClientProfile, ClientProfile.company_id == company.c.id)
                           .where(company.c.id == company_id))
    if status == "client":
        raise Conflict("The company is a client with a profile already: edit it with PUT")
    deals_service.make_client(ctx, company_id)
    return update_profile(ctx, company_id=company_id, data=data)
