"""A write that locks its parent row (a whole-set replacement, a reorder, a create taking the next position or a
capped count) and waited for a delete of that parent answers 404, as after the delete; it read the row before the
delete committed, so it got past its load-or-404 (conformance audit: the checklist and the two link writes were
500s, `lock_row` answering None and the next line reading `task.id`). The area contract: `lock_row(...,
missing="Task")`. The same sweep gave `missing=` to every lock of the areas whose result was used unchecked; the
projects and roadmaps cases stand for those that wrote a child row (a 400 on its foreign key before)."""
import os
import threading
import time

import pytest
from sqlalchemy import delete, insert

from chalicelib.areas.budgets.models import Budget
from chalicelib.areas.projects.models import Project
from chalicelib.areas.roadmaps.models import Roadmap
from chalicelib.areas.tasks.models import Task, TaskResource

pytestmark = pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite",
                                reason="a delete holding its row lock while the request waits needs Postgres")


def _committed(engine, model, values: dict) -> str:
    """A row committed by another connection (naming no user, so the test's own uncommitted users do not matter)."""
    with engine.connect() as other:
        row_id = other.execute(insert(model).values(**values).returning(model.id)).scalar_one()
        if model is Task:
            other.execute(insert(TaskResource).values(task_id=row_id, url="https://example.com", title="Link",
                                                      icon="link", type="link", sort_order=0))
        other.commit()
    return row_id


def _while_deleted(engine, model, row_id, call):
    """Another transaction deletes the row and holds it; `call()` runs in a thread (its load still sees the row,
    then its row lock waits); the delete commits. Answers what `call()` answered."""
    locker = engine.connect()
    transaction = locker.begin()
    locker.execute(delete(model).where(model.id == row_id))
    answers = []
    worker = threading.Thread(target=lambda: answers.append(call()))
    worker.start()
    time.sleep(1.0)  # the request reads the row, then waits for its lock
    transaction.commit()
    locker.close()
    worker.join(30)
    assert answers, "the request did not finish"
    return answers[0]


CASES = {
    "task todos replaced": (Task, {"title": "Raced", "is_private": False},
                            lambda api, user, i: api.put(f"/api/tasks/{i}/todos", as_=user, json={"todos": [{"title": "one"}]})),
    "task link added": (Task, {"title": "Raced", "is_private": False},
                        lambda api, user, i: api.post(f"/api/tasks/{i}/resources", as_=user,
                                                      json={"url": "https://figma.com/x", "title": "Design"})),
    "task links reordered": (Task, {"title": "Raced", "is_private": False},
                             lambda api, user, i: api.put(f"/api/tasks/{i}/resources/reorder", as_=user, json={"order": ["any"]})),
    "project goal added": (Project, {"name": "Raced"},
                           lambda api, user, i: api.post(f"/api/projects/{i}/goals", as_=user, json={"title": "Goal"})),
    "roadmap item added": (Roadmap, {"name": "Raced"},
                           lambda api, user, i: api.post(f"/api/roadmaps/{i}/items", as_=user, json={"title": "Item"})),
    "budget line added": (Budget, {"name": "Raced", "resource_type": "deal", "resource_id": "00000000-0000-4000-8000-0000000000aa"},
                          lambda api, user, i: api.post(f"/api/budgets/{i}/line-items", as_=user,
                                                        json={"description": "Design", "quantity": 1, "unit_price": 10})),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_write_that_waited_for_its_parents_delete_is_404(api, engine, exec_user, case):
    model, values, call = CASES[case]
    row_id = _committed(engine, model, values)
    answer = _while_deleted(engine, model, row_id, lambda: call(api, exec_user, row_id))
    assert answer.status == 404, answer
    assert answer.json["error"].endswith("not found"), answer.json
