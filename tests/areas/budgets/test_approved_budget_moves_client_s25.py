"""Session 25 (order audit): a budget the client approved in the portal (`approved`) is client A's approval. Moving its
deal or project to client B (the record's `company_id` changed), or moving the budget itself to a record of another
client, put it in B's portal still `approved`: B saw an approval it never gave (history's `approved_by` is A's portal
user), and nobody told B. Now each of the three paths answers 409 naming the approved budgets, nothing written; a
company given to a record that had none, a move within one company, and budgets set back to pending approval first
pass (docs/decisions/budgets.md, "An approved budget stays with its client")."""
from sqlalchemy import select

from chalicelib.areas.budgets.models import Budget
from chalicelib.areas.deals.models import Deal
from chalicelib.areas.projects.models import Project
from chalicelib.core.models import HistoryEntry
from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_deal
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.projects.factories import make_project


def _approved(portal, db, client, **resource):  # noqa: F811
    """A budget on `resource` that `client` approved in the portal."""
    budget = make_budget(db, status="pending_approval", name="Phase", **resource)
    assert portal.post(f"/budgets/{budget.id}/approve", client, role="admin").status == 200
    return budget


def _listed(portal, client):  # noqa: F811
    return {b["id"]: b["status"] for b in portal.get("/budgets", client).json["budgets"]}


def _history(db, entity_type, entity_id):
    db.expire_all()
    return db.scalars(select(HistoryEntry.action).where(HistoryEntry.entity_type == entity_type,
                                                        HistoryEntry.entity_id == entity_id)).all()


# ---------------------------------------------------------------- a deal moved to another client

def test_deal_with_an_approved_budget_is_not_moved_to_another_client(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    deal = make_deal(db, company_id=first.id, title="Original")
    budget = _approved(portal, db, first, resource_type="deal", resource_id=deal.id)
    make_budget(db, resource_type="deal", resource_id=deal.id, status="draft")

    answer = api.put(f"/api/deals/deals/{deal.id}", json={"company_id": second.id, "title": "Renamed"}, as_=exec_user)

    assert answer.status == 409, answer.json
    assert "1 approved budget" in answer.json["error"] and "pending approval" in answer.json["error"]
    db.expire_all()
    stored = db.get(Deal, deal.id)
    assert (stored.company_id, stored.title) == (first.id, "Original")  # nothing written, the other field neither
    assert budget.id not in _listed(portal, second)
    assert _listed(portal, first)[budget.id] == "approved"


def test_deal_with_an_approved_budget_is_not_cleared_of_its_client(portal, db, api, exec_user):  # noqa: F811
    """A -> no company -> B would be the same move in two steps: clearing the company is refused too."""
    first = make_client(db)
    deal = make_deal(db, company_id=first.id)
    _approved(portal, db, first, resource_type="deal", resource_id=deal.id)

    answer = api.put(f"/api/deals/deals/{deal.id}", json={"company_id": None}, as_=exec_user)

    assert answer.status == 409, answer.json
    db.expire_all()
    assert db.get(Deal, deal.id).company_id == first.id


def test_deal_moves_once_its_budget_is_set_back_to_pending(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    deal = make_deal(db, company_id=first.id)
    budget = _approved(portal, db, first, resource_type="deal", resource_id=deal.id)
    assert api.put(f"/api/budgets/{budget.id}", json={"status": "pending_approval"}, as_=exec_user).status == 200

    answer = api.put(f"/api/deals/deals/{deal.id}", json={"company_id": second.id}, as_=exec_user)

    assert answer.status == 200, answer.json
    assert _listed(portal, second) == {budget.id: "pending_approval"}  # B is asked, not shown A's approval


def test_deal_without_approved_budgets_and_a_companyless_deal_still_move(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    deal = make_deal(db, company_id=first.id)
    make_budget(db, resource_type="deal", resource_id=deal.id, status="pending_approval")
    make_budget(db, resource_type="deal", resource_id=deal.id, status="active")
    assert api.put(f"/api/deals/deals/{deal.id}", json={"company_id": second.id}, as_=exec_user).status == 200

    approved_deal = make_deal(db, company_id=first.id)
    _approved(portal, db, first, resource_type="deal", resource_id=approved_deal.id)
    answer = api.put(f"/api/deals/deals/{approved_deal.id}", json={"company_id": first.id, "title": "Re-saved"},
                     as_=exec_user)
    assert answer.status == 200, answer.json  # the company sent back as stored is no move

    companyless = make_deal(db)
    make_budget(db, resource_type="deal", resource_id=companyless.id, status="approved")  # stored before the rule
    answer = api.put(f"/api/deals/deals/{companyless.id}", json={"company_id": second.id}, as_=exec_user)
    assert answer.status == 200, answer.json  # given a company: not a move between clients


# ---------------------------------------------------------------- a project moved to another client

def test_project_with_an_approved_budget_is_not_moved_to_another_client(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    project = make_project(db, company_id=first.id, name="Original")
    budgets = [_approved(portal, db, first, resource_id=project.id) for _ in range(2)]

    answer = api.put(f"/api/projects/{project.id}", json={"company_id": second.id, "name": "Renamed"}, as_=exec_user)

    assert answer.status == 409, answer.json
    assert "2 approved budgets" in answer.json["error"]
    db.expire_all()
    stored = db.get(Project, project.id)
    assert (stored.company_id, stored.name) == (first.id, "Original")
    assert "updated" not in _history(db, "project", project.id)
    assert not {b.id for b in budgets} & _listed(portal, second).keys()


def test_project_moves_once_its_approved_budget_moved_within_the_client(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    project = make_project(db, company_id=first.id)
    budget = _approved(portal, db, first, resource_id=project.id)
    other = make_project(db, company_id=first.id)
    moved = api.put(f"/api/budgets/{budget.id}", json={"resource_id": other.id}, as_=exec_user)
    assert moved.status == 200, moved.json  # within one client: allowed while approved, as before
    assert moved.json["budget"]["status"] == "approved"

    answer = api.put(f"/api/projects/{project.id}", json={"company_id": second.id}, as_=exec_user)

    assert answer.status == 200, answer.json
    assert budget.id not in _listed(portal, second)


def test_companyless_project_with_an_approved_budget_is_given_a_client(portal, db, api, exec_user):  # noqa: F811
    client = make_client(db)
    project = make_project(db)
    make_budget(db, resource_id=project.id, status="approved")  # stored before the rule

    answer = api.put(f"/api/projects/{project.id}", json={"company_id": client.id}, as_=exec_user)

    assert answer.status == 200, answer.json


# ---------------------------------------------------------------- the budget itself moved to another client

def test_approved_budget_is_not_moved_to_another_clients_record(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    source = make_project(db, company_id=first.id)
    budget = _approved(portal, db, first, resource_id=source.id)
    target = make_deal(db, company_id=second.id)

    answer = api.put(f"/api/budgets/{budget.id}", json={"resource_type": "deal", "resource_id": target.id,
                                                         "name": "Renamed"}, as_=exec_user)

    assert answer.status == 409, answer.json
    assert "approved" in answer.json["error"]
    db.expire_all()
    stored = db.get(Budget, budget.id)
    assert (stored.resource_type, stored.resource_id, stored.name, stored.status) == (
        "project", source.id, "Phase", "approved")
    assert "updated" not in _history(db, "budget", budget.id)
    assert budget.id not in _listed(portal, second)

    companyless = make_project(db)
    answer = api.put(f"/api/budgets/{budget.id}", json={"resource_id": companyless.id}, as_=exec_user)
    assert answer.status == 409, answer.json  # out of A's portal, on its way to any other client's


def test_approved_budget_moved_with_its_approval_set_back(portal, db, api, exec_user):  # noqa: F811
    """The same request may take the budget out of approved (staff may): it is then the new client's to approve."""
    first, second = make_client(db), make_client(db)
    budget = _approved(portal, db, first, resource_id=make_project(db, company_id=first.id).id)
    target = make_project(db, company_id=second.id)

    answer = api.put(f"/api/budgets/{budget.id}", json={"resource_id": target.id, "status": "pending_approval"},
                     as_=exec_user)

    assert answer.status == 200, answer.json
    assert _listed(portal, second) == {budget.id: "pending_approval"}


def test_approved_budget_from_a_companyless_record_moves(portal, db, api, exec_user):  # noqa: F811
    client = make_client(db)
    budget = make_budget(db, resource_id=make_project(db).id, status="approved")  # stored before the rule

    answer = api.put(f"/api/budgets/{budget.id}", json={"resource_id": make_project(db, company_id=client.id).id},
                     as_=exec_user)

    assert answer.status == 200, answer.json
