"""`task_due_soon` (catalogue: "A task assigned to you is due within a day."), sent by the hourly `task-due-soon` job
(chalicelib/areas/tasks/jobs.py): an open task with an assignee and a due date of today or tomorrow (ORG_TIMEZONE)
tells its assignee once per assignment and due date. docs/decisions/tasks.md, "Notifications"."""
import json
import os
from datetime import timedelta

from sqlalchemy import select, update

from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from chalicelib.core.timeutil import org_today
from tests.areas.tasks.factories import make_task, status
from tests.factories import grant, make_user


def _told(db, user=None, task=None) -> list[Notification]:
    db.expire_all()
    stmt = select(Notification).where(Notification.type == "task_due_soon").order_by(Notification.created_at,
                                                                                      Notification.title)
    if user is not None:
        stmt = stmt.where(Notification.user_id == user.id)
    if task is not None:
        stmt = stmt.where(Notification.resource_id == task.id)
    return db.scalars(stmt).all()


def _run():
    from chalicelib.areas.tasks.jobs import due_soon

    return due_soon()


def _age_notices(db, minutes=10):
    """Core notify folds a notice into one of the same user, type and resource within 5 minutes (document 3): make
    the notices sent so far older than that, as an hour between two runs would."""
    db.execute(update(Notification).values(created_at=utcnow() - timedelta(minutes=minutes)))
    db.flush()


def _due(db):
    """Tasks around the window: two due soon (today, tomorrow), the others not."""
    ann, bob, cid = make_user(db), make_user(db), make_user(db)
    today = org_today()
    todo, done = status(db, "todo").id, status(db, "done").id
    tasks = {
        "today": make_task(db, title="Send the invoice", assignee_id=ann.id, due_date=today, status_id=todo),
        "tomorrow": make_task(db, title="Book the venue", assignee_id=bob.id, due_date=today + timedelta(days=1)),
        "later": make_task(db, title="Later", assignee_id=cid.id, due_date=today + timedelta(days=2)),
        "overdue": make_task(db, title="Overdue", assignee_id=cid.id, due_date=today - timedelta(days=1)),
        "unassigned": make_task(db, title="Nobody's", due_date=today),
        "done": make_task(db, title="Finished", assignee_id=cid.id, due_date=today, status_id=done),
        "undated": make_task(db, title="Whenever", assignee_id=cid.id),
    }
    return (ann, bob, cid), tasks


def test_due_soon_through_the_scheduled_handler(api, db, client):
    (ann, bob, cid), tasks = _due(db)
    event = client.events.generate_cw_event(source="aws.events", detail_type="Scheduled Event", detail={},
                                            resources=[])
    assert client.lambda_.invoke("task_due_soon", event).payload == {"noticed": 2}
    assert client.lambda_.invoke("task_due_soon", event).payload == {"noticed": 0}
    [to_ann], [to_bob] = _told(db, ann), _told(db, bob)
    assert _told(db, cid) == []
    assert (to_ann.title, to_ann.resource_type, to_ann.resource_id, to_ann.action_url) == (
        "Due today: Send the invoice", "task", tasks["today"].id, f"/tasks/{tasks['today'].id}")
    assert (to_bob.title, to_bob.resource_id, to_bob.action_url) == (
        "Due tomorrow: Book the venue", tasks["tomorrow"].id, f"/tasks/{tasks['tomorrow'].id}")
    # an hour later: still due soon, already told
    _age_notices(db)
    assert client.lambda_.invoke("task_due_soon", event).payload == {"noticed": 0}
    assert len(_told(db)) == 2
    # the assignee sees it through the notifications API
    listed = api.get("/api/notifications", as_=ann).json["notifications"]
    assert [n["title"] for n in listed if n["type"] == "task_due_soon"] == ["Due today: Send the invoice"]


def test_due_soon_through_the_cli(db, capsys):
    from chalicelib import cli

    (ann, _, _), _ = _due(db)
    capsys.readouterr()
    assert cli.main(["job", "--list"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("task-due-soon")]
    assert len(listed) == 1 and "rate(1 hour)" in listed[0], listed
    assert cli.main(["job", "task-due-soon"]) == 0
    assert json.loads(capsys.readouterr().out) == {"noticed": 2}
    assert cli.main(["job", "task-due-soon"]) == 0
    assert json.loads(capsys.readouterr().out) == {"noticed": 0}
    assert len(_told(db, ann)) == 1


def test_a_run_with_nothing_due_answers_zero(db):
    assert _run() == {"noticed": 0}
    make_task(db, title="Later", assignee_id=make_user(db).id, due_date=org_today() + timedelta(days=3))
    assert _run() == {"noticed": 0}
    assert _told(db) == []


def test_a_completed_or_deleted_task_is_not_told(api, db, exec_user):
    ann = make_user(db)
    today = org_today()
    finished = make_task(db, title="Finished", assignee_id=ann.id, due_date=today, status_id=status(db, "todo").id)
    gone = make_task(db, title="Gone", assignee_id=ann.id, due_date=today)
    assert api.put(f"/api/tasks/{finished.id}", as_=exec_user, json={"status_id": status(db, "done").id}).status == 200
    assert api.delete(f"/api/tasks/{gone.id}", as_=exec_user).status == 200
    assert _run() == {"noticed": 0}
    assert _told(db, ann) == []
    # reopened while still due: told
    assert api.put(f"/api/tasks/{finished.id}", as_=exec_user,
                   json={"status_id": status(db, "in_progress").id}).status == 200
    assert _run() == {"noticed": 1}
    assert [n.title for n in _told(db, ann)] == ["Due today: Finished"]


def test_a_task_without_a_status_is_open(db):
    ann = make_user(db)
    make_task(db, title="No status", assignee_id=ann.id, due_date=org_today(), status_id=None)
    assert _run() == {"noticed": 1}
    assert [n.title for n in _told(db, ann)] == ["Due today: No status"]


def test_today_and_tomorrow_are_the_organisations(db, set_env):
    """Across the date line the days differ: Kiritimati (UTC+14) is a day or two ahead of Pago Pago (UTC-11)."""
    ann = make_user(db)
    set_env(ORG_TIMEZONE="Pacific/Kiritimati")
    ahead = org_today()
    set_env(ORG_TIMEZONE="Pacific/Pago_Pago")
    behind = org_today()
    assert ahead > behind
    make_task(db, title="Call back", assignee_id=ann.id, due_date=behind)
    set_env(ORG_TIMEZONE="Pacific/Kiritimati")
    assert _run() == {"noticed": 0}  # already past there
    set_env(ORG_TIMEZONE="Pacific/Pago_Pago")
    assert _run() == {"noticed": 1}
    assert [n.title for n in _told(db, ann)] == ["Due today: Call back"]


def test_a_new_due_date_or_assignee_is_told_again(api, db, exec_user):
    ann, bob = make_user(db), make_user(db)
    today = org_today()
    task = make_task(db, title="Draft", assignee_id=ann.id, due_date=today + timedelta(days=1))
    assert _run() == {"noticed": 1}
    _age_notices(db)
    # moved to today: told again, for the new date
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"due_date": today.isoformat()}).status == 200
    assert _run() == {"noticed": 1}
    assert [n.title for n in _told(db, ann)] == ["Due tomorrow: Draft", "Due today: Draft"]
    assert _run() == {"noticed": 0}
    _age_notices(db)
    # handed to Bob: Bob is told; Ann is not told again
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"assignee_id": bob.id}).status == 200
    assert _run() == {"noticed": 1}
    assert [n.title for n in _told(db, bob)] == ["Due today: Draft"]
    assert len(_told(db, ann)) == 2
    _age_notices(db)
    # and back to Ann: a new assignment, told again
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"assignee_id": ann.id}).status == 200
    assert _run() == {"noticed": 1}
    assert len(_told(db, ann)) == 3
    # a change that is neither the due date nor the assignee tells nobody
    assert api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"title": "Draft 2"}).status == 200
    assert _run() == {"noticed": 0}


def test_only_an_active_assignee_who_may_read_the_task_is_told(api, db, exec_user):
    """An assignee always has their task in scope (`visible`: the tasks they are assigned to); what is left to
    check is that they are active and have `tasks:view`. One who is not is told nothing, and is told once that
    changes while the task is still due soon."""
    blocked, leaving, plain = make_user(db), make_user(db), make_user(db, access_level="employee")
    grant(db, blocked, "tasks", "none")
    leaving.is_active = False
    db.flush()
    today = org_today()
    hidden = make_task(db, title="Secret merger plan", assignee_id=blocked.id, due_date=today,
                       created_by=exec_user.id, reporter_id=exec_user.id)
    make_task(db, title="Left behind", assignee_id=leaving.id, due_date=today)
    own = make_task(db, title="Employee's own", assignee_id=plain.id, due_date=today, created_by=exec_user.id,
                    reporter_id=exec_user.id, is_private=True)
    # session 25: the blocked assignee's task goes to its reporter instead (test_due_soon_fallback_s25.py)
    assert _run() == {"noticed": 2}
    assert [n.title for n in _told(db, exec_user)] == ["Due today, its assignee cannot be told: Secret merger plan"]
    assert [n.title for n in _told(db, plain)] == ["Due today: Employee's own"]
    assert api.get(f"/api/tasks/{own.id}", as_=plain).status == 200  # indeed reads it
    assert _told(db, blocked) == [] and _told(db, leaving) == []
    assert api.get(f"/api/tasks/{hidden.id}", as_=blocked).status in (403, 404)  # indeed cannot read it
    # given access while the task is still due: told then
    grant(db, blocked, "tasks", "view")
    leaving.is_active = True
    db.flush()
    assert _run() == {"noticed": 2}
    assert [n.title for n in _told(db, blocked)] == ["Due today: Secret merger plan"]
    assert [n.title for n in _told(db, leaving)] == ["Due today: Left behind"]


def test_the_notice_is_not_in_the_task_read_model_and_a_duplicate_is_told_on_its_own(api, db, exec_user):
    ann = make_user(db)
    task = make_task(db, title="Plan", assignee_id=ann.id, due_date=org_today() + timedelta(days=1))
    assert _run() == {"noticed": 1}
    read = api.get(f"/api/tasks/{task.id}", as_=exec_user).json["task"]
    assert not [key for key in read if key.startswith("due_soon")]
    listed = api.get("/api/tasks", as_=exec_user).json["tasks"]
    assert [t["id"] for t in listed] == [task.id] and not [key for key in listed[0] if key.startswith("due_soon")]
    copy = api.post(f"/api/tasks/{task.id}/duplicate", as_=exec_user)
    assert copy.status == 201, copy
    assert not [key for key in copy.json["task"] if key.startswith("due_soon")]
    assert _run() == {"noticed": 1}
    assert [n.resource_id for n in _told(db, ann)] == [task.id, copy.json["task"]["id"]]


def test_a_long_title_keeps_when_it_is_due(db):
    ann = make_user(db)
    make_task(db, title="x" * 500, assignee_id=ann.id, due_date=org_today())
    assert _run() == {"noticed": 1}
    [notice] = _told(db, ann)
    assert notice.title.startswith("Due today: xxx") and len(notice.title) == 500


def test_the_job_costs_the_same_for_3_and_40_tasks(db, count_queries, aws):
    """With the notifications queue configured (as deployed), so that delivery is not counted: the due tasks (locked),
    the assignees' permissions, the marker's UPDATE, core notify's claim of its keys, its read and its write (on
    SQLite core notify claims nothing, its read is three statements and its write two); a run with nothing new to
    tell reads the due tasks only."""
    today, todo = org_today(), status(db, "todo").id
    counts, told = [], 0
    for size in (3, 40):
        tasks = [make_task(db, title=f"T{n}", assignee_id=make_user(db).id, due_date=today + timedelta(days=n % 2),
                           status_id=todo) for n in range(size)]
        with count_queries() as counted:
            assert _run() == {"noticed": size}
        counts.append(counted.count)
        told += size
        assert len(_told(db)) == told and {n.resource_id for n in _told(db)} >= {task.id for task in tasks}
    expected = 6 if db.get_bind().dialect.name == "postgresql" else 8
    assert counts == [expected, expected], counts
    with count_queries() as again:
        assert _run() == {"noticed": 0}
    assert again.count == 1, again.statements


# ---------------------------------------------------------------- session 23: batches and a time budget

def _many_due(db, size):
    today, todo = org_today(), status(db, "todo").id
    return [make_task(db, title=f"B{n}", assignee_id=make_user(db).id, due_date=today + timedelta(days=n % 2),
                      status_id=todo) for n in range(size)]


def _reads(statements) -> list[str]:
    """The due-task reads among the statements: one per batch (locked FOR UPDATE on Postgres; SQLite has no row
    locks, its read is the SELECT of tasks, s27)."""
    if os.environ.get("WMS_TEST_DB") == "sqlite":
        return [s for s in statements if s.lstrip().startswith("SELECT tasks.id") and "FROM tasks" in s]
    return [s for s in statements if "FOR UPDATE" in s.upper() and "FROM tasks" in s]


def test_two_and_a_half_batches_run_as_three_each_task_told_once(db, count_queries, aws):
    """Session 23: the job reads at most `batch` due tasks at a time (core notify claims at most CLAIM_MOST keys a
    call), each batch in a transaction of its own, until a batch is short; a task whose assignee is not told is not
    read again by the next batch of the run."""
    from chalicelib.areas.tasks.jobs import due_soon

    tasks = _many_due(db, 10)
    blocked = make_user(db)
    grant(db, blocked, "tasks", "none")
    make_task(db, title="Not for them", assignee_id=blocked.id, due_date=org_today())  # read, never told
    with count_queries() as counted:
        assert due_soon(batch=4) == {"noticed": 10}
    assert len(_reads(counted.statements)) == 3, counted.statements  # 4 + 4 + 3 (the 11th read is not told)
    expected = 6 if db.get_bind().dialect.name == "postgresql" else 8
    assert counted.count == 3 * expected, counted.statements
    told = _told(db)
    assert sorted(n.resource_id for n in told) == sorted(task.id for task in tasks)  # each once
    _age_notices(db)
    with count_queries() as again:
        assert due_soon(batch=4) == {"noticed": 0}
    assert len(_reads(again.statements)) == 1, again.statements  # one short batch: the untold task only
    assert len(_told(db)) == 10


def test_a_run_out_of_time_says_more_and_the_next_run_goes_on(db, monkeypatch):
    from chalicelib.areas.tasks.jobs import due_soon
    from chalicelib.core import timeutil

    now = {"t": 1000.0}
    monkeypatch.setattr(timeutil, "clock", lambda: now["t"])
    from chalicelib.areas.tasks import service_due

    batch = service_due.notify_due_soon

    def slow(ctx, **kwargs):
        answer = batch(ctx, **kwargs)
        now["t"] += 1000  # a batch takes longer than the budget
        return answer

    monkeypatch.setattr(service_due, "notify_due_soon", slow)
    _many_due(db, 10)
    assert due_soon(batch=4) == {"noticed": 4, "more": True}
    assert len(_told(db)) == 4
    assert due_soon(batch=4) == {"noticed": 4, "more": True}
    assert due_soon(batch=4) == {"noticed": 2}
    assert len({n.resource_id for n in _told(db)}) == 10 and len(_told(db)) == 10


def test_a_batch_is_within_core_notifys_claim_and_the_budget_within_the_timeout():
    import json as jsonlib
    from pathlib import Path

    from chalicelib.areas.tasks import jobs
    from chalicelib.core.notify import CLAIM_MOST

    assert jobs.DUE_SOON_BATCH <= CLAIM_MOST
    areas = jsonlib.loads((Path(__file__).parents[3] / "infra" / "areas.json").read_text())
    timeout = areas["areas"]["tasks"].get("jobs", areas["defaults"]["jobs"])["timeout"]
    assert jobs.DUE_SOON_SECONDS <= timeout / 2
