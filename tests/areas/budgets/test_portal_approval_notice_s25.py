"""Session 25 (users2 audit): the client's approval in the portal tells the first active reader among the budget's
owner, then the delivery manager of its project (a deal's budget: the deal's owner), then the project's owner
(docs/decisions/budgets.md, "Who hears of the client's approval"). One notice, to one person."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from chalicelib.areas.budgets.models import Budget
from chalicelib.core.notify import Notification
from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_deal
from tests.areas.portal.conftest import TOKEN, Portal, make_client
from tests.areas.projects.factories import make_project
from tests.factories import grant, make_user


@pytest.fixture
def portal(api, set_env):
    set_env(PORTAL_SERVICE_TOKEN=TOKEN)
    return Portal(api)


def _told(db):
    return sorted(db.scalars(select(Notification.user_id).where(Notification.type == "portal_budget_approved")))


def _approve(portal, db, client, budget):
    answer = portal.post(f"/budgets/{budget.id}/approve", client, role="admin", user="pu-1")
    assert answer.status == 200, answer
    db.expire_all()
    assert db.get(Budget, budget.id).status == "approved"


def test_owner_deactivated_tells_the_project_delivery_manager(portal, db):
    client = make_client(db)
    gone = make_user(db, access_level="manager", is_active=False)
    project_owner = make_user(db, access_level="head")
    dm = make_user(db, access_level="executive")
    project = make_project(db, company_id=client.id, owner_id=project_owner.id, delivery_manager_id=dm.id)
    budget = make_budget(db, resource_id=project.id, status="pending_approval", owner_id=gone.id, name="Build")
    _approve(portal, db, client, budget)
    assert _told(db) == [dm.id]
    notice = db.scalar(select(Notification).where(Notification.user_id == dm.id))
    assert (notice.title, notice.resource_id, notice.action_url) == (
        "The client approved the budget Build", budget.id, f"/budgets/{budget.id}")


def test_owner_active_reader_is_the_only_one_told(portal, db):
    client = make_client(db)
    owner = make_user(db)
    project_owner = make_user(db, access_level="head")
    dm = make_user(db, access_level="executive")
    project = make_project(db, company_id=client.id, owner_id=project_owner.id, delivery_manager_id=dm.id,
                           members=[owner])
    budget = make_budget(db, resource_id=project.id, status="pending_approval", owner_id=owner.id)
    _approve(portal, db, client, budget)
    assert _told(db) == [owner.id]


def test_nobody_active_tells_nobody_without_error(portal, db):
    client = make_client(db)
    gone = [make_user(db, access_level="executive", is_active=False) for _ in range(3)]
    project = make_project(db, company_id=client.id, owner_id=gone[1].id, delivery_manager_id=gone[2].id)
    budget = make_budget(db, resource_id=project.id, status="pending_approval", owner_id=gone[0].id)
    _approve(portal, db, client, budget)
    assert _told(db) == []


def test_no_owner_tells_the_delivery_manager(portal, db):
    client = make_client(db)
    dm = make_user(db)  # an employee: sees the project as its delivery manager
    project = make_project(db, company_id=client.id, delivery_manager_id=dm.id)
    budget = make_budget(db, resource_id=project.id, status="pending_approval")
    _approve(portal, db, client, budget)
    assert _told(db) == [dm.id]


def test_non_readers_are_passed_over_for_the_project_owner(portal, db):
    """An owner outside the project (their GET answers 404) and a delivery manager with `budgets: none` are still
    not told (the decision of audit 6); the next one, the project's owner, is."""
    client = make_client(db)
    outsider = make_user(db)
    dm = make_user(db)
    grant(db, dm, "budgets", "none")
    project_owner = make_user(db)
    project = make_project(db, company_id=client.id, owner_id=project_owner.id, delivery_manager_id=dm.id)
    budget = make_budget(db, resource_id=project.id, status="pending_approval", owner_id=outsider.id)
    _approve(portal, db, client, budget)
    assert _told(db) == [project_owner.id]


def test_deal_budget_of_a_deactivated_owner_tells_the_deal_owner(portal, db):
    client = make_client(db)
    gone = make_user(db, is_active=False)
    deal_owner = make_user(db)
    deal = make_deal(db, company_id=client.id, owner_id=deal_owner.id)
    budget = make_budget(db, resource_type="deal", resource_id=deal.id, status="pending_approval", owner_id=gone.id)
    _approve(portal, db, client, budget)
    assert _told(db) == [deal_owner.id]
