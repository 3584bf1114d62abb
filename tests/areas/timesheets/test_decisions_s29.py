"""Session 29 (decisions versus code audit): docs/decisions/timesheets.md says `task_id`, `project_id` and `budget_id`
must name a task / project / budget "the caller can see" (400 with `details` otherwise, the same answer for a missing
and an out-of-scope record). The checks asked the records' row scope alone: a head whose `tasks`, `projects` or
`budgets` permission is none (an override; a head's scope holds every row) logged time against any of them, learning
which ids exist, though those tools' routes answer them 403. Now the record's tool at view is asked as well."""
import pytest

from tests.areas.budgets.factories import make_budget
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import grant, make_user


@pytest.mark.parametrize("tool, field", [("tasks", "task_id"), ("projects", "project_id"), ("budgets", "budget_id")])
def test_an_entry_cannot_name_a_record_of_a_tool_the_caller_may_not_view(api, db, tool, field):
    head = make_user(db, access_level="head")
    record = {"tasks": make_task, "projects": make_project, "budgets": make_budget}[tool](db)
    body = {"date": "2026-03-02", "hours": 2, field: record.id}
    grant(db, head, tool, "none")  # an override: this head may not view the tool
    refused = api.post("/api/time-entries", as_=head, json=body)
    assert refused.status == 400, refused
    assert [d["field"] for d in refused.json["details"]] == [field]
    grant(db, head, tool, "view")
    assert api.post("/api/time-entries", as_=head, json=body).status == 201
