"""Code no test ran (session 29 coverage audit): a reorder naming another template's milestone, a milestone
completed for a company whose onboarding never started, a start after a source fired that the template has no
milestone for."""
from __future__ import annotations

from tests.areas.deals.factories import make_company
from tests.areas.onboarding.test_onboarding import BASE, template


def test_reorder_refuses_another_templates_milestone(api, db, exec_user):
    ids = template(api, exec_user)
    other = template(api, exec_user, "Other")
    tid = ids["template"]
    before = api.get(f"{BASE}/{tid}", as_=exec_user).json
    answer = api.patch(f"{BASE}/{tid}/reorder", as_=exec_user, json={
        "stages": [{"id": ids["Kickoff"], "sort_order": 1}, {"id": ids["Delivery"], "sort_order": 0}],
        "milestones": [{"id": other["Contract signed"], "stage_id": ids["Kickoff"], "sort_order": 0}]})
    assert answer.status == 400, answer
    assert answer.json["details"] == [{"field": "milestones.0.id", "message": "is not a milestone of this template"}]
    assert api.get(f"{BASE}/{tid}", as_=exec_user).json == before  # nothing written
    assert api.get(f"{BASE}/{other['template']}", as_=exec_user).json["stages"][0]["milestones"][0]["id"] == \
        other["Contract signed"]


def test_completing_a_milestone_before_the_onboarding_started_is_a_404(api, db, exec_user):
    ids = template(api, exec_user)
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    for method in (api.post, api.delete):
        answer = method(f"{path}/milestones/{ids['Contract signed']}/complete", as_=exec_user)
        assert answer.status == 404 and answer.json == {"error": "Onboarding not found"}, answer
    assert api.get(path, as_=exec_user).json == {"onboarding": None}  # nothing started


def test_a_start_after_a_source_fired_that_the_template_has_no_milestone_for(api, db, exec_user):
    company = make_company(db, status="client")
    path = f"/api/clients/{company.id}/onboarding"
    assert api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": company.id}).status == 201
    ids = template(api, exec_user, "Manual only")  # no milestone has an auto_source
    started = api.post(path, as_=exec_user, json={"template_id": ids["template"]})
    assert started.status == 201, started
    onboarding = started.json["onboarding"]
    assert onboarding["percent_complete"] == 0
    assert not [m for s in onboarding["stages"] for m in s["milestones"] if m["completed_at"]]


def test_no_template_lists_an_empty_list(api, db, exec_user):
    answer = api.get(BASE, as_=exec_user)
    assert answer.status == 200 and answer.json == {"templates": []}, answer
