"""A task status whose `stage_type` is "done" written another way (session 32, "the same thing written two ways"
audit).

`stage_type` is a free string on config list items (docs/decisions/config_lists.md); a task is open unless its
status's stage type is `done`. An administrator's status "Shipped" with stage type "Done" (or " done", which is not
trimmed) was compared exactly, so its tasks counted as open: listed as overdue, and counted open in the portal's
project counts. The stage type is now compared ignoring case and surrounding spaces, as staff would read it."""
from datetime import timedelta

from chalicelib.core.timeutil import org_today
from tests.areas.tasks.factories import make_task


def _status(api, user, label, stage_type):
    made = api.post("/api/config-lists/task_status/items", as_=user,
                    json={"label": label, "value": label.lower(), "stage_type": stage_type})
    assert made.status == 201, made.json
    assert made.json["item"]["stage_type"] == stage_type  # kept as written
    return made.json["item"]["id"]


def test_a_done_stage_in_another_case_is_done(api, db, exec_user):
    late = org_today() - timedelta(days=2)
    shipped = make_task(db, title="shipped", due_date=late, status_id=_status(api, exec_user, "Shipped", "Done"))
    closed = make_task(db, title="closed", due_date=late, status_id=_status(api, exec_user, "Closed", " done "))
    still = make_task(db, title="still open", due_date=late)
    answer = api.get("/api/tasks?due=overdue", as_=exec_user)
    assert answer.status == 200, answer.json
    overdue = {task["id"] for task in answer.json["tasks"]}
    assert still.id in overdue
    assert not overdue & {shipped.id, closed.id}
