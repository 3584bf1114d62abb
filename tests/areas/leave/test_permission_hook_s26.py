"""Session 26 (a permission change tells whoever now decides): a squad manager below update:leave leaves their
squad members' first steps to the executives (`queries.awaiting`). An admin's permission change that lowers a
squad manager's leave below update (their override, their access level's matrix cell, a change of access level)
tells the executives `leave_requested` for those pending first steps; one that raises it back tells the manager.
One read whatever the number of managers and requests, then notify_many (docs/decisions/leave.md)."""
from datetime import date, timedelta

from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.factories import make_user, set_access_level

from .factories import make_leave, set_leave_cell, set_leave_override, squad_team, submit_leave

TITLE = "Leave request from Eve Member: Sick Leave, 2026-12-01 to 2026-12-03"


def _told(db, user):
    db.expire_all()
    return [(n.resource_id, n.title, n.action_url) for n in db.scalars(
        select(Notification).where(Notification.user_id == user.id, Notification.type == "leave_requested")
        .order_by(Notification.created_at))]


def _full(request_id):
    return (request_id, TITLE, f"/leave/requests/{request_id}")


# ---------------------------------------------------------------- lowered: the executives are told


def test_a_squad_manager_lowered_by_override_tells_the_executives(api, db, exec_user):
    manager, _, eve = squad_team(db)
    other_exec = make_user(db, access_level="executive")
    request_id = submit_leave(api, eve)
    assert _told(db, manager) == [_full(request_id)]
    assert _told(db, other_exec) == []
    set_leave_override(api, exec_user, manager, "view")
    assert api.get("/api/leave/pending-count", as_=other_exec).json == {"count": 1}
    assert _told(db, other_exec) == [_full(request_id)]
    assert _told(db, exec_user) == []  # the actor is left out, as in every leave notice
    assert _told(db, manager) == [_full(request_id)]  # their old notice stays; nothing new


def test_a_squad_managers_matrix_cell_lowered_tells_the_executives(api, db, exec_user):
    manager, _, eve = squad_team(db)
    second_manager, _, tom = squad_team(db)
    other_exec = make_user(db, access_level="executive")
    eve_request, tom_request = submit_leave(api, eve), submit_leave(api, tom)
    set_leave_cell(api, exec_user, "manager", "none")
    assert sorted(r for r, *_ in _told(db, other_exec)) == sorted([eve_request, tom_request])
    assert _told(db, manager) == [_full(eve_request)]


def test_a_squad_manager_given_a_lower_access_level_tells_the_executives(api, db, exec_user):
    manager, _, eve = squad_team(db)
    other_exec = make_user(db, access_level="executive")
    set_leave_cell(api, exec_user, "lead", "view")
    request_id = submit_leave(api, eve)
    assert _told(db, other_exec) == []
    set_access_level(api, exec_user, manager, "lead")
    assert _told(db, other_exec) == [_full(request_id)]


def test_an_override_kept_by_the_manager_is_not_moved_by_the_matrix(api, db, exec_user):
    manager, _, eve = squad_team(db)
    other_exec = make_user(db, access_level="executive")
    set_leave_override(api, exec_user, manager, "update")
    request_id = submit_leave(api, eve)
    set_leave_cell(api, exec_user, "manager", "none")
    assert _told(db, other_exec) == []  # the manager still decides
    assert api.get("/api/leave/pending-count", as_=manager).json == {"count": 1}
    assert _told(db, manager) == [_full(request_id)]


def test_no_notice_for_a_deactivated_manager_nor_a_second_step_nor_the_managers_own_request(api, db, exec_user):
    other_exec = make_user(db, access_level="executive")
    # a deactivated squad manager: the executives decided already (told at the submit)
    gone, _, eve = squad_team(db)
    eve_request = submit_leave(api, eve)
    assert api.put(f"/api/admin/users/{gone.id}", as_=exec_user, json={"is_active": False}).status == 200
    assert _told(db, other_exec) == [_full(eve_request)]
    db.query(Notification).filter(Notification.resource_id == eve_request).delete()  # no de-duplication below
    # a request at the second step, and the manager's own request in their own squad
    manager, squad, tom = squad_team(db)
    tom_request = submit_leave(api, tom)
    assert api.post(f"/api/leave/requests/{tom_request}/approve", as_=manager).status == 200
    db.query(Notification).filter(Notification.resource_id == tom_request).delete()
    manager.squad_id = squad.id
    db.flush()
    own = make_leave(db, manager, start_date=date(2027, 1, 4), end_date=date(2027, 1, 5)).id
    set_leave_cell(api, exec_user, "manager", "view")
    assert _told(db, other_exec) == []
    pending = api.get("/api/leave/requests?tab=pending", as_=other_exec).json["requests"]
    assert sorted(r["id"] for r in pending) == sorted([eve_request, tom_request, own])


# ---------------------------------------------------------------- raised: the manager is told


def test_a_squad_manager_raised_back_by_override_is_told(api, db, exec_user):
    manager, _, eve = squad_team(db)
    other_exec = make_user(db, access_level="executive")
    set_leave_override(api, exec_user, manager, "view")
    request_id = submit_leave(api, eve)
    assert _told(db, manager) == [] and _told(db, other_exec) == [_full(request_id)]
    set_leave_override(api, exec_user, manager, None)  # back to the matrix's update
    assert api.get("/api/leave/pending-count", as_=manager).json == {"count": 1}
    assert _told(db, manager) == [_full(request_id)]
    assert _told(db, other_exec) == [_full(request_id)]  # their old notice stays


def test_a_squad_managers_matrix_cell_raised_back_tells_the_manager(api, db, exec_user):
    manager, _, eve = squad_team(db)
    set_leave_cell(api, exec_user, "manager", "none")
    request_id = submit_leave(api, eve)
    assert _told(db, manager) == []
    set_leave_cell(api, exec_user, "manager", "update")
    assert _told(db, manager) == [(request_id, TITLE, f"/leave/requests/{request_id}")]


def test_a_squad_manager_given_a_higher_access_level_is_told(api, db, exec_user):
    manager, _, eve = squad_team(db, access_level="lead")
    set_leave_cell(api, exec_user, "lead", "view")
    request_id = submit_leave(api, eve)
    assert _told(db, manager) == []
    set_access_level(api, exec_user, manager, "manager")
    assert _told(db, manager) == [_full(request_id)]


def test_a_manager_raised_from_none_to_view_only_is_told_nothing(api, db, exec_user):
    manager, _, eve = squad_team(db)
    other_exec = make_user(db, access_level="executive")
    set_leave_override(api, exec_user, manager, "none")
    request_id = submit_leave(api, eve)
    set_leave_override(api, exec_user, manager, "view")  # reads it, still cannot decide it
    assert _told(db, manager) == []
    assert _told(db, other_exec) == [_full(request_id)]


# ---------------------------------------------------------------- statements


def test_the_notices_cost_a_fixed_number_of_statements(api, db, exec_user, count_queries, aws):
    """A matrix cell lowered then raised with 1 and with 6 pending first steps among two squad managers' squads:
    the same statements each way (the notifications queue configured, as deployed, so that delivery is not
    counted)."""
    make_user(db, access_level="executive")
    counts = {"lowered": [], "raised": []}
    for total in (1, 6):
        teams = [squad_team(db), squad_team(db)]
        made = []
        for i in range(total):
            member = make_user(db, squad_id=teams[i % 2][1].id)
            made.append(make_leave(db, member, start_date=date(2026, 12, 1) + timedelta(days=i),
                                   end_date=date(2026, 12, 1) + timedelta(days=i)).id)
        db.query(Notification).delete()
        for way, level in (("lowered", "view"), ("raised", "update")):
            db.refresh(exec_user)  # loaded here, not in the count
            with count_queries() as counter:
                changed = api.put("/api/admin/permissions", as_=exec_user, json={"matrix": {"manager": {"leave": level}}})
            assert changed.status == 200, changed
            counts[way].append(counter.count)
        db.expire_all()
        told = db.scalars(select(Notification.resource_id).where(Notification.type == "leave_requested")).all()
        assert set(made) <= set(told)  # the second round also moves the first round's requests
        assert all(_told(db, manager) for manager, *_ in teams[:min(total, 2)])
        db.query(Notification).delete()
    assert counts["lowered"][0] == counts["lowered"][1], counts
    assert counts["raised"][0] == counts["raised"][1], counts
