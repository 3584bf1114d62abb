"""Session 22: the daily life-event job never assigns an auto-action to a deactivated user. The creator when
active, else the owner of the event's company (else the contact's company) when active, else the occurrence is
skipped and counted in the job's result."""
from datetime import timedelta

from sqlalchemy import select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.relationships.models import LifeEvent, RelationshipAction
from chalicelib.core.timeutil import org_today
from tests.areas.deals.factories import make_company, make_contact
from tests.factories import make_user


def _event(db, creator, contact, **values):
    day = org_today() + timedelta(days=3)
    event = LifeEvent(contact_id=contact.id, event_type="birthday", title="Birthday",
                      event_date=day.replace(year=1980), recurs_annually=True, auto_action_enabled=True,
                      auto_action_days_before=7, created_by=creator.id, **values)
    db.add(event)
    db.flush()
    return event


def _run(client):
    cw = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={}, resources=[])
    return client.lambda_.invoke("life_event_auto_actions", cw).payload


def _actions(db, event):
    return db.scalars(select(RelationshipAction).where(RelationshipAction.life_event_id == event.id)).all()


def test_a_deactivated_creator_gets_no_auto_action(db, client, org_clock):
    org_clock("2026-11-25T10:00")
    leaver = make_user(db, is_active=False)
    owner, gone_owner, creator = make_user(db), make_user(db, is_active=False), make_user(db)
    to_owner = _event(db, leaver, make_contact(db, company_id=make_company(db, owner_id=owner.id).id))
    # the event's own company wins over the contact's (as an action's company does)
    own_company = _event(db, leaver, make_contact(db, company_id=make_company(db).id),
                         company_id=make_company(db, owner_id=owner.id).id)
    no_company = _event(db, leaver, make_contact(db))
    owner_gone = _event(db, leaver, make_contact(db, company_id=make_company(db, owner_id=gone_owner.id).id))
    active = _event(db, creator, make_contact(db, company_id=make_company(db, owner_id=owner.id).id))

    first = _run(client)
    assert first["created"] == 3 and first["skipped"] == 2, first
    assert [a.assigned_to_user_id for a in _actions(db, to_owner)] == [owner.id]
    assert [a.assigned_to_user_id for a in _actions(db, own_company)] == [owner.id]
    assert [a.assigned_to_user_id for a in _actions(db, active)] == [creator.id]
    assert _actions(db, no_company) == [] and _actions(db, owner_gone) == []
    items = db.scalars(select(ActionItem.assigned_to).where(
        ActionItem.source_module == "relationships",
        ActionItem.source_id.in_([a.id for e in (to_owner, own_company) for a in _actions(db, e)]))).all()
    assert items == [owner.id, owner.id]

    second = _run(client)  # one effect: nothing new, the skipped ones skipped again
    assert second["created"] == 0 and second["skipped"] == 2, second
    assert len(_actions(db, to_owner)) == 1 and _actions(db, no_company) == []


def test_the_job_statement_count_does_not_grow_with_the_events(db, client, org_clock, count_queries):
    org_clock("2026-11-25T10:00")
    leaver, owner, creator = make_user(db, is_active=False), make_user(db), make_user(db)

    def grow(n):
        for i in range(n):
            company = make_company(db, owner_id=owner.id) if i % 3 else None
            _event(db, leaver if i % 2 else creator, make_contact(db, company_id=company.id if company else None))

    counts = []
    for n in (2, 12):
        grow(n)
        with count_queries() as counter:
            result = _run(client)
        assert result["created"] + result["skipped"] == n, result
        counts.append(counter.count)
    assert counts[0] == counts[1], counts
