"""Who is told what by `todo_assigned` (notifications audit): a to-do may be assigned to a user who cannot read its
task (to-do assignees are not part of the task's scope), and such a user is told that they were assigned a to-do,
never the to-do's title nor the task's. Whether a recipient may read the task is asked as them (tasks:view and the
task's scope clause), for all recipients in a fixed number of statements."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.areas.tasks.factories import add_watcher, make_task
from tests.factories import grant, make_squad, make_user


def notice(db, user):
    found = db.scalars(select(Notification).where(Notification.user_id == user.id,
                                                  Notification.type == "todo_assigned")).all()
    assert len(found) == 1, found
    return found[0]


def test_a_todo_assignee_who_cannot_read_the_task_is_not_told_its_text(api, db, exec_user):
    owner = make_user(db, name="Olga Owner")
    task = make_task(db, title="Secret merger plan", created_by=owner.id, assignee_id=owner.id)
    outsider = make_user(db)                               # an employee with no link to the task
    watcher = make_user(db)                                # sees it: watches it
    add_watcher(db, task, watcher)
    squad = make_squad(db)
    owner.squad_id = squad.id
    manager = make_user(db, access_level="manager", squad_id=squad.id)  # sees it: the assignee is in their squad
    other_manager = make_user(db, access_level="manager")             # a manager of another team: does not
    head = make_user(db, access_level="head")                           # sees every task
    blocked_head = make_user(db, access_level="head")                   # every task in scope, but tasks: none
    grant(db, blocked_head, "tasks", "none")
    db.flush()
    people = [outsider, watcher, manager, other_manager, head, blocked_head]
    response = api.put(f"/api/tasks/{task.id}/todos", as_=owner, json={"todos": [
        {"title": f"Call the bank ({n})", "assignee_id": person.id} for n, person in enumerate(people)]})
    assert response.status == 200, response
    for person in (watcher, manager, head):
        told = notice(db, person)
        assert told.title.startswith("You were assigned a todo: Call the bank (") and told.body == "On task: Secret merger plan"
        assert (told.resource_type, told.resource_id, told.action_url) == ("task", task.id, f"/tasks/{task.id}")
    for person in (outsider, other_manager, blocked_head):
        told = notice(db, person)
        assert told.title == "You were assigned a todo" and told.body is None, (told.title, told.body)
        assert "Call the bank" not in told.title and "Secret" not in told.title
        assert (told.resource_type, told.resource_id, told.action_url, told.actor_id) == ("task", task.id, None, owner.id)
        assert api.get(f"/api/tasks/{task.id}", as_=person).status in (403, 404)  # indeed cannot read it


def test_a_subtask_todo_is_told_in_full_to_who_sees_the_parent(api, db, exec_user):
    owner = make_user(db)
    parent = make_task(db, title="Parent", created_by=owner.id)
    sub = make_task(db, title="Child", parent_task_id=parent.id)
    watcher = make_user(db)
    add_watcher(db, parent, watcher)
    response = api.put(f"/api/tasks/{sub.id}/todos", as_=exec_user, json={"todos": [
        {"title": "Check the child", "assignee_id": watcher.id}]})
    assert response.status == 200, response
    told = notice(db, watcher)
    assert (told.title, told.body) == ("You were assigned a todo: Check the child", "On task: Child")


def test_the_readers_check_costs_the_same_for_few_and_many_assignees(api, db, exec_user, count_queries, aws):
    """With the notifications queue configured (as deployed), so that delivery is not counted."""
    owner = make_user(db)
    counts = []
    for size in (3, 30):
        task = make_task(db, created_by=owner.id)
        people = [make_user(db, access_level=("employee", "manager", "head")[n % 3]) for n in range(size)]
        with count_queries() as counter:
            response = api.put(f"/api/tasks/{task.id}/todos", as_=owner, json={"todos": [
                {"title": f"T{n}", "assignee_id": person.id} for n, person in enumerate(people)]})
        assert response.status == 200, response
        counts.append(counter.count)
    assert counts[0] == counts[1], counts
