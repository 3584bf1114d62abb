"""The portal names no former staff (docs/decisions/portal.md, sessions 22, 25, 26), its task list and decisions too
(session 28, audit "fields a reader should not see"): a deactivated assignee or decider is named null to the client,
as a deactivated owner, delivery manager or member is. Staff views still name them."""
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import make_user


def test_portal_project_tasks_do_not_name_a_former_assignee(portal, api, db, exec_user):
    former = make_user(db, name="Former Assignee")
    company = make_client(db)
    project = make_project(db, company_id=company.id)
    make_task(db, title="Homepage copy", resource_type="project", resource_id=project.id, assignee_id=former.id)
    former.is_active = False
    db.flush()
    tasks = portal.get(f"/projects/{project.id}/tasks", company).json["tasks"]
    assert [(t["title"], t["assignee_name"]) for t in tasks] == [("Homepage copy", None)]
    staff = api.get(f"/api/projects/{project.id}/tasks", as_=exec_user).json["tasks"]
    assert [t["assignee_name"] for t in staff] == ["Former Assignee"]


def _decided_by_former(api, db, exec_user):
    former = make_user(db, name="Former Decider")
    company = make_client(db)
    project = make_project(db, company_id=company.id)
    made = api.post(f"/api/projects/{project.id}/decisions", as_=exec_user,
                    json={"title": "Stack", "decision": "Use Shopify", "decided_by": former.id})
    assert made.status == 201, made
    former.is_active = False
    db.flush()
    return company, project


def test_portal_project_decisions_do_not_name_a_former_decider(portal, api, db, exec_user):
    company, project = _decided_by_former(api, db, exec_user)
    decisions = portal.get(f"/projects/{project.id}/decisions", company).json["decisions"]
    assert [d["decided_by_name"] for d in decisions] == [None]
    staff = api.get(f"/api/projects/{project.id}/decisions", as_=exec_user).json["decisions"]
    assert [d["decided_by_name"] for d in staff] == ["Former Decider"]


def test_portal_project_detail_does_not_name_a_former_decider(portal, api, db, exec_user):
    company, project = _decided_by_former(api, db, exec_user)
    decisions = portal.get(f"/projects/{project.id}", company).json["decisions"]
    assert [d["decided_by_name"] for d in decisions] == [None]
