"""Relationships: contact relationship profiles, life events (with their auto-actions), partners of client
companies, the client relationship summary, and the functions other areas call (`lock_for_action_centre`,
`reassigned_in_action_centre` and `completed_in_action_centre` for the action centre, `project_completed` for
projects, `contact_deleted` for deals). Actions live in service_actions.py, messages in service_messages.py."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import and_, case, or_, select

from chalicelib.core.locks import insert_ignore
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.timeutil import org_today

from . import service_actions
from .models import ClientWin, LifeEvent, Partner, RelationshipAction, RelationshipMessage, RelationshipProfile
from .queries import (action_list, event_record, load_client_company, load_company, load_contact, load_life_event, load_partner,
                      message_record, partner_record, profile_record)

SUMMARY_DAYS = 90  # document 2, Limits: events in the next 90 days
SUMMARY_MESSAGES = 10  # last 10 messages


# ---- functions other areas call -------------------------------------------------------------------

def lock_for_action_centre(ctx, *, action_id: str) -> None:
    """The action centre is about to complete an item mirrored from a relationship action: lock the action first
    (the one order of the two rows: the action, then its item)."""
    service_actions.lock_for_action_centre(ctx, action_id=action_id)


def reassigned_in_action_centre(ctx, *, action_id: str, assigned_to: str) -> None:
    """The action centre is reassigning an item mirrored from a relationship action: the action is locked (before
    the item) and given the same assignee (session 24)."""
    service_actions.reassigned_in_action_centre(ctx, action_id=action_id, assigned_to=assigned_to)


def completed_in_action_centre(ctx, *, action_id: str) -> None:
    """The action centre completed an item mirrored from a relationship action: mark the action done."""
    service_actions.completed_in_action_centre(ctx, action_id=action_id)


def contact_deleted(ctx, *, contact_id: str) -> None:
    """The deals area is deleting a contact: the action-centre items of its relationship actions are deleted
    (the actions go with the contact through their key)."""
    service_actions.contact_deleted(ctx, contact_id=contact_id)


def project_completed(ctx, *, project_id: str, company_id: str, project_name: str) -> bool:
    """A project with a company became `completed` (or a completed project was given its company): its draft client
    win, once per project. Answers whether the win was made now (False: the project has one already), which the
    projects area uses to tell the delivery manager once per win on a company given later (session 24)."""
    return 1 == insert_ignore(ctx.db, ClientWin, {
        "company_id": company_id, "project_id": project_id, "status": "draft", "created_by": ctx.user_id,
        "summary": f"{project_name} was completed. Draft client win: add the results and the client's words."},
        conflict=("project_id",))


# ---- profile -------------------------------------------------------------------------------------

def get_profile(ctx, *, contact_id: str) -> dict:
    """The contact's profile, created on first read with the contact's phone number."""
    contact = load_contact(ctx, contact_id)
    profile = ctx.db.scalar(select(RelationshipProfile).where(RelationshipProfile.contact_id == contact_id))
    if profile is None:
        insert_ignore(ctx.db, RelationshipProfile, {"contact_id": contact_id, "phone_number": contact.phone,
                                                    "interests": [], "sms_opt_in": False}, conflict=("contact_id",))
        profile = ctx.db.scalar(select(RelationshipProfile).where(RelationshipProfile.contact_id == contact_id))
    return profile_record(profile)


def update_profile(ctx, *, contact_id: str, data) -> dict:
    """Upsert: the fields sent (at least the profile's defaults exist afterwards)."""
    get_profile(ctx, contact_id=contact_id)
    profile = ctx.db.scalar(select(RelationshipProfile).where(RelationshipProfile.contact_id == contact_id)
                            .with_for_update())
    for key, value in data.changes().items():
        setattr(profile, key, value if key != "interests" else (value or []))
    ctx.db.flush()
    return profile_record(profile)


# ---- life events ---------------------------------------------------------------------------------

def list_events(ctx, *, contact_id: str) -> list[dict]:
    """By event date, latest first (events without a date last)."""
    contact = load_contact(ctx, contact_id)
    events = ctx.db.scalars(select(LifeEvent).where(LifeEvent.contact_id == contact_id)
                            .order_by(LifeEvent.event_date.desc().nulls_last(), LifeEvent.created_at.desc(),
                                      LifeEvent.id).limit(LIST_LIMIT))
    return [event_record(event, contact.company_id) for event in events]


def create_event(ctx, *, contact_id: str, data) -> dict:
    """The event, and its auto-action (unless auto_action_enabled is false, or the event has no coming date).
    `company_id` is stored only when sent: without one the event's company is its contact's current one wherever
    it is read (records, auto-actions, the summary), so it follows the contact to another company (session 24;
    it was copied from the contact here and stayed with the old company)."""
    from chalicelib.areas.deals import service as deals_service

    contact = load_contact(ctx, contact_id)
    values = data.model_dump()
    deals_service.check_company(ctx.db, values["company_id"])
    event = LifeEvent(**values, contact_id=contact_id, created_by=ctx.user_id)
    ctx.db.add(event)
    ctx.db.flush()
    service_actions.auto_action_for_new_event(ctx, event)
    return event_record(event, contact.company_id)


# the fields that decide whether an event calls for an auto-action, and for which occurrence
_AUTO_ACTION_FIELDS = ("auto_action_enabled", "event_date", "recurs_annually")


def update_event(ctx, *, contact_id: str, event_id: str, data) -> dict:
    """The fields sent. When one that decides the auto-action really changed (auto-actions turned on, a new date,
    recurring or not) and the event now calls for one, its missing auto-action is made as on create: actions
    already made are never rewritten, and the unique (event, occurrence) pair makes none twice. The job's lock is
    taken first, so the daily job and a concurrent edit of the same event never make the same one."""
    contact = load_contact(ctx, contact_id)
    event = load_life_event(ctx, contact_id, event_id)
    changes = data.changes()
    decisive = any(key in changes and changes[key] != getattr(event, key) for key in _AUTO_ACTION_FIELDS)
    for key, value in changes.items():
        setattr(event, key, value)
    ctx.db.flush()
    if decisive and event.auto_action_enabled:
        from chalicelib.core.locks import lock_key

        lock_key(ctx.db, service_actions.AUTO_ACTIONS_LOCK)  # the daily job's (service_actions.due_auto_actions)
        service_actions.auto_action_for_new_event(ctx, event)
    return event_record(event, contact.company_id)


def delete_event(ctx, *, contact_id: str, event_id: str) -> None:
    """Its auto-actions stay (their life_event_id becomes null)."""
    load_contact(ctx, contact_id)
    ctx.db.delete(load_life_event(ctx, contact_id, event_id))
    ctx.db.flush()


# ---- partners ------------------------------------------------------------------------------------

def list_partners(ctx, *, company_id: str) -> list[dict]:
    load_client_company(ctx, company_id)
    return _partners(ctx.db, company_id)


def _partners(db, company_id: str) -> list[dict]:
    partners = db.scalars(select(Partner).where(Partner.company_id == company_id)
                          .order_by(Partner.partner_company_name, Partner.id).limit(LIST_LIMIT))
    return [partner_record(partner) for partner in partners]


def create_partner(ctx, *, company_id: str, data) -> dict:
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.core.locks import lock_row
    from chalicelib.core.query import LIST_LIMIT as CAP

    company = load_client_company(ctx, company_id)
    values = data.model_dump()
    deals_service.check_contact(ctx.db, values["contact_id"])
    lock_row(ctx.db, type(company), company.id, missing="Company")
    count = ctx.db.scalar(select(Partner.id).where(Partner.company_id == company_id).offset(CAP - 1).limit(1))
    if count is not None:
        from chalicelib.core.errors import Conflict

        raise Conflict(f"A client holds at most {CAP} partners")
    partner = Partner(**values, company_id=company_id, created_by=ctx.user_id)
    ctx.db.add(partner)
    ctx.db.flush()
    return partner_record(partner)


def update_partner(ctx, *, company_id: str, partner_id: str, data) -> dict:
    from chalicelib.areas.deals import service as deals_service

    load_client_company(ctx, company_id)
    partner = load_partner(ctx, company_id, partner_id)
    changes = data.changes()
    deals_service.check_contact(ctx.db, changes.get("contact_id"))
    for key, value in changes.items():
        setattr(partner, key, value)
    ctx.db.flush()
    return partner_record(partner)


def delete_partner(ctx, *, company_id: str, partner_id: str) -> None:
    load_client_company(ctx, company_id)
    ctx.db.delete(load_partner(ctx, company_id, partner_id))
    ctx.db.flush()


# ---- the client relationship summary ------------------------------------------------------------

def summary(ctx, *, company_id: str) -> dict:
    """`{contacts, events, actions, partners, messages}` of a company: its contacts with their communication
    preferences, life events dated in the next 90 days plus every recurring one, pending actions (the caller's
    scope), partners and the last 10 messages. A constant number of statements."""
    from chalicelib.areas.deals import service as deals_service

    load_company(ctx, company_id)  # any company (a summary needs no client profile)
    contacts = deals_service.company_contacts(ctx.db, company_id)
    contact_ids = [c["id"] for c in contacts]
    profiles = {p.contact_id: p for p in ctx.db.scalars(
        select(RelationshipProfile).where(RelationshipProfile.contact_id.in_(contact_ids)))} if contact_ids else {}
    out_contacts = []
    for contact in contacts:
        profile = profiles.get(contact["id"])
        out_contacts.append({**contact, **{field: getattr(profile, field) if profile else None for field in (
            "communication_preference", "communication_notes", "preferred_name", "phone_number", "msgapp_number")},
            "sms_opt_in": int(bool(profile and profile.sms_opt_in))})
    today = org_today()
    of_company = or_(LifeEvent.company_id == company_id, LifeEvent.contact_id.in_(contact_ids or [""]))
    events = ctx.db.scalars(select(LifeEvent).where(of_company, or_(
        LifeEvent.recurs_annually.is_(True),
        and_(LifeEvent.event_date >= today, LifeEvent.event_date <= today + timedelta(days=SUMMARY_DAYS))))
        .order_by(case((LifeEvent.recurs_annually.is_(True), 1), else_=0), LifeEvent.event_date, LifeEvent.id)
        .limit(LIST_LIMIT))
    actions = action_list(ctx.db, ctx.principal, RelationshipAction.status == "pending", or_(
        RelationshipAction.company_id == company_id, RelationshipAction.contact_id.in_(contact_ids or [""])),
        limit=LIST_LIMIT)
    messages = ctx.db.scalars(select(RelationshipMessage).where(
        RelationshipMessage.contact_id.in_(contact_ids or [""]))
        .order_by(RelationshipMessage.created_at.desc(), RelationshipMessage.id.desc()).limit(SUMMARY_MESSAGES))
    # an event found here without a company of its own is one of the company's contacts': its company is this one
    return {"contacts": out_contacts, "events": [event_record(e, company_id) for e in events], "actions": actions,
            "partners": _partners(ctx.db, company_id), "messages": [message_record(m) for m in messages]}
