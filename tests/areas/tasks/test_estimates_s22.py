"""Hours and a cost estimate of a task are never below zero (session 22's input audit: -5 hours was stored and
summed by every total of estimates); zero and positive values are kept."""
import pytest

from tests.areas.tasks.factories import make_task


@pytest.mark.parametrize("field", ["estimated_hours", "internal_hours", "estimate_compute_hours",
                                   "estimate_total_cost"])
def test_a_negative_estimate_is_a_400_naming_the_field_on_create_and_update(api, db, exec_user, field):
    made = api.post("/api/tasks", as_=exec_user, json={"title": "t", field: -5})
    assert made.status == 400 and field in str(made.json), made
    task = make_task(db, created_by=exec_user.id)
    updated = api.put(f"/api/tasks/{task.id}", as_=exec_user, json={field: -0.5})
    assert updated.status == 400 and field in str(updated.json), updated


def test_zero_and_positive_estimates_are_kept(api, exec_user):
    made = api.post("/api/tasks", as_=exec_user, json={"title": "t", "estimated_hours": 0, "internal_hours": 2.5,
                                                       "estimate_compute_hours": 1, "estimate_total_cost": 120.5})
    assert made.status == 201, made
    task = made.json["task"]
    assert (task["estimated_hours"], task["internal_hours"], task["estimate_total_cost"]) == (0, 2.5, 120.5)
