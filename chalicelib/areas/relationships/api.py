"""Relationships (tool `relationships`: view reads, update writes, manage deletes); base /api/relationships."""
from chalice import Blueprint, Rate

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, many, one

from . import jobs, service, service_actions, service_messages
from .schemas import (ActionCreate, ActionRead, ActionUpdate, LifeEventCreate, LifeEventRead, LifeEventUpdate,
                      MessageCreate, MessageRead, PartnerCreate, PartnerRead, PartnerUpdate, ProfileDetail,
                      ProfileRead, ProfileUpdate, RelationshipSummary)

bp = Blueprint(__name__)
BASE = "/api/relationships"
TOOL = "relationships"


@bp.route(f"{BASE}/contacts/{{contact_id}}/relationship", methods=["GET"])
@endpoint(tool=TOOL, level="view", errors=(404,), response=ProfileDetail)
def get_relationship_profile(ctx, contact_id: str):
    """A contact's relationship profile (created on first read, phone number from the contact)"""
    from chalicelib.providers.sms import sms_status

    return {"profile": service.get_profile(ctx, contact_id=contact_id), "sms_connected": int(sms_status()[0])}


@bp.route(f"{BASE}/contacts/{{contact_id}}/relationship", methods=["PATCH"])
@endpoint(tool=TOOL, level="update", body=ProfileUpdate, errors=(404,), response=one("profile", ProfileRead))
def update_relationship_profile(ctx, contact_id: str, body: ProfileUpdate):
    """Upsert a contact's relationship profile"""
    return {"profile": service.update_profile(ctx, contact_id=contact_id, data=body)}


@bp.route(f"{BASE}/contacts/{{contact_id}}/life-events", methods=["GET"])
@endpoint(tool=TOOL, level="view", errors=(404,), response=many("events", LifeEventRead))
def list_life_events(ctx, contact_id: str):
    """A contact's life events, latest event date first"""
    return {"events": service.list_events(ctx, contact_id=contact_id)}


@bp.route(f"{BASE}/contacts/{{contact_id}}/life-events", methods=["POST"])
@endpoint(tool=TOOL, level="update", body=LifeEventCreate, status=201, errors=(404,),
          response=one("event", LifeEventRead))
def create_life_event(ctx, contact_id: str, body: LifeEventCreate):
    """Add a life event (and its auto-action unless auto_action_enabled is false)"""
    return {"event": service.create_event(ctx, contact_id=contact_id, data=body)}


@bp.route(f"{BASE}/contacts/{{contact_id}}/life-events/{{event_id}}", methods=["PATCH"])
@endpoint(tool=TOOL, level="update", body=LifeEventUpdate, errors=(404,), response=one("event", LifeEventRead))
def update_life_event(ctx, contact_id: str, event_id: str, body: LifeEventUpdate):
    """Update a life event"""
    return {"event": service.update_event(ctx, contact_id=contact_id, event_id=event_id, data=body)}


@bp.route(f"{BASE}/contacts/{{contact_id}}/life-events/{{event_id}}", methods=["DELETE"])
@endpoint(tool=TOOL, level="manage", errors=(404,), response=OkResponse)
def delete_life_event(ctx, contact_id: str, event_id: str):
    """Delete a life event (its auto-actions stay)"""
    service.delete_event(ctx, contact_id=contact_id, event_id=event_id)
    return {"ok": True}


@bp.route(f"{BASE}/relationship-actions", methods=["GET"])
@endpoint(tool=TOOL, level="view", response=many("actions", ActionRead))
def list_relationship_actions(ctx):
    """Relationship actions: executive and head all; manager own and squad members'; others own (at most 500)"""
    return {"actions": service_actions.list_actions(ctx)}


@bp.route(f"{BASE}/contacts/{{contact_id}}/relationship-actions", methods=["GET"])
@endpoint(tool=TOOL, level="view", errors=(404,), response=many("actions", ActionRead))
def list_contact_relationship_actions(ctx, contact_id: str):
    """A contact's relationship actions that the caller may see"""
    return {"actions": service_actions.list_contact_actions(ctx, contact_id=contact_id)}


@bp.route(f"{BASE}/contacts/{{contact_id}}/relationship-actions", methods=["POST"])
@endpoint(tool=TOOL, level="update", body=ActionCreate, status=201, errors=(404,),
          response=one("action", ActionRead))
def create_relationship_action(ctx, contact_id: str, body: ActionCreate):
    """Add a relationship action (assigned to the caller by default), mirrored to the action centre"""
    return {"action": service_actions.create_action(ctx, contact_id=contact_id, data=body)}


@bp.route(f"{BASE}/relationship-actions/{{relationship_action_id}}", methods=["PATCH"])
@endpoint(tool=TOOL, level="update", body=ActionUpdate, errors=(404,), response=one("action", ActionRead))
def update_relationship_action(ctx, relationship_action_id: str, body: ActionUpdate):
    """Mark an action done or dismissed (its action-centre item is completed with it)"""
    return {"action": service_actions.update_action(ctx, action_id=relationship_action_id, data=body)}


@bp.route(f"{BASE}/contacts/{{contact_id}}/messages", methods=["GET"])
@endpoint(tool=TOOL, level="view", errors=(404,), response=many("messages", MessageRead))
def list_messages(ctx, contact_id: str):
    """Messages sent to a contact, newest first (at most 500)"""
    return {"messages": service_messages.list_messages(ctx, contact_id=contact_id)}


@bp.route(f"{BASE}/contacts/{{contact_id}}/messages", methods=["POST"])
@endpoint(tool=TOOL, level="update", body=MessageCreate, status=201, errors=(403, 404, 429, 500, 503),
          response=one("message", MessageRead))
def send_message(ctx, contact_id: str, body: MessageCreate):
    """Send an SMS, MMS or message-app message (needs opt-in and a valid phone number)"""
    return {"message": service_messages.send_message(ctx, contact_id=contact_id, data=body)}


@bp.route(f"{BASE}/companies/{{company_id}}/partners", methods=["GET"])
@endpoint(tool=TOOL, level="view", errors=(404,), response=many("partners", PartnerRead))
def list_partners(ctx, company_id: str):
    """A client's partners (the company must have a client profile)"""
    return {"partners": service.list_partners(ctx, company_id=company_id)}


@bp.route(f"{BASE}/companies/{{company_id}}/partners", methods=["POST"])
@endpoint(tool=TOOL, level="update", body=PartnerCreate, status=201, errors=(404, 409),
          response=one("partner", PartnerRead))
def create_partner(ctx, company_id: str, body: PartnerCreate):
    """Add a partner to a client"""
    return {"partner": service.create_partner(ctx, company_id=company_id, data=body)}


@bp.route(f"{BASE}/companies/{{company_id}}/partners/{{partner_id}}", methods=["PATCH"])
@endpoint(tool=TOOL, level="update", body=PartnerUpdate, errors=(404,), response=one("partner", PartnerRead))
def update_partner(ctx, company_id: str, partner_id: str, body: PartnerUpdate):
    """Update a partner"""
    return {"partner": service.update_partner(ctx, company_id=company_id, partner_id=partner_id, data=body)}


@bp.route(f"{BASE}/companies/{{company_id}}/partners/{{partner_id}}", methods=["DELETE"])
@endpoint(tool=TOOL, level="manage", errors=(404,), response=OkResponse)
def delete_partner(ctx, company_id: str, partner_id: str):
    """Delete a partner"""
    service.delete_partner(ctx, company_id=company_id, partner_id=partner_id)
    return {"ok": True}


@bp.route(f"{BASE}/clients/{{company_id}}/relationship-summary", methods=["GET"])
@endpoint(tool=TOOL, level="view", errors=(404,), response=RelationshipSummary)
def relationship_summary(ctx, company_id: str):
    """A client's contacts, coming and recurring events, pending actions, partners and last 10 messages"""
    return service.summary(ctx, company_id=company_id)


@bp.schedule(Rate(1, unit=Rate.DAYS))
def life_event_auto_actions(event):
    """Daily: the auto-action of each recurring life event's next occurrence, auto_action_days_before ahead."""
    return jobs.life_event_auto_actions()
