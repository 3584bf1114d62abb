"""A budget's detail names the tasks of its line items and time entries (`task_title`) only to a caller who may read
them (document 1, Tasks: employee and lead see tasks they are assigned to, reported, created or watch): another
task keeps its `task_id` (the budget's own data) with a null title (audit 7; docs/decisions/budgets.md)."""
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.deals.factories import make_deal
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.areas.timesheets.factories import make_entry
from tests.factories import grant, make_user

SECRET = "Layoffs: plan the redundancy letters"


def _setup(db, *, deal=False):
    owner = make_user(db, access_level="manager")
    member = make_user(db)  # an employee member of the project: sees the project and its budget
    project = make_project(db, owner_id=owner.id, members=[member])
    hidden = make_task(db, title=SECRET, created_by=owner.id, assignee_id=owner.id, reporter_id=owner.id,
                       resource_type="project", resource_id=project.id)
    mine = make_task(db, title="Write the copy", created_by=owner.id, assignee_id=member.id, reporter_id=owner.id,
                     resource_type="project", resource_id=project.id)
    budget = (make_budget(db, resource_type="deal", resource_id=make_deal(db).id) if deal
              else make_budget(db, resource_id=project.id))
    make_line_item(db, budget, task_id=hidden.id, description="Delivery", position=0)
    make_line_item(db, budget, task_id=mine.id, description="Copy", position=1)
    make_entry(db, owner, task_id=hidden.id, budget_id=budget.id, project_id=project.id, status="approved")
    for tool in ("budgets", "tasks", "projects"):
        grant(db, member, tool, "view")
    return owner, member, hidden, mine, budget


def _titles(body):
    return ([(item["task_id"], item["task_title"]) for item in body["line_items"]],
            [(entry["task_id"], entry["task_title"]) for entry in body["time_entries"]])


def test_a_project_budget_names_only_the_tasks_the_caller_may_read(api, db, exec_user):
    owner, member, hidden, mine, budget = _setup(db)
    assert api.get(f"/api/tasks/{hidden.id}", as_=member).status == 404  # out of the member's task scope
    answer = api.get(f"/api/budgets/{budget.id}", as_=member)
    assert answer.status == 200, answer
    assert _titles(answer.json) == ([(hidden.id, None), (mine.id, "Write the copy")], [(hidden.id, None)])
    assert SECRET not in str(answer.json)
    # whoever may read the task still reads its title
    for reader in (owner, exec_user):
        body = api.get(f"/api/budgets/{budget.id}", as_=reader).json
        assert _titles(body) == ([(hidden.id, SECRET), (mine.id, "Write the copy")], [(hidden.id, SECRET)])


def test_a_deal_budget_names_only_the_tasks_the_caller_may_read(api, db):
    """A deal's budget is read by every budgets:view holder: the titles of its tasks still follow the tasks' scope."""
    _, member, hidden, mine, budget = _setup(db, deal=True)
    answer = api.get(f"/api/budgets/{budget.id}", as_=member)
    assert answer.status == 200, answer
    assert _titles(answer.json) == ([(hidden.id, None), (mine.id, "Write the copy")], [(hidden.id, None)])


def test_the_scoped_detail_costs_what_it_did(api, db, count_queries):
    """The scope is a clause of the statement that reads the titles: a scoped caller's detail costs the same
    statements at 5 and at 100 items and entries, titles hidden or not."""
    _, member, _, _, budget = _setup(db)
    owner = make_user(db, access_level="manager")
    counts = []
    for total in (5, 100):
        for _ in range(total - (5 if counts else 0)):
            task = make_task(db, created_by=owner.id, assignee_id=owner.id, reporter_id=owner.id)
            make_line_item(db, budget, task_id=task.id)
            make_entry(db, owner, task_id=task.id, budget_id=budget.id)
        with count_queries() as counter:
            answer = api.get(f"/api/budgets/{budget.id}", as_=member)
        assert answer.status == 200, answer
        counts.append(counter.count)
    assert {item["task_title"] for item in answer.json["line_items"]} == {None, "Write the copy"}
    assert counts[0] == counts[1], counts
    if db.get_bind().dialect.name == "postgresql":  # the caller, the budget, the record_sets read, the titles
        assert counts[1] == 4, counter.statements


def test_a_line_item_write_answers_no_title_of_a_task_the_caller_may_not_read(api, db):
    """The line item a PUT answers names its task as the detail does: an editor outside the task's scope gets its id
    with a null title (the write answered the title)."""
    _, member, hidden, _mine, budget = _setup(db, deal=True)
    grant(db, member, "budgets", "update")
    item_id = next(item["id"] for item in api.get(f"/api/budgets/{budget.id}", as_=member).json["line_items"]
                   if item["task_id"] == hidden.id)
    answer = api.put(f"/api/budgets/{budget.id}/line-items/{item_id}", as_=member, json={"description": "Delivery 2"})
    assert answer.status == 200, answer
    item = answer.json["item"]
    assert (item["task_id"], item["task_title"], item["description"]) == (hidden.id, None, "Delivery 2")
    assert SECRET not in str(answer.json)
