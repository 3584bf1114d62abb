"""Session 24 (audit of reversals). A budget pending approval tells its client's portal users
(`portal_budget_pending`, resource `budget` / its id). Deleted (DELETE /api/budgets/:id) while that notice was in the
portal, the notice stayed, pointing at a budget the portal answers 404 for: the twin of a deleted QBR. Now the delete
withdraws the budget's notices (docs/decisions/budgets.md, "A deleted budget's portal notices"). A budget taken out of
pending_approval but still linked to the client's record stays listed in its portal: its notice is kept."""
from sqlalchemy import select

from chalicelib.areas.portal.models import PortalNotification
from tests.areas.budgets.factories import make_budget
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.projects.factories import make_project


def _pending_notices(db, company, user):
    db.expire_all()
    return db.scalars(select(PortalNotification).where(
        PortalNotification.company_id == company.id, PortalNotification.portal_user_id == user,
        PortalNotification.type == "portal_budget_pending").order_by(PortalNotification.created_at)).all()


def _pending(api, user, budget):
    answer = api.put(f"/api/budgets/{budget.id}", json={"status": "pending_approval"}, as_=user)
    assert answer.status == 200, answer.json


def test_deleted_pending_budget_withdraws_its_portal_notice(portal, db, api, exec_user):  # noqa: F811
    client = make_client(db)
    assert portal.get("/notifications/unread-count", client, user="pu-1").status == 200
    project = make_project(db, company_id=client.id)
    gone, kept = make_budget(db, resource_id=project.id), make_budget(db, resource_id=project.id)
    _pending(api, exec_user, gone)
    _pending(api, exec_user, kept)
    assert [n.resource_id for n in _pending_notices(db, client, "pu-1")] == [gone.id, kept.id]

    assert api.delete(f"/api/budgets/{gone.id}", as_=exec_user).status == 200

    assert portal.get(f"/budgets/{gone.id}", client).status == 404
    assert [n.resource_id for n in _pending_notices(db, client, "pu-1")] == [kept.id]
    listed = portal.get("/notifications", client, user="pu-1").json["notifications"]
    assert [n["resource_id"] for n in listed] == [kept.id]


def test_budget_taken_out_of_pending_but_still_listed_keeps_its_notice(portal, db, api, exec_user):  # noqa: F811
    client = make_client(db)
    assert portal.get("/notifications/unread-count", client, user="pu-1").status == 200
    budget = make_budget(db, resource_id=make_project(db, company_id=client.id).id)
    _pending(api, exec_user, budget)

    assert api.put(f"/api/budgets/{budget.id}", json={"status": "cancelled"}, as_=exec_user).status == 200

    assert portal.get(f"/budgets/{budget.id}", client).status == 200  # the portal still shows the budget
    assert len(_pending_notices(db, client, "pu-1")) == 1


def test_budget_set_back_to_draft_withdraws_its_notice(portal, db, api, exec_user):  # noqa: F811
    """Session 28: the portal shows no draft budget, so one set back to draft answers 404 there and its pending
    notices are withdrawn, as a deleted budget's."""
    client = make_client(db)
    assert portal.get("/notifications/unread-count", client, user="pu-1").status == 200
    budget = make_budget(db, resource_id=make_project(db, company_id=client.id).id)
    _pending(api, exec_user, budget)
    assert len(_pending_notices(db, client, "pu-1")) == 1

    assert api.put(f"/api/budgets/{budget.id}", json={"status": "draft"}, as_=exec_user).status == 200

    assert portal.get(f"/budgets/{budget.id}", client).status == 404
    assert _pending_notices(db, client, "pu-1") == []
