"""A life event edited so that it now calls for an auto-action (auto-actions turned on, a one-off event moved into
the future) gets the missing one; actions already made are never rewritten nor doubled
(docs/decisions/relationships.md, session 22)."""
from datetime import timedelta

from chalicelib.core.timeutil import org_today
from tests.areas.deals.factories import make_contact

BASE = "/api/relationships"


def _actions(api, user, contact_id):
    answer = api.get(f"{BASE}/contacts/{contact_id}/relationship-actions", as_=user)
    assert answer.status == 200, answer
    return answer.json["actions"]


def _event(api, user, contact_id, **values):
    made = api.post(f"{BASE}/contacts/{contact_id}/life-events", as_=user,
                    json={"event_type": "launch", "title": "Shop launch", **values})
    assert made.status == 201, made
    return f"{BASE}/contacts/{contact_id}/life-events/{made.json['event']['id']}"


def _run_job():
    from chalicelib.areas.relationships import jobs  # noqa: F401
    from chalicelib.areas.relationships.service_actions import due_auto_actions
    from chalicelib.core.context import job_context

    with job_context() as ctx:
        due_auto_actions(ctx)


def test_one_off_event_auto_action_enabled_by_patch_gets_its_action(api, db, employee):
    contact = make_contact(db)
    future = (org_today() + timedelta(days=3)).isoformat()
    path = _event(api, employee, contact.id, event_date=future, auto_action_enabled=False)
    assert _actions(api, employee, contact.id) == []
    patched = api.patch(path, as_=employee, json={"auto_action_enabled": True})
    assert patched.status == 200, patched
    _run_job()
    actions = _actions(api, employee, contact.id)
    assert len(actions) == 1, actions
    assert actions[0]["title"].startswith("Shop launch (") and actions[0]["title"].endswith(f", {future})")
    # sent again, and other edits: no second action, the one made is left as it is
    for body in ({"auto_action_enabled": True}, {"title": "Store launch"}, {"auto_action_days_before": 1}):
        assert api.patch(path, as_=employee, json=body).status == 200, body
    again = _actions(api, employee, contact.id)
    assert [(a["id"], a["title"]) for a in again] == [(actions[0]["id"], actions[0]["title"])]


def test_one_off_event_moved_from_the_past_into_the_future_gets_its_action(api, db, employee):
    contact = make_contact(db)
    past = (org_today() - timedelta(days=10)).isoformat()
    path = _event(api, employee, contact.id, event_date=past)
    assert _actions(api, employee, contact.id) == []  # a past one-off event: none
    future = (org_today() + timedelta(days=20)).isoformat()
    assert api.patch(path, as_=employee, json={"event_date": future}).status == 200
    actions = _actions(api, employee, contact.id)
    assert len(actions) == 1 and actions[0]["title"].endswith(f", {future})"), actions


def test_event_edited_with_auto_actions_off_gets_none(api, db, employee):
    contact = make_contact(db)
    path = _event(api, employee, contact.id, auto_action_enabled=False)
    future = (org_today() + timedelta(days=5)).isoformat()
    assert api.patch(path, as_=employee, json={"event_date": future}).status == 200
    assert _actions(api, employee, contact.id) == []
    # turned on with a past date: still none (as on create)
    past = (org_today() - timedelta(days=5)).isoformat()
    assert api.patch(path, as_=employee, json={"event_date": past, "auto_action_enabled": True}).status == 200
    assert _actions(api, employee, contact.id) == []
