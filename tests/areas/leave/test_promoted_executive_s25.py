"""Session 25: a user made an executive (promoted, or an executive reactivated) through the admin user route now
decides the leave waiting on the executives (`pending_exec`, and the first step of requesters whom no squad
manager approves: `queries.awaiting`), and is told `leave_requested` for each of those requests but their own, in
a fixed number of statements. A demotion tells nobody and leaves the requests to the other executives
(docs/decisions/leave.md)."""
from datetime import date, timedelta

from sqlalchemy import select

from chalicelib.areas.leave.models import LeaveRequest
from chalicelib.core.notify import Notification
from tests.factories import make_squad, make_user

from .factories import make_leave


def _notified(db, user, type="leave_requested"):
    db.expire_all()
    return db.scalars(select(Notification.resource_id).where(Notification.user_id == user.id,
                                                             Notification.type == type)).all()


def _promote(api, actor, user, **extra):
    done = api.put(f"/api/admin/users/{user.id}", as_=actor, json={"access_level": "executive", **extra})
    assert done.status == 200, done
    return done


def test_a_promoted_manager_is_told_of_the_leave_waiting_on_the_executives(api, db, exec_user):
    squad_boss = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=squad_boss.id)
    eve = make_user(db, squad_id=squad.id)
    waiting = make_leave(db, eve, status="pending_exec").id
    promoted = make_user(db, access_level="manager")
    assert api.get("/api/leave/pending-count", as_=promoted).json == {"count": 0}
    _promote(api, exec_user, promoted)
    assert _notified(db, promoted) == [waiting]
    assert _notified(db, exec_user) == []  # the actor is told nothing
    assert api.get("/api/leave/pending-count", as_=promoted).json == {"count": 1}
    assert api.post(f"/api/leave/requests/{waiting}/approve", as_=promoted).status == 200


def test_the_promoted_users_own_request_is_not_told_to_them(api, db, exec_user):
    promoted = make_user(db, access_level="manager")
    own = api.post("/api/leave/requests", as_=promoted, json={
        "leave_type_id": "annual", "leave_type_name": "Annual Leave", "start_date": "2026-12-01",
        "end_date": "2026-12-03", "total_hours": 22.8})
    assert own.status == 201, own
    own_id = own.json["request"]["id"]
    assert own.json["request"]["status"] == "pending_exec"
    other = make_leave(db, make_user(db), status="pending_exec", start_date=date(2026, 12, 7),
                       end_date=date(2026, 12, 7)).id
    _promote(api, exec_user, promoted)
    assert _notified(db, promoted) == [other]
    assert own_id not in _notified(db, promoted)


def test_a_first_step_no_squad_manager_decides_is_told_too(api, db, exec_user):
    """The executives decide the first step of a requester with no squad manager (`queries.awaiting`)."""
    promoted = make_user(db, access_level="manager")
    managed = make_squad(db, manager_id=make_user(db, access_level="manager").id)
    unmanaged = make_leave(db, make_user(db)).id  # no squad
    leaderless = make_leave(db, make_user(db, squad_id=make_squad(db).id)).id
    with_manager = make_leave(db, make_user(db, squad_id=managed.id)).id
    _promote(api, exec_user, promoted)
    assert sorted(_notified(db, promoted)) == sorted([unmanaged, leaderless])
    assert with_manager not in _notified(db, promoted)


def test_a_promotion_with_nothing_waiting_tells_nothing(api, db, exec_user):
    promoted = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=make_user(db, access_level="manager").id)
    make_leave(db, make_user(db, squad_id=squad.id))  # first step, its squad manager decides
    make_leave(db, make_user(db), status="approved", start_date=date(2026, 12, 7), end_date=date(2026, 12, 7))
    _promote(api, exec_user, promoted)
    assert _notified(db, promoted) == []


def test_an_update_of_an_executive_that_keeps_them_one_tells_nothing(api, db, exec_user):
    other_exec = make_user(db, access_level="executive")
    make_leave(db, make_user(db), status="pending_exec")
    assert api.put(f"/api/admin/users/{other_exec.id}", as_=exec_user,
                   json={"access_level": "executive", "name": "Still Exec"}).status == 200
    assert _notified(db, other_exec) == []


def test_a_promoted_inactive_user_is_told_nothing_and_told_on_reactivation(api, db, exec_user):
    promoted = make_user(db, access_level="manager", is_active=False)
    waiting = make_leave(db, make_user(db), status="pending_exec").id
    _promote(api, exec_user, promoted)
    assert _notified(db, promoted) == []
    assert api.put(f"/api/admin/users/{promoted.id}", as_=exec_user, json={"is_active": True}).status == 200
    assert _notified(db, promoted) == [waiting]


def test_a_demoted_executive_is_told_nothing_and_decides_nothing(api, db, exec_user):
    demoted = make_user(db, access_level="executive")
    waiting = make_leave(db, make_user(db), status="pending_exec").id
    assert api.get("/api/leave/pending-count", as_=demoted).json == {"count": 1}
    done = api.put(f"/api/admin/users/{demoted.id}", as_=exec_user, json={"access_level": "manager"})
    assert done.status == 200, done
    assert _notified(db, demoted) == [] and _notified(db, exec_user) == []
    assert api.get("/api/leave/pending-count", as_=demoted).json == {"count": 0}
    # a manager no longer sees another squad's request: not found, as for any request out of scope
    assert api.post(f"/api/leave/requests/{waiting}/approve", as_=demoted).status == 404
    assert api.post(f"/api/leave/requests/{waiting}/approve", as_=exec_user).status == 200


def test_the_notices_cost_a_fixed_number_of_statements(api, db, exec_user, count_queries, aws):
    """A promotion with 1 and with 6 requests waiting: the same statements (the notifications queue configured,
    as deployed, so that delivery is not counted)."""
    counts = []
    for total in (1, 6):
        promoted = make_user(db, access_level="manager")
        made = [make_leave(db, make_user(db), status="pending_exec", start_date=date(2026, 12, 1) + timedelta(days=i),
                           end_date=date(2026, 12, 1) + timedelta(days=i)).id for i in range(total)]
        db.refresh(exec_user)  # loaded here, not in the count (the last round's check expired it)
        with count_queries() as counter:
            _promote(api, exec_user, promoted)
        assert sorted(_notified(db, promoted)) == sorted(made)
        db.query(LeaveRequest).filter(LeaveRequest.id.in_(made)).update({"status": "rejected"})  # out of round 2
        counts.append(counter.count)
    assert counts[0] == counts[1], counts


def test_a_user_created_as_an_executive_is_told_too(api, db, exec_user):
    """Review of session 25: POST /api/admin/users with access_level executive made a decider of the waiting leave
    who was never told of it, as a promotion had been."""
    from sqlalchemy import select

    from chalicelib.core.notify import Notification
    from tests.areas.leave.factories import make_leave
    from tests.factories import make_user

    waiting = make_leave(db, make_user(db), status="pending_exec").id
    made = api.post("/api/admin/users", as_=exec_user, json={"email": "new.exec.s25@agency.test", "name": "New Exec",
                                                             "access_level": "executive"})
    assert made.status == 201, made.json
    new_id = made.json["user"]["id"]
    db.expire_all()
    told = db.scalars(select(Notification.resource_id).where(Notification.user_id == new_id,
                                                             Notification.type == "leave_requested")).all()
    assert told == [waiting]
    employee = api.post("/api/admin/users", as_=exec_user, json={"email": "new.emp.s25@agency.test", "name": "Emp"})
    assert employee.status == 201
    assert db.scalars(select(Notification.id).where(Notification.user_id == employee.json["user"]["id"])).all() == []
