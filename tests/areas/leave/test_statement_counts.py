"""Leave: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The request list is tested in test_requests.py."""
from chalicelib.core.locks import insert_rows
from chalicelib.core.models import HistoryEntry
from tests.factories import make_user

from .factories import make_leave


def test_request_detail_history(api, db, exec_user, count_queries):
    request = make_leave(db, make_user(db))
    counts, done = [], 0
    for total in (5, 100):
        insert_rows(db, HistoryEntry, [{"entity_type": "leave_request", "entity_id": request.id, "action": "commented",
                                        "actor_id": make_user(db).id, "changes": {"comment": "ok"}}
                                       for _ in range(total - done)])
        done = total
        with count_queries() as counter:
            answer = api.get(f"/api/leave/requests/{request.id}", as_=exec_user)
        assert answer.status == 200, answer
        assert len(answer.json["history"]) == total
        counts.append(counter.count)
    assert all(h["actor_name"] for h in answer.json["history"])
    assert counts[0] == counts[1], counts
