"""Session 25 (onboarding audit).

1. Completing an already completed milestone, or reopening one never completed, changes nothing: no history entry
   (`milestone_completed` / `milestone_reopened` were recorded for every call) and no recomputation of the
   stored completion time (a no-op completion stamped `completed_at` with its own time).
2. A template reorder naming a stage or milestone id twice is a 400 naming the repeated entry, as every other
   reorder (core.locks.reorder); it kept the last entry silently (200)."""
from chalicelib.areas.onboarding.service_progress import ENTITY as ONBOARDING
from chalicelib.core import history
from chalicelib.core.schemas import PageQuery
from tests.areas.deals.factories import make_company
from tests.areas.onboarding.test_onboarding import BASE, template


def _actions(db, company_id):
    return [e["action"] for e in history.entries(db, entity_type=ONBOARDING, entity_id=company_id,
                                                  query=PageQuery()).items]


def _started(api, db, user, ids):
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    assert api.post(path, as_=user, json={"template_id": ids["template"]}).status == 201
    return company, path


def test_a_no_op_complete_or_reopen_records_no_history(api, db, exec_user):
    ids = template(api, exec_user)
    company, path = _started(api, db, exec_user, ids)
    signed, call = ids["Contract signed"], ids["Kickoff call"]
    first = api.post(f"{path}/milestones/{signed}/complete", as_=exec_user)
    assert first.status == 200 and _actions(db, company.id).count("milestone_completed") == 1
    again = api.post(f"{path}/milestones/{signed}/complete", as_=exec_user)  # already complete: no-op
    assert again.status == 200 and again.json == first.json
    never = api.delete(f"{path}/milestones/{call}/complete", as_=exec_user)  # never complete: no-op
    assert never.status == 200 and never.json == first.json
    logged = _actions(db, company.id)
    assert logged.count("milestone_completed") == 1 and "milestone_reopened" not in logged, logged
    # real changes are still recorded
    assert api.delete(f"{path}/milestones/{signed}/complete", as_=exec_user).status == 200
    assert api.delete(f"{path}/milestones/{signed}/complete", as_=exec_user).status == 200  # reopened already
    logged = _actions(db, company.id)
    assert logged.count("milestone_reopened") == 1 and logged.count("milestone_completed") == 1, logged


def test_a_no_op_complete_does_not_restamp_completed_at(api, db, exec_user):
    """An onboarding finished by a milestone's removal is completed at its last completion (progress_record); a
    repeated completion of a done milestone answered its own time instead (the recomputation ran on a no-op)."""
    ids = template(api, exec_user, "Small", stages=(("Kickoff", "kickoff", ("Signed", "Call")),))
    company, path = _started(api, db, exec_user, ids)
    assert api.post(f"{path}/milestones/{ids['Signed']}/complete", as_=exec_user).status == 200
    assert api.delete(f"{BASE}/milestones/{ids['Call']}", as_=exec_user).status == 200
    before = api.get(path, as_=exec_user).json["onboarding"]
    assert before["percent_complete"] == 100 and before["completed_at"] is not None
    again = api.post(f"{path}/milestones/{ids['Signed']}/complete", as_=exec_user)
    assert again.status == 200
    assert again.json["onboarding"]["completed_at"] == before["completed_at"], (again.json, before)
    assert api.get(path, as_=exec_user).json["onboarding"] == before


def _structure(api, user, template_id):
    detail = api.get(f"{BASE}/{template_id}", as_=user).json
    return [(s["id"], s["sort_order"], [(m["id"], m["sort_order"]) for m in s["milestones"]]) for s in detail["stages"]]


def test_reorder_refuses_a_stage_id_named_twice(api, db, exec_user):
    ids = template(api, exec_user)
    tid = ids["template"]
    before = _structure(api, exec_user, tid)
    answer = api.patch(f"{BASE}/{tid}/reorder", as_=exec_user, json={"stages": [
        {"id": ids["Kickoff"], "sort_order": 5}, {"id": ids["Delivery"], "sort_order": 4},
        {"id": ids["Kickoff"], "sort_order": 3}]})
    assert answer.status == 400, (answer.status, answer.json)
    assert answer.json["details"] == [{"field": "stages.2.id", "message": "duplicate id"}], answer.json
    assert _structure(api, exec_user, tid) == before  # nothing written


def test_reorder_refuses_a_milestone_id_named_twice(api, db, exec_user):
    ids = template(api, exec_user)
    tid = ids["template"]
    before = _structure(api, exec_user, tid)
    m = ids["Contract signed"]
    answer = api.patch(f"{BASE}/{tid}/reorder", as_=exec_user, json={
        "stages": [{"id": ids["Kickoff"], "sort_order": 1}, {"id": ids["Delivery"], "sort_order": 0}],
        "milestones": [{"id": m, "stage_id": ids["Kickoff"], "sort_order": 0},
                       {"id": m, "stage_id": ids["Delivery"], "sort_order": 7}]})
    assert answer.status == 400, (answer.status, answer.json)
    assert answer.json["details"] == [{"field": "milestones.1.id", "message": "duplicate id"}], answer.json
    assert _structure(api, exec_user, tid) == before  # nothing written, the stages' order neither
