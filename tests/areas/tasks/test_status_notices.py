"""`task_status_changed` (catalogue: "A task you own or follow changed status."): a task's status really changing
tells its assignee, its reporter and its watchers who may read it, never the caller, in one notify_many call (core
notify de-duplicates per user, type and resource within 5 minutes, document 3). docs/decisions/tasks.md,
"Notifications"."""
from datetime import timedelta

from sqlalchemy import select, update

from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from tests.areas.tasks.factories import add_watcher, make_task, status
from tests.factories import grant, make_user

# a rename (PUT /api/tasks/{id}) as measured before the notice existed: the caller, the task locked, the UPDATE, the
# answer's task, its names and counts (bench/results/bench.json, `task update`: 5 statements)
RENAME_STATEMENTS = 5


def _told(db, user, type="task_status_changed") -> list[Notification]:
    db.expire_all()
    return db.scalars(select(Notification).where(Notification.user_id == user.id, Notification.type == type)
                      .order_by(Notification.created_at)).all()


def _move(api, actor, task, value_or_id, db=None):
    status_id = value_or_id if db is None else status(db, value_or_id).id
    answer = api.put(f"/api/tasks/{task.id}", as_=actor, json={"status_id": status_id})
    assert answer.status == 200, answer
    return answer


def test_a_status_change_tells_the_assignee_reporter_and_watchers_but_not_the_caller(api, db, exec_user):
    ann, rita, walt, stranger = make_user(db), make_user(db), make_user(db), make_user(db)
    task = make_task(db, title="Write the brief", assignee_id=ann.id, reporter_id=rita.id, created_by=rita.id,
                     status_id=status(db, "todo").id)
    add_watcher(db, task, walt)
    add_watcher(db, task, exec_user)  # the caller watches it too: never told of their own change
    _move(api, exec_user, task, "done", db)
    for person in (ann, rita, walt):
        told = _told(db, person)
        assert len(told) == 1, (person.name, told)
        notice = told[0]
        assert notice.title == '"Write the brief" moved to Done'
        assert (notice.resource_type, notice.resource_id, notice.action_url, notice.actor_id) == (
            "task", task.id, f"/tasks/{task.id}", exec_user.id)
    assert _told(db, exec_user) == [] and _told(db, stranger) == []
    # the recipient sees it through the notifications API
    listed = api.get("/api/notifications", as_=walt).json["notifications"]
    assert [n["title"] for n in listed if n["type"] == "task_status_changed"] == ['"Write the brief" moved to Done']


def test_the_assignee_who_changes_the_status_is_not_told(api, db):
    ann, rita = make_user(db), make_user(db)
    task = make_task(db, title="Mine", assignee_id=ann.id, reporter_id=rita.id, created_by=rita.id,
                     status_id=status(db, "todo").id)
    _move(api, ann, task, "in_progress", db)
    assert _told(db, ann) == []
    assert [n.title for n in _told(db, rita)] == ['"Mine" moved to In Progress']


def test_a_recipient_who_cannot_read_the_task_is_not_told(api, db, exec_user):
    """Assignee, reporter and watchers are in the task's scope; one whose `tasks` permission is `none` may not read
    it and is told nothing (neither its title nor that it moved)."""
    blocked, reader = make_user(db), make_user(db)
    grant(db, blocked, "tasks", "none")
    task = make_task(db, title="Secret merger plan", assignee_id=blocked.id, reporter_id=exec_user.id,
                     created_by=exec_user.id, status_id=status(db, "todo").id)
    add_watcher(db, task, reader)
    _move(api, exec_user, task, "blocked", db)
    assert _told(db, blocked) == []
    assert api.get(f"/api/tasks/{task.id}", as_=blocked).status in (403, 404)  # indeed cannot read it
    assert [n.title for n in _told(db, reader)] == ['"Secret merger plan" moved to Blocked']


def test_a_write_that_does_not_change_the_status_tells_nobody(api, db, exec_user):
    ann = make_user(db)
    todo = status(db, "todo")
    task = make_task(db, title="Same", assignee_id=ann.id, status_id=todo.id)
    answer = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"status_id": todo.id, "title": "Same, renamed"})
    assert answer.status == 200, answer
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"description": "more"}).status == 200
    assert _told(db, ann) == []


def test_a_create_is_not_a_status_change(api, db, exec_user):
    ann = make_user(db)
    made = api.post("/api/tasks", as_=exec_user, json={"title": "New", "assignee_id": ann.id,
                                                        "status_id": status(db, "in_progress").id})
    assert made.status == 201, made
    assert _told(db, ann) == [] and len(_told(db, ann, "task_assigned")) == 1


def test_a_second_change_within_five_minutes_is_de_duplicated(api, db, exec_user):
    """Document 3: a notification is skipped when the same user, type and resource was notified within the last 5
    minutes: a task moved twice in a row tells its assignee once (the first move); past the window, again."""
    ann = make_user(db)
    task = make_task(db, title="Twice", assignee_id=ann.id, status_id=status(db, "todo").id)
    _move(api, exec_user, task, "in_progress", db)
    _move(api, exec_user, task, "done", db)
    assert [n.title for n in _told(db, ann)] == ['"Twice" moved to In Progress']
    db.execute(update(Notification).where(Notification.user_id == ann.id)
               .values(created_at=utcnow() - timedelta(minutes=6)))
    _move(api, exec_user, task, "in_review", db)
    assert [n.title for n in _told(db, ann)] == ['"Twice" moved to In Progress', '"Twice" moved to In Review']


def test_a_cleared_status_is_told_as_cleared(api, db, exec_user):
    ann = make_user(db)
    task = make_task(db, title="Loose", assignee_id=ann.id, status_id=status(db, "todo").id)
    _move(api, exec_user, task, None)
    assert [n.title for n in _told(db, ann)] == ['"Loose" status cleared']


def test_a_long_title_is_shortened_so_the_status_still_shows(api, db, exec_user):
    ann = make_user(db)
    task = make_task(db, title="x" * 500, assignee_id=ann.id, status_id=status(db, "todo").id)
    _move(api, exec_user, task, "done", db)
    [notice] = _told(db, ann)
    assert len(notice.title) <= 500 and notice.title.endswith("\u2026\" moved to Done"), notice.title


def test_a_new_assignee_is_told_both_the_assignment_and_the_status(api, db, exec_user):
    """Two types, two notices (each with its own preferences and de-duplication); the previous assignee is no longer
    the task's and is not told of the move."""
    ann, bob = make_user(db), make_user(db)
    task = make_task(db, title="Handover", assignee_id=ann.id, status_id=status(db, "todo").id)
    answer = api.put(f"/api/tasks/{task.id}", as_=exec_user,
                     json={"assignee_id": bob.id, "status_id": status(db, "in_progress").id})
    assert answer.status == 200, answer
    assert [n.title for n in _told(db, bob)] == ['"Handover" moved to In Progress']
    assert len(_told(db, bob, "task_assigned")) == 1
    assert _told(db, ann) == []


def test_the_status_notice_costs_the_same_for_2_and_20_recipients(api, db, exec_user, count_queries, aws):
    """With the notifications queue configured (as deployed), so that delivery is not counted."""
    todo, done = status(db, "todo").id, status(db, "done").id
    counts, told = [], []
    for size in (2, 20):
        task = make_task(db, status_id=todo)
        people = [make_user(db, access_level=("employee", "manager", "head")[n % 3]) for n in range(size)]
        for person in people:
            add_watcher(db, task, person)
        with count_queries() as counter:
            _move(api, exec_user, task, done)
        counts.append(counter.count)
        told.extend(people)
    assert counts[0] == counts[1], counts
    assert all(len(_told(db, person)) == 1 for person in told)


def test_an_update_without_a_status_change_costs_no_more_statements(api, db, exec_user, count_queries, aws):
    """The notice's reads (watchers, readers, de-duplication) run only when the status changes: a rename of a task
    with an assignee, a reporter and watchers costs what it did before the notice existed (bench: `task update`),
    and so does one that sends the stored status back."""
    todo = status(db, "todo")
    task = make_task(db, assignee_id=make_user(db).id, reporter_id=make_user(db).id, status_id=todo.id)
    for _ in range(3):
        add_watcher(db, task, make_user(db))
    with count_queries() as renamed:
        assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"title": "Renamed"}).status == 200
    with count_queries() as sent_back:
        assert api.put(f"/api/tasks/{task.id}", as_=exec_user,
                       json={"title": "Renamed again", "status_id": todo.id}).status == 200
    assert renamed.count == sent_back.count, (renamed.count, sent_back.count)
    if db.bind.dialect.name == "postgresql":  # the bench's figure is pg8000's (SQLite runs one more: 6)
        assert renamed.count == RENAME_STATEMENTS, "\n".join(s[:90] for s in renamed.statements)

