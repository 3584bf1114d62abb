"""Twin path of session 24's 'a project given a client' (budgets.project_company_changed): a deal moved to another
client company puts its pending budgets in that client's portal (listed, approvable) without telling it (review of
the session's diff)."""

from tests.areas.budgets.factories import make_budget, pending_budget_notices, portal_user_seen
from tests.areas.deals.factories import make_deal
from tests.areas.portal.conftest import make_client, portal  # noqa: F401


def test_deal_moved_to_another_client_tells_its_pending_budgets(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    portal_user_seen(portal, first, "pu-a")
    portal_user_seen(portal, second, "pu-b")
    deal = make_deal(db, company_id=first.id)
    budget = make_budget(db, resource_type="deal", resource_id=deal.id, status="pending_approval", name="Deal phase")

    answer = api.put(f"/api/deals/deals/{deal.id}", json={"company_id": second.id}, as_=exec_user)
    assert answer.status == 200, answer.json

    assert [b["id"] for b in portal.get("/budgets", second).json["budgets"]] == [budget.id]  # listed to B
    assert len(pending_budget_notices(db, second, "pu-b")) == 1  # B told, as a project moved to B tells it


def test_a_deal_saved_with_its_company_tells_nobody_again(portal, db, api, exec_user):  # noqa: F811
    first = make_client(db)
    portal_user_seen(portal, first, "pu-a")
    deal = make_deal(db, company_id=first.id)
    make_budget(db, resource_type="deal", resource_id=deal.id, status="pending_approval", name="Deal phase")
    answer = api.put(f"/api/deals/deals/{deal.id}", json={"company_id": first.id, "title": "Renamed"}, as_=exec_user)
    assert answer.status == 200, answer.json
    assert pending_budget_notices(db, first, "pu-a") == []
