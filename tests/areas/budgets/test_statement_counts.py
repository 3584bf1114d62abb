"""Budgets: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The budget list and detail are tested in test_budgets.py."""
from tests.areas.projects.factories import add_member, make_project
from tests.areas.timesheets.factories import make_entry
from tests.factories import make_user

from .factories import make_budget


def test_profitability_time_by_member(api, db, exec_user, count_queries):
    project = make_project(db)
    budget = make_budget(db, resource_id=project.id)
    counts, done = [], 0
    for total in (5, 100):
        for _ in range(total - done):
            user = make_user(db, picture="p.png")
            add_member(db, project, user)
            make_entry(db, user, project_id=project.id, budget_id=budget.id)
            make_entry(db, user, project_id=project.id, billable=False)
        done = total
        with count_queries() as counter:
            answer = api.get(f"/api/projects/{project.id}/profitability", as_=exec_user)
        assert answer.status == 200, answer
        assert len(answer.json["time_by_member"]) == total and answer.json["team_size"] == total
        counts.append(counter.count)
    assert all(m["name"] and m["total_hours"] == 5.0 for m in answer.json["time_by_member"])
    assert counts[0] == counts[1], counts
