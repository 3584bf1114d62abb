"""Session 18: moving a task under another costs the same statements whatever the depth of the new parent (the
check that the task is not moved under its own subtask walked up the parents one statement per level)."""
from tests.areas.tasks.factories import make_task


def _chain(db, depth):
    tasks = [make_task(db, title="Top")]
    for n in range(depth):
        tasks.append(make_task(db, title=f"Level {n + 1}", parent_task_id=tasks[-1].id))
    return tasks


def test_a_move_costs_the_same_statements_under_a_parent_3_and_40_levels_deep(api, db, exec_user, count_queries):
    counts = []
    for depth in (3, 40):
        chain = _chain(db, depth)
        moved = make_task(db, title="Moved")
        with count_queries() as counter:
            answer = api.put(f"/api/tasks/{moved.id}", as_=exec_user, json={"parent_task_id": chain[-1].id})
        assert answer.status == 200, answer
        counts.append(counter.count)
        # under its own subtask, at any depth: refused
        refused = api.put(f"/api/tasks/{chain[0].id}", as_=exec_user, json={"parent_task_id": chain[-1].id})
        assert refused.status == 400 and refused.json["details"][0]["field"] == "parent_task_id", refused
        assert api.put(f"/api/tasks/{chain[1].id}", as_=exec_user, json={"parent_task_id": moved.id}).status == 400
    assert counts[0] == counts[1], counts
