"""Session 24 (paths audit): a budget pending approval is shown, approvable, in the portal of the client company of
its project. A project given a client company (PUT /api/projects/:id company_id, none before) or moved to another
one put its pending budgets in that client's portal without telling it (`portal_budget_pending` fired only on the
budget's own status change or move). Now that client's portal users are told of each, once; the old client is not
told again, and a draft or approved budget tells nobody (docs/decisions/budgets.md, "A project given a client")."""

from tests.areas.budgets.factories import make_budget, pending_budget_notices, portal_user_seen
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.projects.factories import make_project


def _put_project(api, user, project, **json):
    answer = api.put(f"/api/projects/{project.id}", json=json, as_=user)
    assert answer.status == 200, answer.json
    return answer.json["project"]


def test_pending_budget_of_a_companyless_project_given_a_client(portal, db, api, exec_user):  # noqa: F811
    mine = make_client(db)
    portal_user_seen(portal, mine, "pu-1")
    project = make_project(db)
    budget = make_budget(db, resource_id=project.id, status="draft", name="Internal first")
    assert api.put(f"/api/budgets/{budget.id}", json={"status": "pending_approval"}, as_=exec_user).status == 200
    make_budget(db, resource_id=project.id, status="draft", name="Still a draft")
    make_budget(db, resource_id=project.id, status="approved", name="Agreed")

    _put_project(api, exec_user, project, company_id=mine.id)

    assert budget.id in [b["id"] for b in portal.get("/budgets", mine).json["budgets"]]
    told = pending_budget_notices(db, mine, "pu-1")
    assert [(n.title, n.resource_type, n.resource_id) for n in told] == [
        ("Budget awaiting your approval: Internal first", "budget", budget.id)]


def test_every_pending_budget_is_told_once(portal, db, api, exec_user):  # noqa: F811
    mine = make_client(db)
    portal_user_seen(portal, mine, "pu-1")
    project = make_project(db)
    budgets = [make_budget(db, resource_id=project.id, status="pending_approval", name=f"Phase {i}") for i in range(3)]

    _put_project(api, exec_user, project, company_id=mine.id)
    _put_project(api, exec_user, project, company_id=mine.id, name="Renamed")  # a re-save of the company

    assert sorted(n.resource_id for n in pending_budget_notices(db, mine, "pu-1")) == sorted(b.id for b in budgets)


def test_project_moved_to_another_client_tells_the_new_one_only(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    portal_user_seen(portal, first, "pu-a")
    portal_user_seen(portal, second, "pu-b")
    project = make_project(db, company_id=first.id)
    budget = make_budget(db, resource_id=project.id, status="draft", name="Phase 2")
    assert api.put(f"/api/budgets/{budget.id}", json={"status": "pending_approval"}, as_=exec_user).status == 200
    assert len(pending_budget_notices(db, first, "pu-a")) == 1

    _put_project(api, exec_user, project, company_id=second.id)

    assert [b["id"] for b in portal.get("/budgets", second).json["budgets"]] == [budget.id]
    assert len(pending_budget_notices(db, second, "pu-b")) == 1
    # the old client is not told again, and its notice is withdrawn (session 29: its portal no longer lists the budget)
    assert pending_budget_notices(db, first, "pu-a") == []


def test_company_cleared_tells_nobody(portal, db, api, exec_user):  # noqa: F811
    mine = make_client(db)
    portal_user_seen(portal, mine, "pu-1")
    project = make_project(db, company_id=mine.id)
    make_budget(db, resource_id=project.id, status="pending_approval", name="Phase 3")

    _put_project(api, exec_user, project, company_id=None)

    assert pending_budget_notices(db, mine, "pu-1") == []
