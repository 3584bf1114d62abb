"""A life event belongs to its contact: without a company of its own it follows the contact's current company
(session 24; moves audit; docs/decisions/relationships.md). Before, create copied the contact's company onto the
event, so after the contact moved, next year's auto-action was filed under the old company and went to its owner,
and the old company's relationship summary kept the moved contact's events."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from chalicelib.areas.relationships.models import RelationshipAction
from chalicelib.core.timeutil import org_today
from tests.areas.deals.factories import make_company, make_contact
from tests.factories import make_user

BASE = "/api/relationships"


def _run(client):
    cw = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={}, resources=[])
    return client.lambda_.invoke("life_event_auto_actions", cw).payload


def _birthday(api, contact, user, **body):
    day = (org_today() + timedelta(days=30)).replace(year=1980)
    made = api.post(f"{BASE}/contacts/{contact.id}/life-events", as_=user,
                    json={"event_type": "birthday", "title": "Birthday", "event_date": day.isoformat(),
                          "recurs_annually": True, "auto_action_days_before": 7, **body})
    assert made.status == 201, made
    return made.json["event"]


def _move(api, exec_user, contact, company):
    moved = api.put(f"/api/deals/contacts/{contact.id}", as_=exec_user, json={"company_id": company.id})
    assert moved.status == 200, moved


def _summary_events(api, exec_user, company):
    return [e["id"] for e in api.get(f"{BASE}/clients/{company.id}/relationship-summary", as_=exec_user).json["events"]]


def test_a_moved_contacts_event_follows_them_to_the_new_company(api, db, client, exec_user, org_clock):
    org_clock("2026-11-25T10:00")
    old_owner, new_owner, creator = make_user(db), make_user(db), make_user(db)
    old, new = make_company(db, owner_id=old_owner.id), make_company(db, owner_id=new_owner.id)
    ann = make_contact(db, company_id=old.id)
    event = _birthday(api, ann, creator)
    assert event["company_id"] == old.id  # the contact's company, as before
    assert _summary_events(api, exec_user, old) == [event["id"]]
    _move(api, exec_user, ann, new)
    [listed] = api.get(f"{BASE}/contacts/{ann.id}/life-events", as_=exec_user).json["events"]
    assert listed["company_id"] == new.id
    assert _summary_events(api, exec_user, old) == [] and _summary_events(api, exec_user, new) == [event["id"]]
    creator.is_active = False  # the job's action then goes to the company's owner
    db.flush()
    org_clock("2027-12-20T10:00")  # next year's occurrence, made by the job
    _run(client)
    made = db.scalars(select(RelationshipAction).where(RelationshipAction.contact_id == ann.id,
                                                       RelationshipAction.assigned_to_user_id != creator.id)).all()
    assert [(a.assigned_to_user_id, a.company_id) for a in made] == [(new_owner.id, new.id)]


def test_an_event_given_its_own_company_keeps_it_when_the_contact_moves(api, db, client, exec_user, org_clock):
    org_clock("2026-11-25T10:00")
    chosen_owner, creator = make_user(db), make_user(db)
    chosen = make_company(db, owner_id=chosen_owner.id)
    old, new = make_company(db), make_company(db)
    ann = make_contact(db, company_id=old.id)
    event = _birthday(api, ann, creator, company_id=chosen.id)
    _move(api, exec_user, ann, new)
    [listed] = api.get(f"{BASE}/contacts/{ann.id}/life-events", as_=exec_user).json["events"]
    assert listed["company_id"] == chosen.id
    assert _summary_events(api, exec_user, chosen) == [event["id"]]
    creator.is_active = False
    db.flush()
    org_clock("2027-12-20T10:00")
    _run(client)
    made = db.scalars(select(RelationshipAction).where(RelationshipAction.contact_id == ann.id,
                                                       RelationshipAction.assigned_to_user_id != creator.id)).all()
    assert [(a.assigned_to_user_id, a.company_id) for a in made] == [(chosen_owner.id, chosen.id)]


def test_an_event_of_a_contact_without_a_company_answers_none(api, db, exec_user, org_clock):
    org_clock("2026-11-25T10:00")
    loner = make_contact(db, company_id=None)
    assert _birthday(api, loner, exec_user, auto_action_enabled=False)["company_id"] is None
