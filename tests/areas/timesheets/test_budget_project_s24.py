"""Session 24: a time entry on a project's budget is on that project. An entry naming project A and a budget (and a
line) of project B counted in A's profitability and was billed on B's invoice: when the entry's budget (the one sent,
else the stored one) is a project's, the entry's project must be that project (400 naming budget_id), and an entry
that names no project takes the budget's. A deal's budget leaves project_id free (docs/decisions/timesheets.md)."""
import pytest

from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.deals.factories import make_deal
from tests.areas.projects.factories import make_project
from tests.areas.timesheets.factories import make_entry
from tests.factories import make_user

BASE = {"date": "2026-03-02", "hours": 1}


@pytest.fixture
def world(db):
    worker = make_user(db, name="Wes Worker")
    a, b = make_project(db, members=[worker]), make_project(db, members=[worker])
    budget_b = make_budget(db, resource_id=b.id)
    line_b = make_line_item(db, budget_b)
    budget_a = make_budget(db, resource_id=a.id)
    deal_budget = make_budget(db, resource_type="deal", resource_id=make_deal(db).id)
    return type("World", (), dict(worker=worker, a=a, b=b, budget_a=budget_a, budget_b=budget_b, line_b=line_b,
                                  deal_budget=deal_budget))


def _fields(response):
    return [detail["field"] for detail in response.json["details"]]


def test_create_refuses_a_budget_of_another_project(api, db, world):
    refused = api.post("/api/time-entries", as_=world.worker, json={
        **BASE, "project_id": world.a.id, "budget_id": world.budget_b.id, "line_item_id": world.line_b.id})
    assert refused.status == 400, refused
    assert _fields(refused) == ["budget_id"]
    assert world.b.id in refused.json["details"][0]["message"]


def test_create_on_the_budgets_project_passes_and_no_project_takes_the_budgets(api, db, world):
    same = api.post("/api/time-entries", as_=world.worker, json={
        **BASE, "project_id": world.b.id, "budget_id": world.budget_b.id, "line_item_id": world.line_b.id})
    assert same.status == 201, same
    assert same.json["time_entry"]["project_id"] == world.b.id
    taken = api.post("/api/time-entries", as_=world.worker, json={**BASE, "budget_id": world.budget_b.id})
    assert taken.status == 201, taken
    assert taken.json["time_entry"]["project_id"] == world.b.id


def test_a_deal_budget_leaves_the_project_free(api, db, world):
    with_project = api.post("/api/time-entries", as_=world.worker, json={
        **BASE, "project_id": world.a.id, "budget_id": world.deal_budget.id})
    assert with_project.status == 201, with_project
    assert with_project.json["time_entry"]["project_id"] == world.a.id
    without = api.post("/api/time-entries", as_=world.worker, json={**BASE, "budget_id": world.deal_budget.id})
    assert without.status == 201 and without.json["time_entry"]["project_id"] is None, without


def test_update_the_budget_to_another_projects(api, db, world):
    """The stored project stays, a budget of another project is sent: refused, nothing changed."""
    entry = make_entry(db, world.worker, project_id=world.a.id, budget_id=world.budget_a.id)
    path = f"/api/time-entries/{entry.id}"
    refused = api.put(path, as_=world.worker, json={"budget_id": world.budget_b.id, "line_item_id": world.line_b.id})
    assert refused.status == 400 and _fields(refused) == ["budget_id"], refused
    stored = api.get(path, as_=world.worker).json["time_entry"]
    assert (stored["project_id"], stored["budget_id"], stored["line_item_id"]) == (world.a.id, world.budget_a.id, None)
    # with the project moved too it passes
    moved = api.put(path, as_=world.worker, json={"project_id": world.b.id, "budget_id": world.budget_b.id,
                                                  "line_item_id": world.line_b.id})
    assert moved.status == 200, moved
    assert (moved.json["time_entry"]["project_id"], moved.json["time_entry"]["budget_id"]) == (world.b.id,
                                                                                               world.budget_b.id)


def test_update_the_project_away_from_the_stored_budgets(api, db, world):
    """The stored budget stays, another project is sent: refused naming budget_id; no project takes the budget's."""
    entry = make_entry(db, world.worker, project_id=world.b.id, budget_id=world.budget_b.id,
                       line_item_id=world.line_b.id)
    path = f"/api/time-entries/{entry.id}"
    refused = api.put(path, as_=world.worker, json={"project_id": world.a.id})
    assert refused.status == 400 and _fields(refused) == ["budget_id"], refused
    assert api.get(path, as_=world.worker).json["time_entry"]["project_id"] == world.b.id
    cleared = api.put(path, as_=world.worker, json={"project_id": None})
    assert cleared.status == 200 and cleared.json["time_entry"]["project_id"] == world.b.id, cleared
    # off the budget, the project is free again
    freed = api.put(path, as_=world.worker, json={"project_id": world.a.id, "budget_id": None, "line_item_id": None})
    assert freed.status == 200 and freed.json["time_entry"]["project_id"] == world.a.id, freed


def test_update_a_projectless_entry_onto_a_budget_takes_its_project(api, db, world):
    entry = make_entry(db, world.worker)
    moved = api.put(f"/api/time-entries/{entry.id}", as_=world.worker, json={"budget_id": world.budget_b.id})
    assert moved.status == 200 and moved.json["time_entry"]["project_id"] == world.b.id, moved


def test_create_statement_count_is_unchanged(api, db, world, count_queries):
    """The budget's project is read by the same statement that checks the budget: a create naming a project and a
    budget costs what a create naming a project and a deal's budget costs."""
    payload = {**BASE, "project_id": world.b.id}
    with count_queries() as project_budget:
        assert api.post("/api/time-entries", as_=world.worker,
                        json={**payload, "budget_id": world.budget_b.id}).status == 201
    with count_queries() as deal_budget:
        assert api.post("/api/time-entries", as_=world.worker,
                        json={**payload, "date": "2026-03-03", "budget_id": world.deal_budget.id}).status == 201
    assert project_budget.count == deal_budget.count
