"""Agents: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The agent task list and stats are tested in test_agent_tasks.py."""
from chalicelib.areas.agents.queries import RECENT_RUNS
from tests.factories import make_user

from .factories import make_agent_task, make_run


def test_detail_runs(api, db, exec_user, count_queries):
    """The detail shows the RECENT_RUNS newest runs; when they are cut, runs_total costs one count statement (as a
    cut page does, docs/decisions/paging.md), whatever the number of runs beyond."""
    task, _ = make_agent_task(db, owner=exec_user)
    counts, done = {}, 0
    for total in (5, RECENT_RUNS - 1, RECENT_RUNS, 100):
        for _ in range(total - done):
            make_run(db, task, created_by=make_user(db).id)
        done = total
        with count_queries() as counter:
            answer = api.get(f"/api/agent-tasks/{task.id}", as_=exec_user)
        assert answer.status == 200, answer
        assert answer.json["runs_total"] == total and len(answer.json["runs"]) == min(total, RECENT_RUNS)
        counts[total] = counter.count
    assert counts[5] == counts[RECENT_RUNS - 1], counts
    assert counts[RECENT_RUNS] == counts[100] == counts[5] + 1, counts
