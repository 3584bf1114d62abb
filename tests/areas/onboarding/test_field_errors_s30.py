"""Session 30 (audit: the same situation answered the same way). A 400 about the request's input names its field in
`details` (decisions.md section 4). An onboarding start with no template named, none on the client profile and none
marked default answered "No onboarding template: ..." with no details: the client's fix is to send template_id."""
from tests.areas.deals.factories import make_company


def test_a_start_with_no_template_to_apply_names_template_id(api, db, exec_user):
    company = make_company(db, status="client")
    response = api.post(f"/api/clients/{company.id}/onboarding", as_=exec_user, json={})
    assert response.status == 400, response
    assert [detail["field"] for detail in response.json["details"]] == ["template_id"]
