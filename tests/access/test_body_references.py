"""Scope on every reference in a body (issue 20 item 3): for every route whose body names a record of a
scoped kind (a project, task, sprint, budget, ...), a caller who may use the route but may not see that
record gets 404 or a 400 naming the field, never a 2xx. Generated from the route table: a body field ending
in `_id` must be classified below (scoped, with the maker of a hidden record; or unscoped, with the
reason), so a new area's references cannot slip past."""
from __future__ import annotations

import pytest

from tests.access import scoped_records as records
from tests.access.test_matrix import USER_ROUTES, _allowed_access_level, _fill, _id, _params, body_for
from tests.factories import grant, make_user

# body field -> maker of a record the caller may not see (see scoped_records.py)
BODY_SCOPED = {
    "project_id": records._hidden_project,
    "task_id": records._hidden_task,
    "parent_task_id": records._hidden_task,
    "sprint_id": records._hidden_sprint,
    "budget_id": records._hidden_budget,
    "line_item_id": records._hidden_line_item,
    "roadmap_item_id": records._hidden_roadmap_item,
    "goal_id": records._hidden_goal,
    "resource_id": records._hidden_project,  # with resource_type "project"
    "auto_action_id": records._hidden_relationship_action,
    "request_id": records._hidden_feedback_request,
    "proposal_id": records._hidden_proposal,
}
_USERS = "users are the directory: any active user may be named (permission rules apply, not record scope)"
_CONFIG = "config list items are organisation-wide (checked to belong to their list)"
BODY_UNSCOPED = {
    "assignee_id": _USERS, "reporter_id": _USERS, "approved_by_user_id": _USERS, "manager_id": _USERS,
    "owner_id": _USERS, "delivery_manager_id": _USERS, "user_id": _USERS,
    "reviewer_id": _USERS, "subject_id": _USERS,
    "leave_type_id": "a leave type is the ledger's id, organisation-wide (checked against the cached types)",
    "cycle_id": "review cycles are organisation-wide; a review or feedback request needs an open one (400 naming cycle_id)",
    "status_id": _CONFIG, "priority_id": _CONFIG, "type_id": _CONFIG, "phase_id": _CONFIG, "stage_id": _CONFIG,
    "service_type_id": _CONFIG, "email_template_id": "a template reference of a config item, organisation-wide",
    "company_id": "companies are seen by every deals holder (docs/decisions/deals.md)",
    "contact_id": "contacts are seen by every deals holder", "deal_id": "deals are not record-scoped",
    "reported_by_contact_id": "contacts are seen by every deals holder",
    "ledger_invoice_id": "an id in the external accounting ledger, not a record of the service",
    "ledger_id": "a user's id in the external ledger (payroll), not a record of the service",
    "planner_id": "a user's id in the external planner, not a record of the service",
    "channel_id": "a chat provider's channel, not a record",
    "squad_id": "squads are organisation-wide", "chat_channel_id": "a chat provider's channel, not a record",
    "sla_policy_id": "service levels are organisation-wide: every sla holder sees every policy (docs/decisions/sla.md)",
    "policy_id": "SLA policies are organisation-wide: every sla holder sees every policy (docs/decisions/sla.md)",
    "entity_id": "pages are shared by every pages holder; the entity link is a label (docs/decisions/pages.md); "
                 "a meeting's match checks the entity exists, and a project the caller may see (400 otherwise: "
                 "tests/areas/meetings)",
    "parent_id": "pages are shared by every pages holder",
    "assigned_to_user_id": _USERS,
    "onboarding_template_id": "onboarding templates are organisation-wide (a missing one is a 400: tests/areas/onboarding)",
    "page_id": "an upload's folder is named after a page; pages are shared by every pages holder",
    "template_id": "proposal and client onboarding templates are organisation-wide (docs/decisions/proposals.md)",
    "contract_template_id": "a label naming the contract template of a proposal template (no record scope)",
}


def _draft_time_entry(db, entry_id):
    from chalicelib.areas.timesheets.models import TimeEntry

    db.get(TimeEntry, entry_id).status = "draft"
    db.flush()


EDITABLE = {"entry_id": _draft_time_entry}


def _body_routes():
    cases = []
    for route in USER_ROUTES:
        path, method, spec = route
        if spec.body is None:
            continue
        for name in spec.body.model_fields:
            if name in BODY_SCOPED:
                cases.append((route, name))
    return cases


CASES = _body_routes()


def test_every_body_reference_is_classified():
    unknown = sorted({f"{name} ({_id(route)})" for route in USER_ROUTES if route[2].body is not None
                      for name in route[2].body.model_fields
                      if name.endswith("_id") and name not in BODY_SCOPED and name not in BODY_UNSCOPED})
    assert unknown == []


@pytest.mark.parametrize("route, field", CASES, ids=[f"{_id(r)}:{f}" for r, f in CASES])
def test_a_hidden_record_in_the_body_is_refused(api, db, route, field):
    path, method, spec = route
    made: dict = {}
    values: dict[str, str] = {}
    viewer = None
    for name in _params(path):  # the path's own records: ones the viewer sees (the viewer is their owner)
        if name in records.SCOPED:
            record = records.SCOPED[name].make(db, made)
            made[name] = record
            values[name] = record.id
            viewer = viewer or record.owner
        else:
            values[name] = records.value_for(db, name, made)
            made[name] = type("Value", (), {"id": values[name], "owner": None})()
    if viewer is None:
        viewer = make_user(db, access_level="employee")
    for name, editable in EDITABLE.items():  # the path's record in a state that accepts the write
        if name in values:
            editable(db, values[name])
    if spec.access and viewer.access_level not in spec.access:
        viewer.access_level = _allowed_access_level(spec)
        db.flush()
    if spec.tool:
        grant(db, viewer, spec.tool, spec.level)
    hidden = BODY_SCOPED[field](db, {})  # a fresh owner: someone else's record, outside the viewer's team
    body = dict(body_for(method, path, spec))
    body[field] = hidden.id
    if field == "resource_id":
        body["resource_type"] = "project"
    response = api.request(method, _fill(path, values), json=body, as_=viewer)
    error = response.json or {}
    named = [d.get("field") for d in error.get("details", [])] + [error.get("error", "")]
    assert response.status == 404 or (response.status == 400 and any(field in text for text in named)), (
        f"{method} {path} with a hidden {field} in the body: expected 404 or a 400 naming {field}, got {response!r}")
