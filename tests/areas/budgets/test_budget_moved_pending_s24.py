"""Session 24 (flows audit): a budget in `pending_approval` moved by PUT /api/budgets/:id to another client's record
(resource_type / resource_id changed so that the client company of its project or deal changes) is listed in that
client's portal and can be approved there, but its portal users were not told (`portal_budget_pending` fired only when
the status became pending_approval). Now the new company is told, once; a move within one company, or a budget that
is not pending, tells nobody (docs/decisions/budgets.md, "A pending budget moved to another client")."""

from tests.areas.budgets.factories import make_budget, pending_budget_notices, portal_user_seen
from tests.areas.deals.factories import make_deal
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.projects.factories import make_project


def _put(api, user, budget, **json):
    answer = api.put(f"/api/budgets/{budget.id}", json=json, as_=user)
    assert answer.status == 200, answer.json
    return answer.json["budget"]


def test_pending_budget_moved_to_another_clients_project_tells_that_client(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    portal_user_seen(portal, first, "pu-a")
    portal_user_seen(portal, second, "pu-b")
    budget = make_budget(db, resource_type="deal", resource_id=make_deal(db, company_id=first.id).id,
                         status="draft", name="Phase 2")
    assert _put(api, exec_user, budget, status="pending_approval")["status"] == "pending_approval"
    assert len(pending_budget_notices(db, first, "pu-a")) == 1
    target = make_project(db, company_id=second.id)

    moved = _put(api, exec_user, budget, resource_type="project", resource_id=target.id)

    assert moved["status"] == "pending_approval"
    assert [b["id"] for b in portal.get("/budgets", second).json["budgets"]] == [budget.id]  # listed, approvable
    told = pending_budget_notices(db, second, "pu-b")
    assert [(n.title, n.resource_type, n.resource_id) for n in told] == [
        ("Budget awaiting your approval: Phase 2", "budget", budget.id)]
    # the old client is not told again, and its notice is withdrawn (session 29: its portal no longer lists the budget)
    assert pending_budget_notices(db, first, "pu-a") == []


def test_pending_budget_moved_from_a_companyless_project_tells_the_new_client(portal, db, api, exec_user):  # noqa: F811
    client = make_client(db)
    portal_user_seen(portal, client, "pu-1")
    budget = make_budget(db, resource_id=make_project(db).id, status="pending_approval", name="Internal first")

    _put(api, exec_user, budget, resource_id=make_project(db, company_id=client.id).id)

    assert len(pending_budget_notices(db, client, "pu-1")) == 1


def test_pending_budget_moved_within_one_client_tells_nobody(portal, db, api, exec_user):  # noqa: F811
    client = make_client(db)
    portal_user_seen(portal, client, "pu-1")
    budget = make_budget(db, resource_type="deal", resource_id=make_deal(db, company_id=client.id).id,
                         status="pending_approval", name="Same client")

    _put(api, exec_user, budget, resource_type="project", resource_id=make_project(db, company_id=client.id).id)
    _put(api, exec_user, budget, name="Same client, renamed")

    assert pending_budget_notices(db, client, "pu-1") == []  # portal notices have no de-dup window: none is sent


def test_draft_budget_moved_to_a_client_tells_nobody(portal, db, api, exec_user):  # noqa: F811
    client = make_client(db)
    portal_user_seen(portal, client, "pu-1")
    budget = make_budget(db, resource_id=make_project(db).id, status="draft")

    _put(api, exec_user, budget, resource_id=make_project(db, company_id=client.id).id)

    assert pending_budget_notices(db, client, "pu-1") == []


def test_moved_and_made_pending_in_one_put_tells_the_new_client_once(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    portal_user_seen(portal, first, "pu-a")
    portal_user_seen(portal, second, "pu-b")
    budget = make_budget(db, resource_id=make_project(db, company_id=first.id).id, status="draft")

    _put(api, exec_user, budget, status="pending_approval",
         resource_id=make_project(db, company_id=second.id).id)

    assert len(pending_budget_notices(db, second, "pu-b")) == 1
    assert pending_budget_notices(db, first, "pu-a") == []


def test_pending_budget_moved_off_its_client_tells_nobody(portal, db, api, exec_user):  # noqa: F811
    client = make_client(db)
    portal_user_seen(portal, client, "pu-1")
    budget = make_budget(db, resource_id=make_project(db, company_id=client.id).id, status="pending_approval")

    _put(api, exec_user, budget, resource_id=make_project(db).id)

    assert pending_budget_notices(db, client, "pu-1") == []
