"""A task is not due before it starts (session 28's dates audit): projects, roadmaps and their items, sprints, leave
and invoices refuse an end before their start with a 400 naming the field, and a task took start_date 2026-12-20
with due_date 2026-12-01, on create and on update, which every planning view then drew backwards."""
from datetime import date

from tests.areas.tasks.factories import make_task


def test_a_create_with_the_due_date_before_the_start_is_refused(api, db, exec_user):
    answer = api.post("/api/tasks", as_=exec_user, json={"title": "Backwards", "start_date": "2026-12-20",
                                                         "due_date": "2026-12-01"})
    assert answer.status == 400, answer
    assert answer.json["details"] == [{"field": "due_date", "message": "must not be before start_date"}]


def test_a_create_due_on_its_start_day_is_taken(api, db, exec_user):
    answer = api.post("/api/tasks", as_=exec_user, json={"title": "One day", "start_date": "2026-12-01",
                                                         "due_date": "2026-12-01"})
    assert answer.status == 201, answer


def test_an_update_moving_the_due_date_before_the_stored_start_is_refused(api, db, exec_user):
    task = make_task(db, title="Planned", reporter_id=exec_user.id, created_by=exec_user.id,
                     start_date=date(2026, 12, 10), due_date=date(2026, 12, 20))
    answer = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"due_date": "2026-12-01"})
    assert answer.status == 400, answer
    assert answer.json["details"] == [{"field": "due_date", "message": "must not be before start_date"}]
    assert api.get(f"/api/tasks/{task.id}", as_=exec_user).json["task"]["due_date"] == "2026-12-20"


def test_an_update_moving_the_start_after_the_stored_due_date_is_refused(api, db, exec_user):
    task = make_task(db, title="Planned", reporter_id=exec_user.id, created_by=exec_user.id,
                     start_date=date(2026, 12, 10), due_date=date(2026, 12, 20))
    answer = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"start_date": "2026-12-21"})
    assert answer.status == 400, answer
    assert answer.json["details"] == [{"field": "start_date", "message": "must not be after due_date"}]


def test_moving_both_dates_together_is_taken(api, db, exec_user):
    task = make_task(db, title="Planned", reporter_id=exec_user.id, created_by=exec_user.id,
                     start_date=date(2026, 12, 10), due_date=date(2026, 12, 20))
    answer = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"start_date": "2027-01-05",
                                                                    "due_date": "2027-01-09"})
    assert answer.status == 200, answer
    assert (answer.json["task"]["start_date"], answer.json["task"]["due_date"]) == ("2027-01-05", "2027-01-09")


def test_a_backwards_task_stored_before_is_saved_back_whole(api, db, exec_user):
    """A task stored backwards before this rule keeps saving: dates sent back as stored are not checked again."""
    task = make_task(db, title="Old", reporter_id=exec_user.id, created_by=exec_user.id,
                     start_date=date(2026, 12, 20), due_date=date(2026, 12, 1))
    answer = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={"title": "Old, renamed", "start_date": "2026-12-20",
                                                                    "due_date": "2026-12-01"})
    assert answer.status == 200, answer
