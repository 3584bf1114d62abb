"""Who is told what by `task_assigned` (document 1, Events: "task create, task assignee change -> notification
task_assigned to the assignee"): any active user may be made a task's assignee, also one whose `tasks` permission is
`none` (an override or their access level's matrix cell), who cannot open the task. Such an assignee is told that they
were assigned a task, with the actor, and nothing of the task (title, description, link), as `todo_assigned` tells a
non-reader; an assignee with `tasks:view` (their task is in their scope) is told its title, description and link.
docs/decisions/tasks.md, "Notifications"."""
import pytest
from sqlalchemy import select

from chalicelib.core.models import AccessLevelPermission
from chalicelib.core.notify import Notification
from tests.areas.tasks.factories import make_task
from tests.factories import grant, make_user

SECRET = {"title": "Secret merger plan", "description": "Buy Acme for 12M"}
# measured before the check existed (the same harness, the queue configured): a create naming an assignee other than
# the caller, and an update that changes only the assignee. Whether the assignee views tasks is read by the statement
# that checks the users a write names: it adds none. (Session 23: +1 each, core notify's claim of its
# de-duplication keys.)
CREATE_STATEMENTS = 9
ASSIGN_STATEMENTS = 10


def _told(db, user) -> list[Notification]:
    db.expire_all()
    return db.scalars(select(Notification).where(Notification.user_id == user.id,
                                                 Notification.type == "task_assigned")).all()


def _blocked_by_override(db):
    user = make_user(db, name="Ben Blocked")
    grant(db, user, "tasks", "none")
    return user


def _blocked_by_matrix(db):
    db.merge(AccessLevelPermission(access_level="lead", tool="tasks", level="none"))
    return make_user(db, access_level="lead", name="Lea Lead")


BLOCKED = {"override": _blocked_by_override, "matrix": _blocked_by_matrix}


def _assert_bare(api, db, user, task_id, actor):
    [notice] = _told(db, user)
    assert (notice.title, notice.body, notice.action_url) == ("You were assigned a task", None, None)
    assert (notice.resource_type, notice.resource_id, notice.actor_id) == ("task", task_id, actor.id)
    assert api.get(f"/api/tasks/{task_id}", as_=user).status in (403, 404)  # indeed cannot read it


def _assert_full(db, user, task_id, title="Secret merger plan"):
    [notice] = _told(db, user)
    assert (notice.title, notice.body, notice.action_url) == (
        f"You were assigned a task: {title}", "Buy Acme for 12M", f"/tasks/{task_id}")


@pytest.mark.parametrize("how", list(BLOCKED))
def test_a_create_tells_an_assignee_without_tasks_view_only_that_they_were_assigned(api, db, exec_user, how):
    blocked = BLOCKED[how](db)
    created = api.post("/api/tasks", as_=exec_user, json={**SECRET, "assignee_id": blocked.id})
    assert created.status == 201, created
    _assert_bare(api, db, blocked, created.json["task"]["id"], exec_user)


def test_a_create_tells_an_assignee_who_views_tasks_the_task(api, db, exec_user):
    db.merge(AccessLevelPermission(access_level="lead", tool="tasks", level="none"))
    reader = make_user(db)                                   # an employee: tasks update by default
    allowed = make_user(db, access_level="lead")             # the matrix says none, their override view
    grant(db, allowed, "tasks", "view")
    for person in (reader, allowed):
        created = api.post("/api/tasks", as_=exec_user, json={**SECRET, "assignee_id": person.id})
        assert created.status == 201, created
        _assert_full(db, person, created.json["task"]["id"])
        assert api.get(f"/api/tasks/{created.json['task']['id']}", as_=person).status == 200


@pytest.mark.parametrize("how", list(BLOCKED))
def test_an_assignee_change_tells_an_assignee_without_tasks_view_only_that_they_were_assigned(api, db, exec_user,
                                                                                             how):
    blocked, reader = BLOCKED[how](db), make_user(db)
    task = api.post("/api/tasks", as_=exec_user, json=SECRET).json["task"]
    changed = api.put(f"/api/tasks/{task['id']}", as_=exec_user, json={"assignee_id": blocked.id})
    assert changed.status == 200, changed
    _assert_bare(api, db, blocked, task["id"], exec_user)
    handed_on = api.put(f"/api/tasks/{task['id']}", as_=exec_user, json={"assignee_id": reader.id})
    assert handed_on.status == 200, handed_on
    _assert_full(db, reader, task["id"])


def test_a_duplicate_and_a_subtask_tell_an_assignee_without_tasks_view_only_that_they_were_assigned(api, db,
                                                                                                    exec_user):
    blocked = _blocked_by_override(db)
    original = make_task(db, **SECRET, assignee_id=blocked.id, created_by=exec_user.id)
    copy = api.post(f"/api/tasks/{original.id}/duplicate", as_=exec_user)
    assert copy.status == 201, copy
    _assert_bare(api, db, blocked, copy.json["task"]["id"], exec_user)

    other = _blocked_by_override(db)
    sub = api.post(f"/api/tasks/{original.id}/subtasks", as_=exec_user,
                   json={"title": "Secret merger plan, part 2", "assignee_id": other.id})
    assert sub.status == 201, sub
    _assert_bare(api, db, other, sub.json["task"]["id"], exec_user)


def test_a_duplicate_tells_an_assignee_who_views_tasks_the_copy(api, db, exec_user):
    reader = make_user(db)
    original = make_task(db, **SECRET, assignee_id=reader.id, created_by=exec_user.id)
    copy = api.post(f"/api/tasks/{original.id}/duplicate", as_=exec_user)
    assert copy.status == 201, copy
    _assert_full(db, reader, copy.json["task"]["id"], title="Secret merger plan (copy)")


def test_the_check_costs_no_statement(api, db, exec_user, count_queries, aws):
    """A create and an assignee change cost what they did before the check, for a reader and a non-reader alike:
    whether the new assignee views tasks comes with the read of the users the write names. With the notifications
    queue configured (as deployed), so that delivery is not counted."""
    counts = {}
    for name, person in (("reader", make_user(db)), ("blocked", _blocked_by_override(db))):
        with count_queries() as created:
            answer = api.post("/api/tasks", as_=exec_user, json={**SECRET, "assignee_id": person.id})
        assert answer.status == 201, answer
        task = make_task(db, title="Handed on")
        with count_queries() as assigned:
            answer = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"assignee_id": person.id})
        assert answer.status == 200, answer
        counts[name] = (created.count, assigned.count)
    assert counts["reader"] == counts["blocked"], counts
    if db.bind.dialect.name == "postgresql":
        assert counts["reader"] == (CREATE_STATEMENTS, ASSIGN_STATEMENTS), counts
