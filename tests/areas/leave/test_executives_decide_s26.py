"""Session 26 (executives below update:leave): approving or rejecting leave requires update:leave, so an executive
whose effective leave level is below update (their override, or the executive level's matrix cell) does not decide
leave: the executives' part of `queries.awaiting` (pending tab and count), the executives told `leave_requested`
(`service._executive_ids`: a second step, a first step no squad manager decides) and `tell_new_executive` keep only
the executives holding update:leave. An executive who rises to update:leave by a permission change is told of the
requests waiting on the executives (`deciders_changed`, as `tell_new_executive`); one who falls below is simply no
longer listed nor told. A fixed number of statements (docs/decisions/leave.md)."""
from datetime import date, timedelta

from sqlalchemy import select, text

from chalicelib.core.notify import Notification
from tests.factories import make_squad, make_user

from .factories import make_leave, set_leave_cell, set_leave_override, submit_leave



def _store_executive_cell_below_update(db) -> None:
    """The executive level's leave cell stored at view, as a matrix save could before session 27 (since refused, 400:
    docs/decisions/admin.md), without the save's hooks (nothing waits yet, or the notices are cleared after)."""
    db.execute(text("INSERT INTO access_level_permissions (access_level, tool, level) VALUES ('executive', 'leave', "
                    "'view') ON CONFLICT (access_level, tool) DO UPDATE SET level = excluded.level"))


def _told(db, user) -> set[str]:
    db.expire_all()
    return set(db.scalars(select(Notification.resource_id).where(Notification.user_id == user.id,
                                                                 Notification.type == "leave_requested")))


def _count(api, user) -> int:
    return api.get("/api/leave/pending-count", as_=user).json["count"]


def _pending(api, user) -> set[str]:
    return {request["id"] for request in api.get("/api/leave/requests?tab=pending", as_=user).json["requests"]}


def _waiting(db):
    """A second step, a first step of a requester with no squad (the executives decide both), and a first step a
    squad manager decides (not the executives')."""
    second = make_leave(db, make_user(db, access_level="manager"), status="pending_exec").id
    unmanaged = make_leave(db, make_user(db), start_date=date(2026, 12, 8), end_date=date(2026, 12, 8)).id
    squad = make_squad(db, manager_id=make_user(db, access_level="manager").id)
    managed = make_leave(db, make_user(db, squad_id=squad.id), start_date=date(2026, 12, 9),
                         end_date=date(2026, 12, 9)).id
    return second, unmanaged, managed


# ---------------------------------------------------------------- below update: not listed, counted nor told


def test_an_executive_below_update_by_override_is_neither_listed_counted_nor_told(api, db, exec_user):
    lowered = make_user(db, access_level="executive")
    set_leave_override(api, exec_user, lowered, "view")
    first = submit_leave(api, make_user(db))  # no squad: the executives decide the first step
    second = submit_leave(api, make_user(db, access_level="manager"))  # pending_exec
    assert (_count(api, lowered), _pending(api, lowered)) == (0, set())
    assert api.post(f"/api/leave/requests/{first}/approve", as_=lowered).status == 403
    assert _told(db, lowered) == set()
    assert (_count(api, exec_user), _pending(api, exec_user)) == (2, {first, second})
    assert _told(db, exec_user) == {first, second}


def test_the_executive_cell_lowered_leaves_the_executives_who_keep_update(api, db, exec_user):
    keeper = make_user(db, access_level="executive")
    set_leave_override(api, exec_user, keeper, "update")  # their own override keeps them deciding
    lowered = make_user(db, access_level="executive")
    _store_executive_cell_below_update(db)
    first = submit_leave(api, make_user(db))
    second = submit_leave(api, make_user(db, access_level="manager"))
    assert (_count(api, lowered), _pending(api, lowered), _told(db, lowered)) == (0, set(), set())
    assert (_count(api, keeper), _pending(api, keeper), _told(db, keeper)) == (2, {first, second}, {first, second})
    assert _count(api, exec_user) == 0  # the actor's own level lowered too


def test_a_squad_managers_first_step_falls_back_only_to_executives_who_decide(api, db, exec_user):
    lowered = make_user(db, access_level="executive")
    set_leave_override(api, exec_user, lowered, "view")
    manager = make_user(db, access_level="manager")
    squad = make_squad(db, manager_id=manager.id)
    eve = make_user(db, squad_id=squad.id)
    before = submit_leave(api, eve)
    set_leave_override(api, exec_user, manager, "view")  # deciders_changed: the executives now decide `before`
    after = submit_leave(api, eve, start_date="2026-12-07", end_date="2026-12-07")  # _notify_next's fallback
    assert _told(db, lowered) == set()
    assert _pending(api, lowered) == set()
    assert _pending(api, exec_user) == {before, after}


def test_a_user_promoted_below_update_is_not_told(api, db, exec_user):
    _waiting(db)
    promoted = make_user(db, access_level="manager")
    set_leave_override(api, exec_user, promoted, "view")
    done = api.put(f"/api/admin/users/{promoted.id}", as_=exec_user, json={"access_level": "executive"})
    assert done.status == 200, done
    assert (_count(api, promoted), _told(db, promoted)) == (0, set())


# ---------------------------------------------------------------- rising to update: told of what waits on them


def test_an_executive_raised_by_override_is_told_of_the_leave_waiting_on_the_executives(api, db, exec_user):
    lowered = make_user(db, access_level="executive")
    set_leave_override(api, exec_user, lowered, "view")
    second, unmanaged, _ = _waiting(db)
    own = make_leave(db, lowered, status="pending_exec", start_date=date(2026, 12, 10),
                     end_date=date(2026, 12, 10)).id
    assert _told(db, lowered) == set()
    set_leave_override(api, exec_user, lowered, "update")
    assert _told(db, lowered) == {second, unmanaged}  # not the squad manager's step, not their own
    assert own not in _pending(api, lowered)
    assert _pending(api, lowered) == {second, unmanaged}
    assert _told(db, exec_user) == set()  # the actor is left out


def test_the_executive_cell_raised_tells_the_executives_it_moved(api, db, exec_user):
    keeper = make_user(db, access_level="executive")
    set_leave_override(api, exec_user, keeper, "update")
    lowered = make_user(db, access_level="executive")
    _store_executive_cell_below_update(db)
    second, unmanaged, _ = _waiting(db)
    set_leave_cell(api, exec_user, "executive", "update")
    assert _told(db, lowered) == {second, unmanaged}
    assert _told(db, keeper) == set()  # the cell did not move them (their override)
    assert _told(db, exec_user) == set()


def test_an_executive_lowered_tells_nobody(api, db, exec_user):
    other = make_user(db, access_level="executive")
    lowered = make_user(db, access_level="executive")
    _waiting(db)
    set_leave_override(api, exec_user, lowered, "view")
    db.expire_all()
    assert db.scalar(select(Notification.id).where(Notification.type == "leave_requested")) is None
    assert _count(api, other) == 2


def test_an_executive_squad_manager_raised_is_told_of_both(api, db, exec_user):
    """An executive who manages a squad: their squad's first steps (the manager part) and what waits on the
    executives (the executive part), each once."""
    boss = make_user(db, access_level="executive")
    squad = make_squad(db, manager_id=boss.id)
    set_leave_override(api, exec_user, boss, "view")
    mine = make_leave(db, make_user(db, squad_id=squad.id), start_date=date(2026, 12, 11),
                      end_date=date(2026, 12, 11)).id
    second, unmanaged, _ = _waiting(db)
    set_leave_override(api, exec_user, boss, "update")
    assert _told(db, boss) == {mine, second, unmanaged}
    db.expire_all()
    assert len(db.scalars(select(Notification.id).where(Notification.user_id == boss.id)).all()) == 3


# ---------------------------------------------------------------- statements


def test_the_executives_raised_cost_a_fixed_number_of_statements(api, db, exec_user, count_queries, aws):
    """The executive cell raised with one executive and one waiting request, then with three executives and six:
    the same statements (the notifications queue configured so that delivery is not counted)."""
    set_leave_override(api, exec_user, exec_user, "update")  # the actor stays out of the moves
    counts, moved = [], []
    for executives, requests in ((1, 1), (3, 6)):
        moved = [make_user(db, access_level="executive") for _ in range(executives)]
        made = [make_leave(db, make_user(db), status="pending_exec", start_date=date(2026, 12, 1) + timedelta(days=i),
                           end_date=date(2026, 12, 1) + timedelta(days=i)).id for i in range(requests)]
        _store_executive_cell_below_update(db)
        db.query(Notification).delete()
        db.refresh(exec_user)
        with count_queries() as counter:
            set_leave_cell(api, exec_user, "executive", "update")
        counts.append(counter.count)
        for user in moved:
            assert set(made) <= _told(db, user)
        db.query(Notification).delete()
    assert counts[0] == counts[1], counts
