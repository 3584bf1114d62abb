"""GET /api/tasks: filters, order, limit and a constant number of statements."""
from datetime import datetime, timedelta, timezone

import pytest

from chalicelib.core.timeutil import org_today, week_bounds
from tests.areas.tasks.factories import make_task, make_todo, priority, status, task_type
from tests.factories import make_squad, make_user


def titles(response):
    assert response.status == 200, response
    return [task["title"] for task in response.json["tasks"]]


def ids(response):
    assert response.status == 200, response
    return {task["id"] for task in response.json["tasks"]}


@pytest.mark.smoke
def test_list_returns_tasks_with_joined_fields_and_counts(api, db, exec_user):
    bob = make_user(db, name="Bob", picture="https://img/b.png")
    todo, high, bug = status(db, "todo"), priority(db, "high"), task_type(db, "bug")
    task = make_task(db, title="T", assignee_id=bob.id, reporter_id=exec_user.id, created_by=exec_user.id,
                     status_id=todo.id, priority_id=high.id, type_id=bug.id, approved_by_user_id=bob.id)
    make_task(db, title="sub", parent_task_id=task.id)
    make_todo(db, task, is_done=True)
    make_todo(db, task)
    response = api.get("/api/tasks?parent_id=null", as_=exec_user)
    [record] = response.json["tasks"]
    assert record["assignee_name"] == "Bob" and record["assignee_picture"] == "https://img/b.png"
    assert record["reporter_name"] == exec_user.name and record["created_by_name"] == exec_user.name
    assert (record["status_label"], record["status_color"], record["status_value"]) == (todo.label, todo.color, "todo")
    assert (record["priority_label"], record["priority_color"], record["priority_value"]) == (
        high.label, high.color, "high")
    assert (record["type_label"], record["type_value"]) == (bug.label, "bug")
    assert record["phase_label"] is None and record["phase_color"] is None
    assert record["approved_by_name"] == "Bob"
    assert (record["subtask_count"], record["todo_count"], record["todo_done_count"]) == (1, 2, 1)
    assert record["is_private"] == 0


def _populate(db, n, users, items):
    for i in range(n):
        task = make_task(db, title=f"t{i}", assignee_id=users[i % 2].id, reporter_id=users[(i + 1) % 2].id,
                         created_by=users[0].id, status_id=items[0].id, priority_id=items[1].id, type_id=items[2].id,
                         approved_by_user_id=users[1].id)
        make_todo(db, task, is_done=bool(i % 2))
        make_task(db, title=f"s{i}", parent_task_id=task.id)


@pytest.mark.parametrize("access", ["executive", "employee", "manager"])
def test_list_costs_the_same_statements_for_5_and_100_tasks(api, db, count_queries, access):
    squad = make_squad(db)
    caller = make_user(db, access_level=access, squad_id=squad.id)
    other = make_user(db, squad_id=squad.id)
    items = (status(db, "todo"), priority(db, "low"), task_type(db, "bug"))
    _populate(db, 5, [caller, other], items)
    with count_queries() as small:
        assert len(api.get("/api/tasks", as_=caller).json["tasks"]) == 10
    _populate(db, 95, [caller, other], items)
    with count_queries() as large:
        assert len(api.get("/api/tasks", as_=caller).json["tasks"]) == 200
    assert large.count == small.count


def test_detail_costs_the_same_statements_whatever_the_children(api, db, count_queries, exec_user):
    task = make_task(db)
    make_todo(db, task)
    make_task(db, parent_task_id=task.id)
    with count_queries() as small:
        api.get(f"/api/tasks/{task.id}", as_=exec_user)
    for _ in range(30):
        make_todo(db, task)
        make_task(db, parent_task_id=task.id)
    with count_queries() as large:
        body = api.get(f"/api/tasks/{task.id}", as_=exec_user).json
    assert large.count == small.count
    # the caller, the task with its subtasks, their names and labels, their counts, todos, watchers, agent
    assert large.count <= 7, large.statements
    assert len(body["subtasks"]) == 31 and body["task"]["subtask_count"] == 31 and body["task"]["todo_count"] == 31


def test_detail_of_a_hidden_task_is_404_even_when_a_subtask_is_visible(api, db, employee):
    parent = make_task(db, is_private=False)
    make_task(db, parent_task_id=parent.id, assignee_id=employee.id)
    assert api.get(f"/api/tasks/{parent.id}", as_=employee).status == 404


def test_list_is_capped_at_500(api, db, exec_user):
    from chalicelib.areas.tasks.models import Task

    db.add_all([Task(title=f"bulk {i}", is_private=False) for i in range(505)])
    db.flush()
    assert len(api.get("/api/tasks", as_=exec_user).json["tasks"]) == 500


@pytest.mark.parametrize("field,list_key,values", [
    ("status_id", "task_status", ("todo", "done", "blocked")),
    ("priority_id", "task_priority", ("low", "high", "urgent")),
    ("type_id", "task_type", ("task", "bug", "feature")),
])
def test_filter_by_config_item_single_and_comma_separated(api, db, exec_user, field, list_key, values):
    from tests.factories import config_item

    items = [config_item(db, list_key, value) for value in values]
    tasks = [make_task(db, title=value, **{field: item.id}) for value, item in zip(values, items)]
    assert ids(api.get(f"/api/tasks?{field}={items[0].id}", as_=exec_user)) == {tasks[0].id}
    both = api.get(f"/api/tasks?{field}={items[0].id},{items[1].id}", as_=exec_user)
    assert ids(both) == {tasks[0].id, tasks[1].id}


def test_filter_by_assignee(api, db, exec_user):
    a, b, c = make_user(db), make_user(db), make_user(db)
    ta, tb = make_task(db, assignee_id=a.id), make_task(db, assignee_id=b.id)
    make_task(db, assignee_id=c.id)
    make_task(db)
    assert ids(api.get(f"/api/tasks?assignee_id={a.id}", as_=exec_user)) == {ta.id}
    assert ids(api.get(f"/api/tasks?assignee_id={a.id},{b.id}", as_=exec_user)) == {ta.id, tb.id}


def test_filter_by_squad_id_or_name(api, db, exec_user):
    red, blue, green = make_squad(db, name="Red"), make_squad(db, name="Blue"), make_squad(db, name="Green")
    r, b, g = (make_user(db, squad_id=s.id) for s in (red, blue, green))
    tr, tb = make_task(db, assignee_id=r.id), make_task(db, assignee_id=b.id)
    make_task(db, assignee_id=g.id, created_by=r.id)  # the squad is the assignee's, not the creator's
    assert ids(api.get(f"/api/tasks?squad={red.id}", as_=exec_user)) == {tr.id}
    assert ids(api.get("/api/tasks?squad=Red", as_=exec_user)) == {tr.id}
    assert ids(api.get(f"/api/tasks?squad=Red,{blue.id}", as_=exec_user)) == {tr.id, tb.id}
    assert ids(api.get("/api/tasks?squad=Nobody", as_=exec_user)) == set()


def test_filter_by_resource(api, db, exec_user):
    t1 = make_task(db, resource_type="project", resource_id="p1")
    t2 = make_task(db, resource_type="project", resource_id="p2")
    t3 = make_task(db, resource_type="company", resource_id="p1")
    assert ids(api.get("/api/tasks?resource_type=project", as_=exec_user)) == {t1.id, t2.id}
    assert ids(api.get("/api/tasks?resource_id=p1", as_=exec_user)) == {t1.id, t3.id}
    assert ids(api.get("/api/tasks?resource_type=project&resource_id=p1", as_=exec_user)) == {t1.id}


def test_a_blank_resource_filter_is_no_filter(api, db, exec_user):
    """`?resource_type=%20` as `?resource_type=`: every task (a blank value filtered on '' and answered none)."""
    t1 = make_task(db, resource_type="project", resource_id="p1")
    t2 = make_task(db)
    for name in ("resource_type", "resource_id", "roadmap_item_id"):
        assert ids(api.get(f"/api/tasks?{name}=", as_=exec_user)) == {t1.id, t2.id}
        assert ids(api.get(f"/api/tasks?{name}=%20", as_=exec_user)) == {t1.id, t2.id}
    assert ids(api.get("/api/tasks?resource_type=%20project%20", as_=exec_user)) == {t1.id}


def test_filter_by_roadmap_item(api, db, exec_user):
    t1 = make_task(db, roadmap_item_id="r1")
    make_task(db, roadmap_item_id="r2")
    assert ids(api.get("/api/tasks?roadmap_item_id=r1", as_=exec_user)) == {t1.id}


def test_parent_id_filter(api, db, exec_user):
    parent = make_task(db, title="parent")
    other = make_task(db, title="other")
    child = make_task(db, title="child", parent_task_id=parent.id)
    make_task(db, title="other child", parent_task_id=other.id)
    assert ids(api.get("/api/tasks?parent_id=null", as_=exec_user)) == {parent.id, other.id}
    assert ids(api.get("/api/tasks?parent_id=", as_=exec_user)) == {parent.id, other.id}
    assert ids(api.get(f"/api/tasks?parent_id={parent.id}", as_=exec_user)) == {child.id}
    assert len(api.get("/api/tasks", as_=exec_user).json["tasks"]) == 4


def test_show_subtasks_false_hides_subtasks(api, db, exec_user):
    parent = make_task(db)
    make_task(db, parent_task_id=parent.id)
    assert len(api.get("/api/tasks?show_subtasks=true", as_=exec_user).json["tasks"]) == 2
    assert ids(api.get("/api/tasks?show_subtasks=false", as_=exec_user)) == {parent.id}
    assert api.get("/api/tasks?show_subtasks=maybe", as_=exec_user).status == 400


def test_due_today_upcoming_and_overdue(api, db, exec_user):
    today = org_today()
    monday, sunday = week_bounds(today)
    done, doing = status(db, "done"), status(db, "in_progress")
    made = [
        make_task(db, title="today", due_date=today),
        make_task(db, title="monday", due_date=monday),
        make_task(db, title="sunday", due_date=sunday),
        make_task(db, title="next week", due_date=sunday + timedelta(days=1)),
        make_task(db, title="last week", due_date=monday - timedelta(days=1)),
        make_task(db, title="late open", due_date=today - timedelta(days=3), status_id=doing.id),
        make_task(db, title="late none", due_date=today - timedelta(days=1)),
        make_task(db, title="late done", due_date=today - timedelta(days=3), status_id=done.id),
        make_task(db, title="tomorrow done", due_date=today + timedelta(days=1), status_id=done.id),
        make_task(db, title="no date"),
    ]
    by_title = {t.title: t for t in made}

    def expected(predicate):
        return {t.id for t in made if t.due_date is not None and predicate(t)}

    assert ids(api.get("/api/tasks?due=today", as_=exec_user)) == expected(lambda t: t.due_date == today)
    upcoming = ids(api.get("/api/tasks?due=upcoming", as_=exec_user))
    assert upcoming == expected(lambda t: monday <= t.due_date <= sunday)
    assert {by_title["today"].id, by_title["monday"].id, by_title["sunday"].id} <= upcoming
    assert not upcoming & {by_title["next week"].id, by_title["last week"].id}
    overdue = ids(api.get("/api/tasks?due=overdue", as_=exec_user))
    assert overdue == expected(lambda t: t.due_date < today and t.status_id != done.id)
    assert {by_title["late open"].id, by_title["late none"].id, by_title["last week"].id} <= overdue
    assert by_title["late done"].id not in overdue and by_title["today"].id not in overdue
    assert ids(api.get("/api/tasks?overdue=true", as_=exec_user)) == overdue
    assert len(api.get("/api/tasks?overdue=false", as_=exec_user).json["tasks"]) == len(made)
    assert api.get("/api/tasks?due=someday", as_=exec_user).status == 400


def test_today_is_the_organisations_day(api, db, exec_user, set_env):
    """Across the date line, "today" differs: Kiritimati (UTC+14) vs Pago Pago (UTC-11)."""
    set_env(ORG_TIMEZONE="Pacific/Kiritimati")
    ahead = org_today()
    set_env(ORG_TIMEZONE="Pacific/Pago_Pago")
    behind = org_today()
    assert ahead != behind
    task = make_task(db, due_date=behind)
    assert ids(api.get("/api/tasks?due=today", as_=exec_user)) == {task.id}
    set_env(ORG_TIMEZONE="Pacific/Kiritimati")
    assert ids(api.get("/api/tasks?due=today", as_=exec_user)) == set()
    assert ids(api.get("/api/tasks?due=overdue", as_=exec_user)) == {task.id}


def test_search_title_and_description_case_insensitive(api, db, exec_user):
    t1 = make_task(db, title="Homepage Redesign")
    t2 = make_task(db, title="Other", description="update the HOMEPAGE hero")
    make_task(db, title="Unrelated", description="nothing")
    make_task(db, title="100% done")
    assert ids(api.get("/api/tasks?search=homepage", as_=exec_user)) == {t1.id, t2.id}
    assert titles(api.get("/api/tasks?search=%25", as_=exec_user)) == ["100% done"]


def test_order_sort_order_then_due_date_then_newest(api, db, exec_user):
    base = datetime(2026, 1, 1, tzinfo=timezone.utc)
    today = org_today()
    make_task(db, title="no order, no due, old", created_at=base)
    make_task(db, title="no order, no due, new", created_at=base + timedelta(days=1))
    make_task(db, title="no order, due later", due_date=today + timedelta(days=5))
    make_task(db, title="no order, due sooner", due_date=today + timedelta(days=1))
    make_task(db, title="order 2", sort_order=2)
    make_task(db, title="order 1, due later", sort_order=1, due_date=today + timedelta(days=9))
    make_task(db, title="order 1, due sooner", sort_order=1, due_date=today + timedelta(days=2))
    make_task(db, title="order 1, no due, new", sort_order=1, created_at=base + timedelta(days=3))
    make_task(db, title="order 1, no due, old", sort_order=1, created_at=base + timedelta(days=2))
    assert titles(api.get("/api/tasks", as_=exec_user)) == [
        "order 1, due sooner", "order 1, due later", "order 1, no due, new", "order 1, no due, old", "order 2",
        "no order, due sooner", "no order, due later", "no order, no due, new", "no order, no due, old",
    ]


def test_list_filters_take_at_most_100_values_each(api, db, exec_user):
    """A comma-separated filter names at most 100 values (docs/decisions/tasks.md): past that a 400 naming the
    filter. Unbounded, 17,000 values in each of four filters were more bind parameters than the driver can send
    (65,535): a 500."""
    many = ",".join(f"v{n}" for n in range(17_000))
    response = api.get(f"/api/tasks?status_id={many}&type_id={many}&priority_id={many}&assignee_id={many}",
                       as_=exec_user)
    assert response.status == 400, response
    assert {item["field"] for item in response.json["details"]} == {"status_id", "type_id", "priority_id",
                                                                    "assignee_id"}
    squads = ",".join(f"squad {n}" for n in range(101))
    response = api.get(f"/api/tasks?squad={squads}", as_=exec_user)
    assert response.status == 400 and response.json["details"][0]["field"] == "squad", response
    task = make_task(db, title="Mine", assignee_id=exec_user.id)
    hundred = ",".join([exec_user.id, *(f"v{n}" for n in range(99))])
    assert ids(api.get(f"/api/tasks?assignee_id={hundred}", as_=exec_user)) == {task.id}


def test_show_subtasks_and_overdue_take_true_false_1_or_0(api, db, exec_user):
    """docs/decisions/tasks.md: the core QueryFlag; yes, no and an empty value are 400 naming the parameter."""
    parent = make_task(db)
    make_task(db, parent_task_id=parent.id)
    assert ids(api.get("/api/tasks?show_subtasks=0", as_=exec_user)) == {parent.id}
    assert len(api.get("/api/tasks?show_subtasks=1", as_=exec_user).json["tasks"]) == 2
    for name in ("show_subtasks", "overdue"):
        for value in ("yes", "no", ""):
            response = api.get(f"/api/tasks?{name}={value}", as_=exec_user)
            assert response.status == 400 and response.json["details"][0]["field"] == name, (name, value, response)
