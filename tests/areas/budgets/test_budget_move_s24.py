"""Session 24: a budget moved to a project (PUT /api/budgets/:id changing resource_type / resource_id) takes its time
entries along or is refused. An entry on a project's budget is on that project (docs/decisions/timesheets.md); a move
of the budget to project P left the entries naming it on their old project, counted in that project's profitability
and billed on P's invoices. Now: entries naming the budget on another project than P are a 409, nothing changed;
entries naming it without a project take P; a move to a deal leaves the entries as they are
(docs/decisions/budgets.md, "Moving a budget that time entries name")."""
import pytest
from sqlalchemy import select

from chalicelib.areas.budgets.models import Budget
from chalicelib.areas.timesheets.models import TimeEntry
from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_deal
from tests.areas.projects.factories import make_project
from tests.areas.timesheets.factories import make_entry
from tests.factories import make_user


@pytest.fixture
def world(db, exec_user):
    worker = make_user(db, name="Wes Worker")
    q, p, r = (make_project(db, owner_id=exec_user.id) for _ in range(3))
    deal = make_deal(db)
    return type("World", (), {"worker": worker, "q": q, "p": p, "r": r, "deal": deal})


def _projects(db, entries):
    db.expire_all()
    return [db.scalar(select(TimeEntry.project_id).where(TimeEntry.id == entry.id)) for entry in entries]


def _resource(db, budget_id):
    db.expire_all()
    return tuple(db.execute(select(Budget.resource_type, Budget.resource_id).where(Budget.id == budget_id)).one())


def _move(api, user, budget, resource_type, resource_id):
    return api.put(f"/api/budgets/{budget.id}", as_=user, json={"resource_type": resource_type,
                                                               "resource_id": resource_id})


@pytest.mark.parametrize("origin", ["project", "deal"])
def test_entries_on_another_project_refuse_the_move(api, db, exec_user, world, origin):
    budget = (make_budget(db, resource_id=world.q.id) if origin == "project"
              else make_budget(db, resource_type="deal", resource_id=world.deal.id))
    on_other = [make_entry(db, world.worker, budget_id=budget.id, project_id=world.q.id if origin == "project"
                           else world.r.id) for _ in range(2)]
    projectless = make_entry(db, world.worker, budget_id=budget.id)
    on_p = make_entry(db, world.worker, budget_id=budget.id, project_id=world.p.id)
    before = _resource(db, budget.id)
    refused = _move(api, exec_user, budget, "project", world.p.id)
    assert refused.status == 409, refused
    assert "2 time entries" in refused.json["error"], refused.json
    assert _resource(db, budget.id) == before
    # nothing changed: the projectless entry was not given P either
    assert _projects(db, on_other + [projectless, on_p]) == [on_other[0].project_id, on_other[1].project_id,
                                                              None, world.p.id]


def test_the_move_passes_once_the_entries_are_moved_off_the_budget(api, db, exec_user, world):
    budget = make_budget(db, resource_id=world.q.id)
    entry = make_entry(db, world.worker, budget_id=budget.id, project_id=world.q.id)
    refused = _move(api, exec_user, budget, "project", world.p.id)
    assert refused.status == 409 and refused.json["error"].startswith("1 time entry"), refused.json
    off = api.put(f"/api/time-entries/{entry.id}", as_=exec_user, json={"budget_id": None})
    assert off.status == 200, off
    assert _move(api, exec_user, budget, "project", world.p.id).status == 200


def test_projectless_entries_take_the_new_project(api, db, exec_user, world):
    budget = make_budget(db, resource_type="deal", resource_id=world.deal.id)
    projectless = [make_entry(db, world.worker, budget_id=budget.id) for _ in range(2)]
    on_p = make_entry(db, world.worker, budget_id=budget.id, project_id=world.p.id)
    elsewhere = make_entry(db, world.worker, project_id=world.r.id)  # another budget's (none): untouched
    unbudgeted = make_entry(db, world.worker)
    moved = _move(api, exec_user, budget, "project", world.p.id)
    assert moved.status == 200, moved
    assert moved.json["budget"]["resource_id"] == world.p.id
    assert _projects(db, projectless + [on_p, elsewhere, unbudgeted]) == [world.p.id, world.p.id, world.p.id,
                                                                          world.r.id, None]
    detail = api.get(f"/api/projects/{world.p.id}/profitability", as_=exec_user)
    assert detail.status == 200 and detail.json["total_hours"] == 7.5, detail  # the three entries' 3 x 2.5 hours


def test_a_move_of_only_the_resource_id_between_projects(api, db, exec_user, world):
    budget = make_budget(db, resource_id=world.q.id)
    projectless = make_entry(db, world.worker, budget_id=budget.id)
    moved = api.put(f"/api/budgets/{budget.id}", as_=exec_user, json={"resource_id": world.p.id})
    assert moved.status == 200, moved
    assert _projects(db, [projectless]) == [world.p.id]


def test_a_move_to_a_deal_leaves_the_entries(api, db, exec_user, world):
    budget = make_budget(db, resource_id=world.q.id)
    entries = [make_entry(db, world.worker, budget_id=budget.id, project_id=world.q.id),
               make_entry(db, world.worker, budget_id=budget.id)]
    moved = _move(api, exec_user, budget, "deal", world.deal.id)
    assert moved.status == 200, moved
    assert _resource(db, budget.id) == ("deal", world.deal.id)
    assert _projects(db, entries) == [world.q.id, None]


def test_a_budget_without_entries_moves_as_before(api, db, exec_user, world):
    budget = make_budget(db, resource_id=world.q.id)
    make_entry(db, world.worker, project_id=world.r.id)  # no budget: holds nothing
    assert _move(api, exec_user, budget, "project", world.p.id).status == 200
    assert _resource(db, budget.id) == ("project", world.p.id)
    assert _move(api, exec_user, budget, "deal", world.deal.id).status == 200
    assert _move(api, exec_user, budget, "project", world.r.id).status == 200
    assert _resource(db, budget.id) == ("project", world.r.id)


def test_an_edit_that_keeps_the_project_does_not_check_the_entries(api, db, exec_user, world, count_queries):
    """Entries stored before the rule (on another project) do not block an edit of the budget's other fields, nor
    one that sends its project unchanged; and such an edit costs no more statements than before."""
    budget = make_budget(db, resource_id=world.q.id)
    make_entry(db, world.worker, budget_id=budget.id, project_id=world.r.id)
    assert api.put(f"/api/budgets/{budget.id}", as_=exec_user, json={"name": "Renamed"}).status == 200
    with count_queries() as kept:
        assert api.put(f"/api/budgets/{budget.id}", as_=exec_user,
                       json={"name": "Again", "resource_type": "project", "resource_id": world.q.id}).status == 200
    with count_queries() as plain:
        assert api.put(f"/api/budgets/{budget.id}", as_=exec_user, json={"name": "Once more"}).status == 200
    assert kept.count == plain.count
