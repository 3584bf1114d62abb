"""Leave: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The request list is tested in test_requests.py. Session 23: the types and the balances, each at its
stated number of statements."""

from chalicelib.areas.leave.models import LeaveBalance, LeaveType
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_rows
from chalicelib.core.models import HistoryEntry
from tests.factories import exact_statements, make_user

from .factories import make_leave, map_user


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



# the caller, the cache's age (fresh: no fetch), the rows
TYPES_STATEMENTS = 3
# the caller, the mapping, the cache's age and employee (fresh: no fetch), the rows
BALANCES_STATEMENTS = 4


def test_types(api, db, exec_user, count_queries):
    """Session 23: GET /api/leave/types answers the cache (younger than an hour) at a fixed cost."""
    db.query(LeaveType).delete()
    made = []

    def grow(n):
        start = len(made)
        made.extend(f"lt-{start + i + 1:03d}" for i in range(n))
        db.add_all([LeaveType(id=type_id, name=f"Type {type_id}", is_paid=True, fetched_at=utcnow())
                    for type_id in made[start:]])
        db.flush()

    body = exact_statements(count_queries, lambda: api.get("/api/leave/types", as_=exec_user), grow,
                            lambda b: len(b["types"]), (5, 100), TYPES_STATEMENTS)
    assert sorted(t["id"] for t in body["types"]) == made


def test_balances(api, db, exec_user, count_queries):
    """Session 23: GET /api/leave/balances answers the caller's cached rows (fresh, for the employee they are
    mapped to) at a fixed cost."""
    map_user(db, exec_user, ledger_id="EMP-0001")
    made = []

    def grow(n):
        start = len(made)
        made.extend(f"lt-{start + i + 1:03d}" for i in range(n))
        db.add_all([LeaveBalance(user_id=exec_user.id, leave_type_id=type_id, leave_type_name=f"Type {type_id}",
                                 balance_hours=8, fetched_at=utcnow(), ledger_employee_id="EMP-0001")
                    for type_id in made[start:]])
        db.flush()

    body = exact_statements(count_queries, lambda: api.get("/api/leave/balances", as_=exec_user), grow,
                            lambda b: len(b["balances"]), (5, 100), BALANCES_STATEMENTS)
    assert [b["leave_type_id"] for b in body["balances"]] == made  # by type name: "Type lt-001" ...
