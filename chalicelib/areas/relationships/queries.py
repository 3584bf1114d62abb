"""The relationships area's leaf module: the scope clause `visible` (relationship actions), the load-or-404
helpers, and the record builders. Contacts and companies come from the deals service (every relationships
holder sees every contact, as every deals holder does); an action's names are joined in its one statement."""
from __future__ import annotations

from datetime import date

from functools import cache

from sqlalchemy import func, select
from sqlalchemy.orm import aliased

from chalicelib.core.errors import not_found
from chalicelib.core.models import User
from chalicelib.core.query import in_scope, record_rows, visible_row
from chalicelib.core.scoping import is_manager, sees_all, squad_member_ids
from chalicelib.core.serialize import row_dict

from .models import LifeEvent, Partner, RelationshipAction, RelationshipMessage, RelationshipProfile

PROFILE_FIELDS = ("id", "contact_id", "communication_preference", "communication_notes", "personal_notes", "birthday",
                  "birthday_year", "home_address", "interests", "dietary_requirements", "preferred_name",
                  "assistant_name", "assistant_email", "phone_number", "msgapp_number", "sms_opt_in", "created_at",
                  "updated_at")
EVENT_FIELDS = ("id", "contact_id", "event_type", "title", "event_date", "recurs_annually", "description",
                "auto_action_enabled", "auto_action_days_before", "company_id", "created_by", "created_at",
                "updated_at")
ACTION_FIELDS = ("id", "contact_id", "life_event_id", "occurrence_date", "title", "action_type", "description",
                 "assigned_to_user_id", "due_date", "message_body", "company_id", "status", "is_auto", "completed_at",
                 "created_by", "created_at", "updated_at")
MESSAGE_FIELDS = ("id", "contact_id", "channel", "body", "media_url", "to_number", "status", "provider_message_id",
                  "error", "auto_action_id", "sent_by", "created_at")
PARTNER_FIELDS = ("id", "company_id", "partner_company_name", "partner_contact_name", "partner_contact_email",
                  "relationship_type", "estimated_deal_size", "notes", "contact_id", "created_by", "created_at",
                  "updated_at")


def visible(principal):
    """WHERE clause of the relationship actions the principal may see (None: all): executive and head all;
    a manager their own and their squad members'; others their own (assigned to them)."""
    if sees_all(principal):
        return None
    if is_manager(principal):
        return (RelationshipAction.assigned_to_user_id == principal.id) | (
            RelationshipAction.assigned_to_user_id.in_(squad_member_ids(principal)))
    return RelationshipAction.assigned_to_user_id == principal.id


def load_contact(ctx, contact_id: str):
    from chalicelib.areas.deals import service as deals_service

    return deals_service.load_contact(ctx, contact_id)


def load_company(ctx, company_id: str):
    from chalicelib.areas.deals import service as deals_service

    return deals_service.load_company(ctx, company_id)


def load_client_company(ctx, company_id: str):
    """The company, which must have a client profile (404 otherwise: partners belong to clients)."""
    from chalicelib.areas.clients import service as clients_service

    company = load_company(ctx, company_id)
    if clients_service.client_profile_for_company(ctx.db, company_id) is None:
        raise not_found("Client profile")
    return company


def load_life_event(ctx, contact_id: str, event_id: str) -> LifeEvent:
    return visible_row(ctx.db, LifeEvent, event_id, LifeEvent.contact_id == contact_id, "Life event")


def load_action(ctx, action_id: str) -> RelationshipAction:
    return visible_row(ctx.db, RelationshipAction, action_id, visible(ctx.principal), "Relationship action")


def load_partner(ctx, company_id: str, partner_id: str) -> Partner:
    return visible_row(ctx.db, Partner, partner_id, Partner.company_id == company_id, "Partner")


# ---- records -------------------------------------------------------------------------------------

def profile_record(profile: RelationshipProfile) -> dict:
    return row_dict(profile, PROFILE_FIELDS, flags=("sms_opt_in",))


def event_record(event: LifeEvent, contact_company_id: str | None) -> dict:
    """`company_id` is the event's own company when it was given one, else its contact's current company
    (`contact_company_id`): an event belongs to the person and follows them to another company (session 24)."""
    record = row_dict(event, EVENT_FIELDS, flags=("recurs_annually", "auto_action_enabled"))
    record["company_id"] = event.company_id or contact_company_id
    return record


def message_record(message: RelationshipMessage) -> dict:
    return row_dict(message, MESSAGE_FIELDS)


def partner_record(partner: Partner) -> dict:
    return row_dict(partner, PARTNER_FIELDS)


@cache
def action_select():
    """An action's record in one statement: its columns with the contact's names and e-mail, the name of its
    company (the action's, else the contact's) and of its assignee (joins; records through record_rows, flag
    is_auto). Built once per process (an alias proxies its table's columns on first use)."""
    from chalicelib.areas.deals import service as deals_service

    Contact, Company = deals_service.Contact, deals_service.Company
    assignee = aliased(User, name="action_assignee")
    return (select(*(getattr(RelationshipAction, name) for name in ACTION_FIELDS),
                   Contact.first_name, Contact.last_name, Contact.email.label("contact_email"),
                   Company.name.label("company_name"), assignee.name.label("assigned_to_name"))
            .outerjoin(Contact, Contact.id == RelationshipAction.contact_id)
            .outerjoin(Company, Company.id == func.coalesce(RelationshipAction.company_id, Contact.company_id))
            .outerjoin(assignee, assignee.id == RelationshipAction.assigned_to_user_id))


ACTION_FLAGS = ("is_auto",)


def action_records(db, actions: list[RelationshipAction]) -> list[dict]:
    """Records of these actions (action_select's, in their order): one statement whatever their number (its
    callers name one action)."""
    ids = [action.id for action in actions]
    found = {r["id"]: r for r in record_rows(db, action_select().where(RelationshipAction.id.in_(ids)), ACTION_FLAGS)}
    return [found[action_id] for action_id in ids]


def action_list(db, principal, *conditions, limit: int) -> list[dict]:
    """Visible actions matching `conditions`: pending first, then due date (none last), newest first; one
    statement."""
    from sqlalchemy import case

    pending_first = case((RelationshipAction.status == "pending", 0), else_=1)
    stmt = in_scope(action_select().where(*conditions), visible(principal)).order_by(
        pending_first, RelationshipAction.due_date.asc().nulls_last(), RelationshipAction.created_at.desc(),
        RelationshipAction.id).limit(limit)
    return record_rows(db, stmt, ACTION_FLAGS)


def next_occurrence(event_date: date, today: date) -> date:
    """The first occurrence of a recurring event on or after `today`: the event's own date when that is today or
    later (an event dated in the future has no anniversary before it happens), else its next anniversary
    (29 February falls on 28 February in other years)."""
    start = max(today, event_date)

    def anniversary(year: int) -> date:
        try:
            return event_date.replace(year=year)
        except ValueError:
            return date(year, 2, 28)

    day = anniversary(start.year)
    return day if day >= start else anniversary(start.year + 1)  # next year's is after `start`, whatever its day
