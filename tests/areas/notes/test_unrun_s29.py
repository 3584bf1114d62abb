"""Code no test ran (session 29 coverage audit): a staff note shared with the client on a deal or a budget follows
the company of the record at the time of sharing; a note on a record the portal never shows is shared with nobody;
a mentioned user without the record's tool gets the link without the text."""
from __future__ import annotations

from tests.areas.budgets.factories import make_budget
from tests.areas.deals.factories import make_deal
from tests.areas.portal.conftest import make_client, portal  # noqa: F401 - the portal fixture
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import make_user, override_permissions


def _contents(portal, company):  # noqa: F811
    answer = portal.get("/notes", company)
    assert answer.status == 200, answer
    return [n["content"] for n in answer.json["notes"]]


def _share(api, user, resource_type, resource_id, content):
    made = api.post(f"/api/notes/{resource_type}/{resource_id}", as_=user,
                    json={"content": content, "visibility": ["client"]})
    assert made.status == 201, made
    return made.json["id"]


def test_a_deal_note_shared_with_the_client_stays_with_that_client(portal, db, api, exec_user):  # noqa: F811
    first, second = make_client(db), make_client(db)
    deal = make_deal(db, company_id=first.id)
    _share(api, exec_user, "deal", deal.id, "We start in March")
    assert _contents(portal, first) == ["We start in March"]
    deal.company_id = second.id  # the deal moved to another client
    db.flush()
    assert _contents(portal, second) == []
    assert _contents(portal, first) == []


def test_a_budget_note_shared_with_the_client_follows_the_budgets_project_or_deal(portal, db, api,  # noqa: F811
                                                                                   exec_user):
    first, second = make_client(db), make_client(db)
    project = make_project(db, company_id=first.id)
    deal = make_deal(db, company_id=first.id)
    on_project = make_budget(db, resource_id=project.id, status="pending_approval")
    on_deal = make_budget(db, resource_type="deal", resource_id=deal.id, status="active")
    _share(api, exec_user, "budget", on_project.id, "Phase one priced")
    _share(api, exec_user, "budget", on_deal.id, "Deal budget ready")
    assert sorted(_contents(portal, first)) == ["Deal budget ready", "Phase one priced"]
    project.company_id, deal.company_id = second.id, second.id
    db.flush()
    assert _contents(portal, second) == []  # written for the first client


def test_a_task_note_shared_with_the_client_is_kept(api, db, exec_user):
    task = make_task(db)
    note_id = _share(api, exec_user, "task", task.id, "For the client")
    listed = api.get(f"/api/notes/task/{task.id}", as_=exec_user).json["notes"]
    assert [n["id"] for n in listed] == [note_id] and "client" in listed[0]["visibility"]


def test_a_mentioned_user_without_the_tool_gets_the_link_alone(api, db, exec_user):
    employee = make_user(db, access_level="employee")
    override_permissions(api, exec_user, employee, budgets="none")
    budget = make_budget(db)
    made = api.post(f"/api/notes/budget/{budget.id}", as_=exec_user,
                    json={"content": "Margin is 40%", "mentions": [employee.id]})
    assert made.status == 201, made
    notices = [n for n in api.get("/api/notifications", as_=employee).json["notifications"] if n["type"] == "mention"]
    assert [n["body"] for n in notices] == [None]
