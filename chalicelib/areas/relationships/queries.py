"""The relationships area's leaf module: the scope clause `visible` (relationship actions), the load-or-404
helpers, and the record builders. Contacts and companies come from the deals service (every relationships
holder sees every contact, as every deals holder does); names are looked up once per list."""
from __future__ import annotations

from datetime import date

from sqlalchemy import select

from chalicelib.core.errors import not_found
from chalicelib.core.lookup import names
from chalicelib.core.query import in_scope, visible_row
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


def event_record(event: LifeEvent) -> dict:
    return row_dict(event, EVENT_FIELDS, flags=("recurs_annually", "auto_action_enabled"))


def message_record(message: RelationshipMessage) -> dict:
    return row_dict(message, MESSAGE_FIELDS)


def partner_record(partner: Partner) -> dict:
    return row_dict(partner, PARTNER_FIELDS)


def action_records(db, actions: list[RelationshipAction]) -> list[dict]:
    """Records of actions with the contact's names and e-mail, the company's and assignee's names joined:
    three statements whatever the number of actions (contacts, companies, users)."""
    from chalicelib.areas.deals import service as deals_service

    contacts = deals_service.contact_briefs(db, [a.contact_id for a in actions])
    companies = deals_service.company_names(
        db, [a.company_id or contacts.get(a.contact_id, {}).get("company_id") for a in actions])
    users = names(db, user_ids=[a.assigned_to_user_id for a in actions])
    out = []
    for action in actions:
        contact = contacts.get(action.contact_id, {})
        company_id = action.company_id or contact.get("company_id")
        out.append({**row_dict(action, ACTION_FIELDS, flags=("is_auto",)),
                    "first_name": contact.get("first_name"), "last_name": contact.get("last_name"),
                    "contact_email": contact.get("email"), "company_name": companies.get(company_id),
                    "assigned_to_name": users.user(action.assigned_to_user_id)["name"]})
    return out


def action_list(db, principal, *conditions, limit: int) -> list[dict]:
    """Visible actions matching `conditions`: pending first, then due date (none last), newest first."""
    from sqlalchemy import case

    pending_first = case((RelationshipAction.status == "pending", 0), else_=1)
    stmt = in_scope(select(RelationshipAction).where(*conditions), visible(principal)).order_by(
        pending_first, RelationshipAction.due_date.asc().nulls_last(), RelationshipAction.created_at.desc(),
        RelationshipAction.id).limit(limit)
    return action_records(db, list(db.scalars(stmt)))


def next_occurrence(event_date: date, today: date) -> date:
    """The next anniversary of `event_date` on or after `today` (29 February falls on 28 February)."""
    for year in (today.year, today.year + 1):
        try:
            day = event_date.replace(year=year)
        except ValueError:
            day = date(year, 2, 28)
        if day >= today:
            return day
    raise AssertionError("unreachable")
