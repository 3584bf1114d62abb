"""A bare calendar date where a timestamp is due is a 400 (session 28's dates audit): `PUT /api/sla/tasks/:id` with
`created_at: "2030-01-01"` (a date picker's value) started the SLA at 2030-01-01T00:00:00Z, 11:00 in the
organisation's Sydney, so every deadline moved by the zone's offset. core.schemas.Timestamp now refuses it, as
CalendarDate refuses a timestamp where a date is due."""
from tests.areas.sla.test_task_sla import policy
from tests.areas.tasks.factories import make_task
from tests.factories import config_item


def test_a_bare_date_as_the_sla_start_is_refused(api, db, exec_user):
    gold = policy(db, rules=((2, 24),))
    task = make_task(db, priority_id=config_item(db, "task_priority", "high").id)
    answer = api.put(f"/api/sla/tasks/{task.id}", as_=exec_user, json={"policy_id": gold.id,
                                                                        "created_at": "2030-01-01"})
    assert answer.status == 400, answer
    assert answer.json["details"][0]["field"] == "created_at"
    assert "not a date" in answer.json["details"][0]["message"]


def test_a_timestamp_as_the_sla_start_is_taken(api, db, exec_user):
    gold = policy(db, rules=((2, 24),))
    task = make_task(db, priority_id=config_item(db, "task_priority", "high").id)
    answer = api.put(f"/api/sla/tasks/{task.id}", as_=exec_user, json={"policy_id": gold.id,
                                                                        "created_at": "2030-01-01T00:00:00+11:00"})
    assert answer.status == 200, answer
    assert answer.json["sla"]["created_at"] == "2029-12-31T13:00:00Z"
