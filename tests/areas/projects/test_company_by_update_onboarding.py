"""A project given a company by update completes that company's `project_created` onboarding milestone, as a project
created with it does (docs/decisions/projects.md, session 22)."""
from tests.areas.deals.factories import make_company
from tests.areas.onboarding.test_onboarding import BASE, template


def _default_template(api, user) -> None:
    ids = template(api, user, "Default")
    api.patch(f"{BASE}/{ids['template']}", as_=user, json={"is_default": True})
    api.patch(f"{BASE}/milestones/{ids['First project']}", as_=user, json={"auto_source": "project_created"})


def _done(api, user, company_id):
    progress = api.get(f"/api/clients/{company_id}/onboarding", as_=user).json["onboarding"]
    if progress is None:
        return None
    return {m["title"]: m["source"] for s in progress["stages"] for m in s["milestones"] if m["completed_at"]}


def test_project_given_a_company_by_update_completes_project_created(api, db, exec_user):
    _default_template(api, exec_user)
    company = make_company(db, status="client")
    project = api.post("/api/projects", as_=exec_user, json={"name": "P"}).json["project"]
    moved = api.put(f"/api/projects/{project['id']}", as_=exec_user, json={"company_id": company.id})
    assert moved.status == 200, moved
    assert _done(api, exec_user, company.id) == {"First project": "project_created"}


def test_project_moved_to_another_company_completes_its_milestone(api, db, exec_user):
    _default_template(api, exec_user)
    first, second = make_company(db, status="client"), make_company(db, status="client")
    project = api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": first.id}).json["project"]
    assert _done(api, exec_user, first.id) == {"First project": "project_created"}
    assert _done(api, exec_user, second.id) is None
    moved = api.put(f"/api/projects/{project['id']}", as_=exec_user, json={"company_id": second.id})
    assert moved.status == 200, moved
    assert _done(api, exec_user, second.id) == {"First project": "project_created"}


def test_project_update_leaving_the_company_alone_starts_no_onboarding(api, db, exec_user):
    company = make_company(db, status="client")
    project = api.post("/api/projects", as_=exec_user, json={"name": "P", "company_id": company.id}).json["project"]
    assert _done(api, exec_user, company.id) is None  # no template yet: nothing started on create
    _default_template(api, exec_user)
    answer = api.put(f"/api/projects/{project['id']}", as_=exec_user, json={"name": "Q", "company_id": company.id})
    assert answer.status == 200, answer
    assert _done(api, exec_user, company.id) is None  # the company sent back as stored: not a new company
    cleared = api.put(f"/api/projects/{project['id']}", as_=exec_user, json={"company_id": None})
    assert cleared.status == 200, cleared
    assert _done(api, exec_user, company.id) is None
