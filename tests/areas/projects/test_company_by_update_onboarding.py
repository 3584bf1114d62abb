"""A project given a company by update completes that company's `project_created` onboarding milestone, as a project
created with it does (docs/decisions/projects.md, session 22)."""
from tests.areas.deals.factories import default_onboarding, make_company, onboarding_done


def test_project_given_a_company_by_update_completes_project_created(api, db, exec_user):
    default_onboarding(api, exec_user, "First project", "project_created")
    company = make_company(db, status="client")
    project = api.post("/api/projects", as_=exec_user, json={"name": "P"}).json["project"]
    moved = api.put(f"/api/projects/{project['id']}", as_=exec_user, json={"company_id": company.id})
    assert moved.status == 200, moved
    assert onboarding_done(api, exec_user, company.id) == {"First project": "project_created"}


def test_project_moved_to_another_company_completes_its_milestone(api, db, exec_user):
    default_onboarding(api, exec_user, "First project", "project_created")
    first, second = make_company(db, status="client"), make_company(db, status="client")
    project = api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": first.id}).json["project"]
    assert onboarding_done(api, exec_user, first.id) == {"First project": "project_created"}
    assert onboarding_done(api, exec_user, second.id) is None
    moved = api.put(f"/api/projects/{project['id']}", as_=exec_user, json={"company_id": second.id})
    assert moved.status == 200, moved
    assert onboarding_done(api, exec_user, second.id) == {"First project": "project_created"}


def test_project_update_leaving_the_company_alone_starts_no_onboarding(api, db, exec_user):
    company = make_company(db, status="client")
    project = api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": company.id}).json["project"]
    assert onboarding_done(api, exec_user, company.id) is None  # no template yet: nothing started on create
    default_onboarding(api, exec_user, "First project", "project_created")
    answer = api.put(f"/api/projects/{project['id']}", as_=exec_user, json={"name": "Q", "company_id": company.id})
    assert answer.status == 200, answer
    assert onboarding_done(api, exec_user, company.id) is None  # the company sent back as stored: not a new company
    cleared = api.put(f"/api/projects/{project['id']}", as_=exec_user, json={"company_id": None})
    assert cleared.status == 200, cleared
    assert onboarding_done(api, exec_user, company.id) is None
