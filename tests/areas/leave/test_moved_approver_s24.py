"""Session 24 (records moved between parents): an admin write that changes who decides the first step of a
user's pending leave (the user moved to another squad, the squad's manager changed or removed, the squad deleted,
the squad's manager deactivated) tells the new approver(s) `leave_requested` for those requests, in a fixed
number of statements. The old approver's notice stays (docs/decisions/leave.md)."""
from datetime import date, timedelta

from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.factories import make_squad, make_user

from .factories import make_leave

BODY = {"leave_type_id": "annual", "leave_type_name": "Annual Leave", "start_date": "2026-12-01",
        "end_date": "2026-12-03", "total_hours": 22.8}


def _notified(db, user, type="leave_requested"):
    db.expire_all()
    return db.scalars(select(Notification.resource_id).where(Notification.user_id == user.id,
                                                             Notification.type == type)).all()


def _team(db):
    first_manager = make_user(db, access_level="manager")
    second_manager = make_user(db, access_level="manager")
    first = make_squad(db, manager_id=first_manager.id)
    second = make_squad(db, manager_id=second_manager.id)
    return first_manager, second_manager, first, second


def _submit(api, user) -> str:
    made = api.post("/api/leave/requests", as_=user, json=BODY)
    assert made.status == 201, made
    return made.json["request"]["id"]


def test_a_user_moved_to_another_squad_tells_its_manager(api, db, exec_user):
    first_manager, second_manager, first, second = _team(db)
    eve = make_user(db, squad_id=first.id)
    request_id = _submit(api, eve)
    assert _notified(db, first_manager) == [request_id]
    moved = api.put(f"/api/admin/users/{eve.id}", as_=exec_user, json={"squad_id": second.id})
    assert moved.status == 200, moved
    assert api.get("/api/leave/pending-count", as_=first_manager).json == {"count": 0}
    assert api.get("/api/leave/pending-count", as_=second_manager).json == {"count": 1}
    assert _notified(db, second_manager) == [request_id]
    assert _notified(db, first_manager) == [request_id]  # the old notice stays; nothing new
    assert api.post(f"/api/leave/requests/{request_id}/approve", as_=first_manager).status == 404
    # the second manager decides it
    assert api.post(f"/api/leave/requests/{request_id}/approve", as_=second_manager).status == 200


def test_a_user_moved_into_a_squad_without_manager_tells_the_executives(api, db, exec_user):
    _, _, first, _ = _team(db)
    other_exec = make_user(db, access_level="executive")
    leaderless = make_squad(db)
    eve = make_user(db, squad_id=first.id)
    request_id = _submit(api, eve)
    assert _notified(db, other_exec) == []
    assert api.put(f"/api/admin/users/{eve.id}", as_=exec_user, json={"squad_id": leaderless.id}).status == 200
    assert _notified(db, other_exec) == [request_id]
    assert _notified(db, exec_user) == []  # the actor is left out, as in every leave notice
    assert api.get("/api/leave/pending-count", as_=other_exec).json == {"count": 1}


def test_a_user_whose_squad_is_cleared_goes_to_the_executives(api, db, exec_user):
    _, _, first, _ = _team(db)
    other_exec = make_user(db, access_level="executive")
    eve = make_user(db, squad_id=first.id)
    request_id = _submit(api, eve)
    assert api.put(f"/api/admin/users/{eve.id}", as_=exec_user, json={"squad_id": ""}).status == 200
    assert _notified(db, other_exec) == [request_id]


def test_a_squads_new_manager_is_told(api, db, exec_user):
    first_manager, second_manager, first, _ = _team(db)
    eve, tom = make_user(db, squad_id=first.id), make_user(db, squad_id=first.id)
    eve_request, tom_request = _submit(api, eve), _submit(api, tom)
    changed = api.put(f"/api/admin/squads/{first.id}", as_=exec_user, json={"manager_id": second_manager.id})
    assert changed.status == 200, changed
    assert sorted(_notified(db, second_manager)) == sorted([eve_request, tom_request])
    assert api.get("/api/leave/pending-count", as_=second_manager).json == {"count": 2}
    assert sorted(_notified(db, first_manager)) == sorted([eve_request, tom_request])  # unchanged


def test_a_squads_manager_removed_or_the_squad_deleted_tells_the_executives(api, db, exec_user):
    _, _, first, second = _team(db)
    other_exec = make_user(db, access_level="executive")
    eve, tom = make_user(db, squad_id=first.id), make_user(db, squad_id=second.id)
    eve_request, tom_request = _submit(api, eve), _submit(api, tom)
    assert api.put(f"/api/admin/squads/{first.id}", as_=exec_user, json={"manager_id": None}).status == 200
    assert _notified(db, other_exec) == [eve_request]
    assert api.delete(f"/api/admin/squads/{second.id}", as_=exec_user).status == 200
    assert sorted(_notified(db, other_exec)) == sorted([eve_request, tom_request])


def test_a_deactivated_squad_manager_hands_the_requests_to_the_executives(api, db, exec_user):
    first_manager, _, first, _ = _team(db)
    other_exec = make_user(db, access_level="executive")
    eve = make_user(db, squad_id=first.id)
    request_id = _submit(api, eve)
    assert api.put(f"/api/admin/users/{first_manager.id}", as_=exec_user, json={"is_active": False}).status == 200
    assert _notified(db, other_exec) == [request_id]
    assert api.get("/api/leave/pending-count", as_=other_exec).json == {"count": 1}


def test_no_notice_when_the_approver_stays(api, db, exec_user):
    first_manager, second_manager, first, second = _team(db)
    other_exec = make_user(db, access_level="executive")
    same_manager = make_squad(db, manager_id=first_manager.id)
    eve = make_user(db, squad_id=first.id)
    request_id = _submit(api, eve)
    # the same manager's other squad; the same squad sent back; another field
    assert api.put(f"/api/admin/users/{eve.id}", as_=exec_user, json={"squad_id": same_manager.id}).status == 200
    assert api.put(f"/api/admin/users/{eve.id}", as_=exec_user,
                   json={"squad_id": same_manager.id, "name": "Eve"}).status == 200
    assert api.put(f"/api/admin/squads/{same_manager.id}", as_=exec_user,
                   json={"manager_id": first_manager.id, "name": "Renamed"}).status == 200
    assert _notified(db, first_manager) == [request_id]
    assert _notified(db, second_manager) == [] and _notified(db, other_exec) == []
    # a request at the second step waits on the executives whatever the squad: nobody new is told
    approved = api.post(f"/api/leave/requests/{request_id}/approve", as_=first_manager)
    assert approved.status == 200, approved
    assert _notified(db, other_exec) == [request_id]
    db.query(Notification).filter(Notification.resource_id == request_id).delete()  # no de-duplication below
    assert api.put(f"/api/admin/users/{eve.id}", as_=exec_user, json={"squad_id": second.id}).status == 200
    assert _notified(db, second_manager) == [] and _notified(db, other_exec) == []


def test_the_notices_cost_a_fixed_number_of_statements(api, db, exec_user, count_queries, aws):
    """A squad's manager changed with 1 and with 6 pending requests among its members: the same statements (the
    notifications queue configured, as deployed, so that delivery is not counted)."""
    counts = []
    for total in (1, 6):
        _, second_manager, first, _ = _team(db)
        members = [make_user(db, squad_id=first.id) for _ in range(total)]
        made = [make_leave(db, member, start_date=date(2026, 12, 1) + timedelta(days=i),
                           end_date=date(2026, 12, 1) + timedelta(days=i)).id for i, member in enumerate(members)]
        db.refresh(exec_user)  # loaded here, not in the count (the last round's check expired it)
        with count_queries() as counter:
            changed = api.put(f"/api/admin/squads/{first.id}", as_=exec_user, json={"manager_id": second_manager.id})
        assert changed.status == 200, changed
        assert sorted(_notified(db, second_manager)) == sorted(made)
        counts.append(counter.count)
    assert counts[0] == counts[1], counts
