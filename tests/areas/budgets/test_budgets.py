"""Budgets at /api/budgets (tool budgets: view reads, update writes, manage deletes)."""
from datetime import date
from decimal import Decimal

import pytest
from sqlalchemy import select

from chalicelib.areas.budgets.models import Budget, BudgetLineItem
from chalicelib.core import history
from chalicelib.core.schemas import PageQuery
from tests.areas.budgets.factories import make_budget, make_line_item
from tests.areas.deals.factories import make_company, make_deal
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.areas.timesheets.factories import make_entry
from tests.factories import config_item, make_squad, make_user


def actions(db, budget_id):
    return [e["action"] for e in reversed(history.entries(db, entity_type="budget", entity_id=budget_id, query=PageQuery()).items)]


@pytest.mark.smoke
def test_budget_lifecycle_with_history(api, db, exec_user):
    project, company = make_project(db), make_company(db, name="Acme")
    created = api.post("/api/budgets", as_=exec_user, json={
        "name": " Build ", "resource_type": "project", "resource_id": project.id, "po_number": "PO-1",
        "total_amount": "1000.10", "company_id": company.id, "notes": "n", "currency": "usd"})
    assert created.status == 201, created
    budget = created.json["budget"]
    assert budget["name"] == "Build" and budget["status"] == "draft" and budget["currency"] == "USD"
    assert budget["total_amount"] == 1000.1 and budget["owner_id"] == exec_user.id
    assert budget["created_by"] == exec_user.id and budget["company_name"] == "Acme"
    assert budget["owner_name"] == "Erin Exec" and budget["line_item_count"] == 0
    assert budget["spent_amount"] == 0 and budget["logged_hours"] == 0
    path = f"/api/budgets/{budget['id']}"

    assert api.put(path, as_=exec_user, json={}).status == 400
    updated = api.put(path, as_=exec_user, json={"status": "pending_approval", "name": "Build 2",
                                                 "budget_type": "fixed_price", "forecast_date": "2026-05-01"})
    assert updated.status == 200, updated
    assert updated.json["budget"]["status"] == "pending_approval"
    assert updated.json["budget"]["budget_type"] == "fixed_price"
    assert updated.json["budget"]["forecast_date"] == "2026-05-01"
    assert updated.json["budget"]["updated_at"] >= budget["updated_at"]
    assert api.put(path, as_=exec_user, json={"notes": "only notes"}).status == 200

    item = api.post(f"{path}/line-items", as_=exec_user, json={"description": "Design", "quantity": 0.1,
                                                               "unit_price": 0.2})
    assert item.status == 201, item
    item_id = item.json["item"]["id"]
    edited = api.put(f"{path}/line-items/{item_id}", as_=exec_user, json={"quantity": 3})
    assert edited.json["item"]["amount"] == 0.6  # 3 x the stored 0.2
    assert api.delete(f"{path}/line-items/{item_id}", as_=exec_user).json == {"ok": True}
    assert actions(db, budget["id"]) == ["created", "status_changed", "updated", "updated", "line_item_added",
                                         "line_item_updated", "line_item_removed"]
    entries = history.entries(db, entity_type="budget", entity_id=budget["id"], query=PageQuery()).items
    status_entry = next(e for e in entries if e["action"] == "status_changed")
    assert status_entry["changes"] == {"status": {"from": "draft", "to": "pending_approval"}}

    assert api.delete(path, as_=exec_user).json == {"ok": True}
    assert api.get(path, as_=exec_user).status == 404
    assert actions(db, budget["id"])[-1] == "deleted"
    assert db.get(Budget, budget["id"]) is None


def test_amount_is_exact_decimal(api, db, exec_user):
    budget = make_budget(db)
    path = f"/api/budgets/{budget.id}/line-items"
    made = api.post(path, as_=exec_user, json={"description": "A", "quantity": "0.10", "unit_price": "0.20"})
    stored = db.get(BudgetLineItem, made.json["item"]["id"])
    db.refresh(stored)
    assert stored.amount == Decimal("0.02")  # float would give 0.020000000000000004
    for n in range(3):
        api.post(path, as_=exec_user, json={"description": f"B{n}", "quantity": "0.1", "unit_price": "0.1"})
    listed = api.get(f"/api/budgets?resource_id={budget.resource_id}", as_=exec_user).json["budgets"][0]
    assert listed["spent_amount"] == 0.05 and listed["line_item_count"] == 4
    default = api.post(path, as_=exec_user, json={"description": "D"}).json["item"]
    assert default["quantity"] == 1 and default["unit_price"] == 0 and default["amount"] == 0


def test_validation_is_400(api, db, exec_user):
    project = make_project(db)
    base = {"name": "B", "resource_type": "project", "resource_id": project.id}
    cases = [({**base, "status": "open"}, "status"), ({**base, "resource_type": "company"}, "resource_type"),
             ({"name": "B", "resource_type": "project"}, "resource_id"), ({**base, "total_amount": -1}, "total_amount"),
             ({**base, "total_amount": "abc"}, "total_amount"), ({**base, "total_amount": True}, "total_amount"),
             ({**base, "currency": "dollars"}, "currency"), ({**base, "name": ""}, "name"),
             ({**base, "resource_id": "nope"}, "resource_id"), ({**base, "company_id": "nope"}, "company_id")]
    for body, field in cases:
        response = api.post("/api/budgets", as_=exec_user, json=body)
        assert response.status == 400, (body, response)
        assert response.json["details"][0]["field"] == field, (body, response.json)
    budget = make_budget(db, resource_id=project.id)
    path = f"/api/budgets/{budget.id}"
    for body in ({"budget_type": "hourly"}, {"status": "done"}, {"forecast_date": "soon"}, {"name": None},
                 {"owner_id": "nobody"}, {"resource_type": "deal"}, {"created_at": "yesterday"}):
        assert api.put(path, as_=exec_user, json=body).status == 400, body
    for body in ({"quantity": -1, "description": "x"}, {"description": ""}, {"description": "x", "unit_price": "x"},
                 {"description": "x", "task_id": "nope"}, {"description": "x", "service_type_id": "nope"},
                 {"description": "x", "service_type_id": config_item(db, "task_status", "todo").id}):
        assert api.post(f"{path}/line-items", as_=exec_user, json=body).status == 400, body
    assert api.put(f"{path}/line-items/nope", as_=exec_user, json={"quantity": 2}).status == 404
    assert api.delete(f"{path}/line-items/nope", as_=exec_user).status == 404
    assert api.get("/api/budgets/nope", as_=exec_user).status == 404


def test_deal_budget_and_resource_change(api, db, exec_user):
    deal = make_deal(db)
    created = api.post("/api/budgets", as_=exec_user, json={"name": "D", "resource_type": "deal",
                                                            "resource_id": deal.id})
    assert created.status == 201
    path = f"/api/budgets/{created.json['budget']['id']}"
    assert api.put(path, as_=exec_user, json={"resource_id": "nope"}).status == 400
    project = make_project(db)
    moved = api.put(path, as_=exec_user, json={"resource_type": "project", "resource_id": project.id})
    assert moved.status == 200 and moved.json["budget"]["resource_type"] == "project"
    assert api.put(path, as_=exec_user, json={"created_at": "2026-01-02T03:04:05Z"}).json["budget"][
        "created_at"] == "2026-01-02T03:04:05Z"


def test_detail_with_items_hours_and_entries(api, db, exec_user):
    worker = make_user(db, name="Wendy Worker")
    service_type = config_item(db, "service_type", "design")
    task = make_task(db, title="Landing page")
    budget = make_budget(db)
    second = make_line_item(db, budget, description="Second", position=1, quantity=Decimal("2"),
                            unit_price=Decimal("50"))
    first = make_line_item(db, budget, description="First", position=0, service_type_id=service_type.id,
                           task_id=task.id)
    make_entry(db, worker, budget_id=budget.id, line_item_id=first.id, hours=Decimal("2"), status="approved",
               task_id=task.id, date=date(2026, 3, 1))
    make_entry(db, worker, budget_id=budget.id, line_item_id=first.id, hours=Decimal("3"), status="submitted",
               date=date(2026, 3, 3))
    make_entry(db, worker, budget_id=budget.id, hours=Decimal("4"), status="rejected", date=date(2026, 3, 2))
    detail = api.get(f"/api/budgets/{budget.id}", as_=exec_user).json
    assert [i["description"] for i in detail["line_items"]] == ["First", "Second"]
    item = detail["line_items"][0]
    assert item["service_type_name"] == service_type.label and item["task_title"] == "Landing page"
    assert item["logged_hours"] == 2.0 and item["invoiced_amount"] == 0
    assert detail["line_items"][1]["id"] == second.id
    assert detail["line_items"][1]["amount"] == 100 and detail["line_items"][1]["logged_hours"] == 0
    assert [e["date"] for e in detail["time_entries"]] == ["2026-03-03", "2026-03-02", "2026-03-01"]
    assert detail["time_entries"][2]["user_name"] == "Wendy Worker"
    assert detail["time_entries"][2]["task_title"] == "Landing page"
    assert detail["time_entries_total"] == 3
    assert detail["budget"]["logged_hours"] == 5.0  # rejected hours left out
    assert detail["budget"]["spent_amount"] == 200 and detail["budget"]["line_item_count"] == 2

    # removing the item clears it on the entries; deleting the budget clears the budget
    api.delete(f"/api/budgets/{budget.id}/line-items/{first.id}", as_=exec_user)
    from chalicelib.areas.timesheets.models import TimeEntry

    entries = list(db.scalars(select(TimeEntry).where(TimeEntry.user_id == worker.id)))
    assert all(e.line_item_id is None and e.budget_id == budget.id for e in entries)
    api.delete(f"/api/budgets/{budget.id}", as_=exec_user)
    for entry in entries:
        db.refresh(entry)
    assert all(e.budget_id is None for e in entries)


def test_reorder_is_atomic(api, db, exec_user):
    budget = make_budget(db)
    a, b, c = (make_line_item(db, budget, description=name, position=i) for i, name in enumerate("abc"))
    path = f"/api/budgets/{budget.id}/line-items/reorder"
    assert api.put(path, as_=exec_user, json={"item_ids": [c.id, a.id, b.id]}).json == {"ok": True}
    order = lambda: [i["description"] for i in api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["line_items"]]
    assert order() == ["c", "a", "b"]
    other = make_line_item(db, make_budget(db))
    for body in ({"item_ids": [a.id, other.id]}, {"item_ids": [a.id, a.id]}, {"item_ids": []}, {}):
        assert api.put(path, as_=exec_user, json=body).status == 400, body
    assert order() == ["c", "a", "b"]  # nothing half-written


def test_filters(api, db, exec_user):
    company = make_company(db)
    one = make_budget(db, status="active", company_id=company.id)
    two = make_budget(db, resource_type="deal", resource_id=make_deal(db).id)
    ids = lambda q: {b["id"] for b in api.get(f"/api/budgets{q}", as_=exec_user).json["budgets"]}
    assert ids("?status=active") >= {one.id} and two.id not in ids("?status=active")
    assert ids(f"?company_id={company.id}") == {one.id}
    assert ids(f"?resource_id={two.resource_id}&resource_type=deal") == {two.id}
    assert api.get("/api/budgets?status=bogus", as_=exec_user).status == 400


def test_scoping_and_permissions(api, db, exec_user):
    squad = make_squad(db)
    manager = make_user(db, access_level="manager", squad_id=make_squad(db).id)
    employee = make_user(db, access_level="employee", squad_id=squad.id)
    stranger = make_user(db, access_level="employee", squad_id=squad.id)
    mine = make_budget(db, resource_id=make_project(db, owner_id=employee.id).id)
    hidden = make_budget(db, resource_id=make_project(db, owner_id=stranger.id).id)
    deal_budget = make_budget(db, resource_type="deal", resource_id=make_deal(db).id)
    visible = lambda user: {b["id"] for b in api.get("/api/budgets", as_=user).json["budgets"]}
    assert {mine.id, deal_budget.id} <= visible(employee) and hidden.id not in visible(employee)
    assert hidden.id not in visible(manager) and mine.id not in visible(manager)
    assert {mine.id, hidden.id, deal_budget.id} <= visible(exec_user)
    for user in (employee, manager):
        assert api.get(f"/api/budgets/{hidden.id}", as_=user).status == 404
    assert api.get(f"/api/budgets/{mine.id}", as_=employee).status == 200
    # employees hold budgets:view only; managers update but not manage
    assert api.put(f"/api/budgets/{mine.id}", as_=employee, json={"name": "x"}).status == 403
    assert api.post("/api/budgets", as_=employee, json={"name": "x", "resource_type": "deal",
                                                        "resource_id": deal_budget.resource_id}).status == 403
    assert api.put(f"/api/budgets/{hidden.id}", as_=manager, json={"name": "x"}).status == 404
    assert api.delete(f"/api/budgets/{deal_budget.id}", as_=manager).status == 403
    # a manager may not link a budget to a project out of their scope
    hidden_project = make_project(db, owner_id=stranger.id)
    refused = api.post("/api/budgets", as_=manager, json={"name": "x", "resource_type": "project",
                                                          "resource_id": hidden_project.id})
    assert refused.status == 400 and refused.json["details"][0]["field"] == "resource_id"


def test_project_profitability_reads_budget_totals(api, db, exec_user):
    project = make_project(db)
    make_budget(db, resource_id=project.id, total_amount=Decimal("1000.50"))
    lines_only = make_budget(db, resource_id=project.id)
    make_line_item(db, lines_only, quantity=Decimal("2"), unit_price=Decimal("100.25"))
    make_budget(db, resource_id=project.id, total_amount=Decimal("999"), status="cancelled")
    make_budget(db, total_amount=Decimal("5"))  # another project
    result = api.get(f"/api/projects/{project.id}/profitability", as_=exec_user).json
    assert result["budget_total"] == 1201.0


def test_profitability_lists_at_most_500_people(api, db, exec_user):
    """decisions.md section 4: `time_by_member` answers at most 500 people (most hours first); the totals still
    count every entry."""
    from chalicelib.areas.timesheets.models import TimeEntry
    from chalicelib.core.ids import new_id
    from chalicelib.core.locks import insert_rows
    from chalicelib.core.models import User

    project = make_project(db)
    people = insert_rows(db, User, [{"id": new_id(), "email": f"worker{n:03d}@cap.test", "name": f"Worker {n:03d}",
                                     "access_level": "employee", "is_active": True} for n in range(501)])
    insert_rows(db, TimeEntry, [{"id": new_id(), "user_id": person["id"], "project_id": project.id,
                                 "date": date(2026, 3, 2), "hours": Decimal("1") if n else Decimal("3"),
                                 "billable": True, "status": "approved"} for n, person in enumerate(people)])
    db.flush()
    result = api.get(f"/api/projects/{project.id}/profitability", as_=exec_user).json
    assert len(result["time_by_member"]) == 500
    assert [m["name"] for m in result["time_by_member"][:2]] == ["Worker 000", "Worker 001"]
    assert result["total_hours"] == 503.0 and result["billable_hours"] == 503.0


@pytest.mark.parametrize("path", ["list", "detail"])
def test_constant_statements(api, db, exec_user, count_queries, path):
    worker = make_user(db)
    task = make_task(db)
    service_type = config_item(db, "service_type", "design")
    detail_budget = make_budget(db)

    def grow(n):
        for i in range(n):
            budget = make_budget(db, company_id=make_company(db).id, owner_id=exec_user.id)
            make_line_item(db, budget)
            make_entry(db, worker, budget_id=budget.id)
            item = make_line_item(db, detail_budget, task_id=task.id, service_type_id=service_type.id, position=i)
            make_entry(db, worker, budget_id=detail_budget.id, line_item_id=item.id, task_id=task.id,
                       status="approved")

    url = "/api/budgets" if path == "list" else f"/api/budgets/{detail_budget.id}"
    counts = []
    for total in (5, 100):
        grow(total - (5 if counts else 0))
        with count_queries() as counter:
            response = api.get(url, as_=exec_user)
        assert response.status == 200
        counts.append(counter.count)
    body = response.json
    assert len(body["budgets"]) >= 100 if path == "list" else len(body["line_items"]) == 100
    assert counts[0] == counts[1], counts
    if path == "detail" and db.get_bind().dialect.name == "postgresql":
        # the caller, the budget, then its items, entries, count, lookups, hours and invoiced amounts, then titles
        assert counts[1] == 4, counter.statements
        assert {entry["task_title"] for entry in body["time_entries"]} == {task.title}
        assert {(item["task_title"], item["logged_hours"]) for item in body["line_items"]} == {(task.title, 2.5)}  # make_entry logs 2.5 hours


def test_budget_list_pages_with_total(api, db, exec_user):
    project = make_project(db)
    ids = [make_budget(db, resource_id=project.id).id for _ in range(5)]
    whole = api.get(f"/api/budgets?resource_id={project.id}", as_=exec_user).json
    assert (whole["total"], whole["limit"], whole["offset"]) == (5, 500, 0)
    expected = [b["id"] for b in whole["budgets"]]
    assert sorted(expected) == sorted(ids)
    seen = []
    for offset in (0, 2, 4):
        body = api.get(f"/api/budgets?resource_id={project.id}&limit=2&offset={offset}", as_=exec_user).json
        assert (body["total"], body["limit"], body["offset"]) == (5, 2, offset)
        seen += [b["id"] for b in body["budgets"]]
    assert seen == expected
    assert api.get("/api/budgets?limit=0", as_=exec_user).status == 400


def test_a_budget_holds_at_most_500_line_items(api, db, exec_user):
    budget = make_budget(db)
    db.add_all([BudgetLineItem(budget_id=budget.id, description=f"l{n}", quantity=Decimal("1"),
                               unit_price=Decimal("1"), amount=Decimal("1"), position=n) for n in range(499)])
    db.flush()
    path = f"/api/budgets/{budget.id}/line-items"
    assert api.post(path, as_=exec_user, json={"description": "last"}).status == 201
    refused = api.post(path, as_=exec_user, json={"description": "one too many"})
    assert refused.status == 409 and "500" in refused.json["error"]
    assert len(api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["line_items"]) == 500


def test_the_detail_says_how_many_time_entries_the_budget_has(api, db, exec_user):
    worker = make_user(db)
    budget = make_budget(db)
    for day in range(1, 4):
        make_entry(db, worker, budget_id=budget.id, date=date(2026, 3, day))
    detail = api.get(f"/api/budgets/{budget.id}", as_=exec_user).json
    assert detail["time_entries_total"] == 3 and len(detail["time_entries"]) == 3
    paged = api.get(f"/api/time-entries?budget_id={budget.id}&limit=2", as_=exec_user).json
    assert paged["total"] == 3 and len(paged["time_entries"]) == 2



def test_the_list_is_newest_first(api, db, exec_user):
    """docs/decisions/budgets.md: the list is ordered newest first (created_at, then id)."""
    from datetime import datetime, timezone

    project = make_project(db)
    made = [make_budget(db, resource_id=project.id, created_at=datetime(2026, 1, day, tzinfo=timezone.utc))
            for day in (2, 3, 1)]
    listed = [b["id"] for b in api.get(f"/api/budgets?resource_id={project.id}", as_=exec_user).json["budgets"]]
    assert listed == [made[1].id, made[0].id, made[2].id]


def test_status_history_only_when_the_status_changes(api, db, exec_user):
    """Document 1, PUT /api/budgets/:id: `status_changed` when the status changes, `updated` for other changes."""
    budget = make_budget(db)
    path = f"/api/budgets/{budget.id}"
    assert api.put(path, as_=exec_user, json={"status": "active"}).status == 200
    assert actions(db, budget.id) == ["status_changed"]
    assert api.put(path, as_=exec_user, json={"status": "active", "po_number": "PO-9"}).status == 200
    assert actions(db, budget.id) == ["status_changed", "updated"]
    entries = history.entries(db, entity_type="budget", entity_id=budget.id, query=PageQuery()).items
    assert entries[0]["changes"] == {"po_number": {"from": None, "to": "PO-9"}}


def test_line_item_writes_need_the_budget_in_scope_and_touch_it(api, db, exec_user):
    """Line item writes take budgets:update (delete included) on a budget the caller can see (404 otherwise), and
    set the budget's updated_at (docs/decisions/budgets.md)."""
    squad = make_squad(db)
    manager = make_user(db, access_level="manager", squad_id=make_squad(db).id)
    employee = make_user(db, access_level="employee", squad_id=squad.id)
    stranger = make_user(db, access_level="employee", squad_id=squad.id)
    hidden = make_budget(db, resource_id=make_project(db, owner_id=stranger.id).id)
    hidden_item = make_line_item(db, hidden)
    path = f"/api/budgets/{hidden.id}/line-items"
    assert api.post(path, as_=manager, json={"description": "x"}).status == 404
    assert api.put(f"{path}/{hidden_item.id}", as_=manager, json={"quantity": 2}).status == 404
    assert api.delete(f"{path}/{hidden_item.id}", as_=manager).status == 404
    assert api.put(f"{path}/reorder", as_=manager, json={"item_ids": [hidden_item.id]}).status == 404

    own = make_budget(db, resource_id=make_project(db, owner_id=manager.id, members=[employee]).id)
    before = api.get(f"/api/budgets/{own.id}", as_=manager).json["budget"]["updated_at"]
    path = f"/api/budgets/{own.id}/line-items"
    assert api.post(path, as_=employee, json={"description": "x"}).status == 403  # budgets:view only
    item = api.post(path, as_=manager, json={"description": "x"}).json["item"]
    stamps = [api.get(f"/api/budgets/{own.id}", as_=manager).json["budget"]["updated_at"]]
    edited = api.put(f"{path}/{item['id']}", as_=manager, json={"unit_price": "12.50"}).json["item"]
    assert edited["amount"] == 12.5  # the stored quantity 1 x the new unit price
    stamps.append(api.get(f"/api/budgets/{own.id}", as_=manager).json["budget"]["updated_at"])
    assert api.delete(f"{path}/{item['id']}", as_=manager).json == {"ok": True}  # update suffices
    stamps.append(api.get(f"/api/budgets/{own.id}", as_=manager).json["budget"]["updated_at"])
    assert before < stamps[0] < stamps[1] < stamps[2]


def test_money_beyond_its_column_is_a_validation_error(api, db, exec_user):
    """decisions.md section 4: invalid input is 400 with details naming the field. total_amount and unit_price hold
    at most 12 digits before the point, quantity 10 (Numeric(14, 2), Numeric(12, 2)): a larger value was sent
    to the database and came back as a 400 without details."""
    budget = make_budget(db)
    item = make_line_item(db, budget)
    base = {"name": "x", "resource_type": "project", "resource_id": budget.resource_id}
    path = f"/api/budgets/{budget.id}"
    cases = [("POST", "/api/budgets", {**base, "total_amount": 10 ** 12}, "total_amount"),
             ("POST", "/api/budgets", {**base, "total_amount": "9999999999999.5"}, "total_amount"),
             ("PUT", path, {"total_amount": 10 ** 13}, "total_amount"),
             ("POST", f"{path}/line-items", {"description": "x", "quantity": 10 ** 10}, "quantity"),
             ("POST", f"{path}/line-items", {"description": "x", "unit_price": 10 ** 12}, "unit_price"),
             ("PUT", f"{path}/line-items/{item.id}", {"unit_price": -(10 ** 12)}, "unit_price"),
             ("PUT", f"{path}/line-items/{item.id}", {"quantity": "12345678901"}, "quantity")]
    for method, url, body, field in cases:
        answer = api.request(method, url, as_=exec_user, json=body)
        assert answer.status == 400 and answer.json["details"][0]["field"] == field, (body, answer.json)
    largest = api.post(f"{path}/line-items", as_=exec_user,
                       json={"description": "x", "quantity": "9999999999.99", "unit_price": "-999999999999.99"})
    assert largest.status == 400, largest  # each fits its column; their product does not fit a line (session 28)
    assert api.post("/api/budgets", as_=exec_user, json={**base, "total_amount": "999999999999.99"}).status == 201


def test_a_line_item_position_is_an_integer(api, db, exec_user):
    """docs/decisions/budgets.md: `position` is a JSON integer from 0 to 1,000,000, default 0."""
    path = f"/api/budgets/{make_budget(db).id}/line-items"
    for position in (1.5, "1", True, -1, 1_000_001):
        answer = api.post(path, as_=exec_user, json={"description": "x", "position": position})
        assert answer.status == 400 and answer.json["details"][0]["field"] == "position", (position, answer.json)
    highest = api.post(path, as_=exec_user, json={"description": "x", "position": 1_000_000})
    assert highest.json["item"]["position"] == 1_000_000
    assert api.post(path, as_=exec_user, json={"description": "x"}).json["item"]["position"] == 0


def test_the_portal_lists_line_items_in_the_staff_order(api, db, exec_user, set_env):
    """Document 1: line items are ordered by position then created_at; the portal's budget detail reuses the
    budget's records (document 3) and ordered equal positions by id instead."""
    from datetime import datetime, timezone

    from tests.areas.portal.conftest import TOKEN, Portal, make_client

    set_env(PORTAL_SERVICE_TOKEN=TOKEN)
    client = make_client(db)
    budget = make_budget(db, resource_id=make_project(db, company_id=client.id).id, status="pending_approval")
    for n, prefix in enumerate("cba"):  # created c, b, a (ids sort the other way), all at position 0
        make_line_item(db, budget, id=prefix * 8 + "-0000-4000-8000-000000000000", description=prefix,
                       created_at=datetime(2026, 1, 1 + n, tzinfo=timezone.utc))
    staff = [i["description"] for i in api.get(f"/api/budgets/{budget.id}", as_=exec_user).json["line_items"]]
    portal = [i["description"] for i in Portal(api).get(f"/budgets/{budget.id}", client).json["lineItems"]]
    assert staff == ["c", "b", "a"] and portal == staff


def test_the_portal_approval_tells_the_owner_only_when_they_may_read_the_budget(api, db, set_env):
    """docs/decisions/budgets.md, Notifications: a client's approval tells the budget's owner
    (`portal_budget_approved`, with the budget's name) only when they may read the budget (active, budgets:view,
    the budget in their scope: its project's); an owner outside the project, whose GET answers 404, is told
    nothing (audit 6)."""
    from chalicelib.core.notify import Notification
    from tests.areas.portal.conftest import TOKEN, Portal, make_client

    set_env(PORTAL_SERVICE_TOKEN=TOKEN)
    portal, client = Portal(api), make_client(db)
    outsider = make_user(db, name="Owen Owner")  # an employee outside the budget's project
    member = make_user(db, name="Mia Member")
    project = make_project(db, company_id=client.id, members=[member])
    hidden = make_budget(db, resource_id=project.id, status="pending_approval", owner_id=outsider.id,
                         name="Secret margin budget")
    shown = make_budget(db, resource_id=project.id, status="pending_approval", owner_id=member.id, name="Build")
    assert api.get(f"/api/budgets/{hidden.id}", as_=outsider).status == 404  # the owner cannot read it
    for budget in (hidden, shown):
        answer = portal.post(f"/budgets/{budget.id}/approve", client, role="collaborator", user="pu-9")
        assert answer.status == 200, answer
    assert db.scalars(select(Notification).where(Notification.user_id == outsider.id)).all() == []
    told = db.scalars(select(Notification).where(Notification.user_id == member.id)).all()
    assert [(n.type, n.title, n.resource_id, n.action_url) for n in told] == [
        ("portal_budget_approved", "The client approved the budget Build", shown.id, f"/budgets/{shown.id}")]
