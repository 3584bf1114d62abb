"""The daily job `life-event-auto-actions`: the next occurrence's auto-action, once per occurrence."""
import json
from datetime import date, timedelta

from sqlalchemy import func, select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.relationships.models import LifeEvent, RelationshipAction
from chalicelib.core.timeutil import org_today
from tests.areas.deals.factories import make_contact


def _event(db, user, *, days_ahead: int, days_before: int, recurs=True, enabled=True):
    today = org_today()
    day = today + timedelta(days=days_ahead)
    if day.month == 2 and day.day == 29:
        day += timedelta(days=1)
    event = LifeEvent(contact_id=make_contact(db).id, event_type="birthday", title="Birthday",
                      event_date=day.replace(year=1980), recurs_annually=recurs, auto_action_enabled=enabled,
                      auto_action_days_before=days_before, created_by=user.id)
    db.add(event)
    db.flush()
    return event


def _count(db, model, *conditions):
    return db.scalar(select(func.count()).select_from(model).where(*conditions))


def test_job_runs_twice_with_one_effect(db, client, employee, org_clock):
    org_clock("2026-11-25T10:00")  # an ordinary day: on 29 February `_event` moves "today" to 1 March (not due)
    due = _event(db, employee, days_ahead=3, days_before=7)
    due_today = _event(db, employee, days_ahead=0, days_before=0)
    _event(db, employee, days_ahead=30, days_before=7)  # not yet
    _event(db, employee, days_ahead=3, days_before=7, enabled=False)
    _event(db, employee, days_ahead=3, days_before=7, recurs=False)  # one-off: only on create
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={}, resources=[])
    first = client.lambda_.invoke("life_event_auto_actions", event).payload
    assert first["created"] == 2, first
    second = client.lambda_.invoke("life_event_auto_actions", event).payload
    assert second["created"] == 0 and second["considered"] == 2
    actions = db.scalars(select(RelationshipAction).where(RelationshipAction.life_event_id.in_([due.id, due_today.id]))
                         ).all()
    assert len(actions) == 2
    by_event = {a.life_event_id: a for a in actions}
    assert by_event[due.id].occurrence_date == org_today() + timedelta(days=3) or \
        by_event[due.id].occurrence_date == org_today() + timedelta(days=4)
    assert by_event[due.id].due_date == org_today()  # 7 days before is in the past: due today
    assert _count(db, ActionItem, ActionItem.source_module == "relationships",
                  ActionItem.source_id.in_([a.id for a in actions])) == 2


def test_job_through_the_cli_and_next_year(db, employee, capsys):
    from chalicelib import cli

    event = _event(db, employee, days_ahead=2, days_before=5)
    assert cli.main(["job", "life-event-auto-actions"]) == 0
    assert json.loads(capsys.readouterr().out)["created"] == 1
    assert cli.main(["job", "life-event-auto-actions"]) == 0
    assert json.loads(capsys.readouterr().out)["created"] == 0
    # the occurrence a year later is another occurrence: it gets its own auto-action when its time comes
    action = db.scalar(select(RelationshipAction).where(RelationshipAction.life_event_id == event.id))
    from chalicelib.areas.relationships.queries import next_occurrence

    later = next_occurrence(event.event_date, action.occurrence_date + timedelta(days=1))
    assert later.year == action.occurrence_date.year + 1
    assert "life-event-auto-actions" in cli.scheduled_jobs()


def test_next_occurrence_of_29_february():
    from chalicelib.areas.relationships.queries import next_occurrence

    assert next_occurrence(date(1984, 2, 29), date(2027, 1, 1)) == date(2027, 2, 28)
    assert next_occurrence(date(1984, 2, 29), date(2028, 1, 1)) == date(2028, 2, 29)
    assert next_occurrence(date(1990, 3, 1), date(2027, 3, 2)) == date(2028, 3, 1)
    # an event dated in the future occurs first on its own date (its 29 February too), never before
    assert next_occurrence(date(2029, 2, 5), date(2026, 3, 1)) == date(2029, 2, 5)
    assert next_occurrence(date(2028, 2, 29), date(2026, 1, 1)) == date(2028, 2, 29)
    assert next_occurrence(date(2028, 2, 29), date(2028, 3, 1)) == date(2029, 2, 28)


def test_job_gives_a_future_recurring_event_no_anniversary_before_its_date(db, client, employee):
    """docs/decisions/relationships.md, Life events: a recurring event dated in the future occurs first on its own
    date. Its anniversary a year (or more) before it was due, and the job made one each year until the event
    (date audit)."""
    today = org_today()
    soon = today + timedelta(days=3)
    if soon.month == 2 and soon.day == 29:
        soon += timedelta(days=1)
    later = _event(db, employee, days_ahead=0, days_before=7)
    later.event_date = soon.replace(year=soon.year + 2)  # its anniversary would fall in 3 days
    own = _event(db, employee, days_ahead=0, days_before=7)
    own.event_date = soon  # dated in 3 days: its own date is its first occurrence
    db.flush()
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={}, resources=[])
    ran = client.lambda_.invoke("life_event_auto_actions", event).payload
    made = db.execute(select(RelationshipAction.life_event_id, RelationshipAction.occurrence_date).where(
        RelationshipAction.life_event_id.in_([later.id, own.id]))).tuples().all()
    assert made == [(own.id, soon)] and ran["created"] == 1, (ran, made)
