"""Session 29 (decisions audit, budgets): a budget awaiting approval that leaves a client's portal (moved by PUT to
another client's record or to a record of no client, or its deal moved to another client) no longer leaves that
client's `portal_budget_pending` notice behind: it pointed at a budget the portal answers 404 for, as a deleted
(session 24) or drafted (session 28) budget's did. The new client is told as before."""

from tests.areas.budgets.factories import make_budget, pending_budget_notices, portal_user_seen
from tests.areas.deals.factories import make_deal
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.projects.factories import make_project


def _put(api, user, path, **json):
    answer = api.put(path, json=json, as_=user)
    assert answer.status == 200, answer.json
    return answer.json


def _pending_for(api, db, user, portal, client, portal_user, **budget):  # noqa: F811
    portal_user_seen(portal, client, portal_user)
    made = make_budget(db, status="draft", name="Phase 2", **budget)
    _put(api, user, f"/api/budgets/{made.id}", status="pending_approval")
    assert len(pending_budget_notices(db, client, portal_user)) == 1
    return made


def test_a_pending_budget_moved_to_another_client_withdraws_the_first_clients_notice(portal, db, api,  # noqa: F811
                                                                                     exec_user):
    first, second = make_client(db), make_client(db)
    portal_user_seen(portal, second, "pu-b")
    budget = _pending_for(api, db, exec_user, portal, first, "pu-a", resource_type="deal",
                          resource_id=make_deal(db, company_id=first.id).id)

    _put(api, exec_user, f"/api/budgets/{budget.id}", resource_type="project",
         resource_id=make_project(db, company_id=second.id).id)

    assert portal.get(f"/budgets/{budget.id}", first).status == 404
    assert pending_budget_notices(db, first, "pu-a") == []
    assert len(pending_budget_notices(db, second, "pu-b")) == 1


def test_a_pending_budget_moved_to_a_record_of_no_client_withdraws_the_notice(portal, db, api, exec_user):  # noqa: F811
    client = make_client(db)
    budget = _pending_for(api, db, exec_user, portal, client, "pu-1",
                          resource_id=make_project(db, company_id=client.id).id)

    _put(api, exec_user, f"/api/budgets/{budget.id}", resource_id=make_project(db).id)

    assert pending_budget_notices(db, client, "pu-1") == []


def test_a_deal_moved_to_another_client_withdraws_its_pending_budgets_notices(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    portal_user_seen(portal, second, "pu-b")
    deal = make_deal(db, company_id=first.id)
    budget = _pending_for(api, db, exec_user, portal, first, "pu-a", resource_type="deal", resource_id=deal.id)

    _put(api, exec_user, f"/api/deals/deals/{deal.id}", company_id=second.id)

    assert portal.get(f"/budgets/{budget.id}", first).status == 404
    assert pending_budget_notices(db, first, "pu-a") == []
    assert len(pending_budget_notices(db, second, "pu-b")) == 1
