"""Session 26 (a notice's link opens for the person told): `leave_requested` names a colleague's leave (type and
dates) and links /leave/requests/<id>; it went to approvers who cannot read leave (`leave: none`, per user or per
access level), whose link answered 403. Now a squad manager who cannot decide leave (below `leave: update`) is no
approver: the executives decide that first step, as for a deactivated squad manager (`queries.awaiting`), and are
told; an executive who cannot read leave was told a generic title without a link (since the later session 26
change, an executive below update:leave is not told at all: test_executives_decide_s26.py). The requester of a decision
(`leave_approved`, `leave_rejected`, `leave_cancelled`) who cannot read leave any more keeps the title (their own
leave) without the link. The readers are checked in one statement whatever the number of approvers
(docs/decisions/leave.md)."""
from sqlalchemy import select

from chalicelib.core.notify import Notification
from tests.factories import grant, make_user

from .factories import make_leave, set_leave_override, squad_team, submit_leave

FULL_TITLE = "Leave request from Eve Member: Sick Leave, 2026-12-01 to 2026-12-03"
GENERIC_TITLE = "A leave request awaits a decision"


def _notices(db, user, type="leave_requested"):
    db.expire_all()
    return db.scalars(select(Notification).where(Notification.user_id == user.id, Notification.type == type)
                      .order_by(Notification.created_at)).all()


def _told(db, user, type="leave_requested"):
    return [(n.resource_id, n.title, n.action_url) for n in _notices(db, user, type)]


def _full(request_id):
    return (request_id, FULL_TITLE, f"/leave/requests/{request_id}")


# ---------------------------------------------------------------- leave_requested: the squad manager


def test_a_squad_manager_without_leave_is_not_told_and_the_executives_decide(api, db, exec_user):
    manager, _, eve = squad_team(db)
    other_exec = make_user(db, access_level="executive")
    set_leave_override(api, exec_user, manager, "none")
    request_id = submit_leave(api, eve)
    assert api.get(f"/api/leave/requests/{request_id}", as_=manager).status == 403
    assert _told(db, manager) == []  # nothing named to someone who cannot open it
    # the executives decide it, as for a deactivated squad manager, and are told
    assert _told(db, other_exec) == [_full(request_id)]
    assert _told(db, exec_user) == [_full(request_id)]
    assert api.get("/api/leave/pending-count", as_=other_exec).json == {"count": 1}
    pending = api.get("/api/leave/requests?tab=pending", as_=other_exec).json["requests"]
    assert [r["id"] for r in pending] == [request_id]
    assert api.post(f"/api/leave/requests/{request_id}/approve", as_=other_exec).status == 200
    assert _told(db, manager) == []  # nor of the second step


def test_a_view_only_squad_manager_reads_but_the_executives_decide(api, db, exec_user):
    """`leave: view` reads the squad's request but cannot approve (update:leave): not its approver either."""
    manager, _, eve = squad_team(db)
    grant(db, manager, "leave", "view")
    request_id = submit_leave(api, eve)
    assert _told(db, manager) == []
    assert _told(db, exec_user) == [_full(request_id)]
    assert api.get(f"/api/leave/requests/{request_id}", as_=manager).status == 200
    assert api.get("/api/leave/pending-count", as_=manager).json == {"count": 0}
    assert api.get("/api/leave/requests?tab=pending", as_=manager).json["requests"] == []
    assert api.get("/api/leave/pending-count", as_=exec_user).json == {"count": 1}


def test_the_managers_access_level_without_leave_sends_the_step_to_the_executives(api, db, exec_user):
    manager, _, eve = squad_team(db)
    changed = api.put("/api/admin/permissions", as_=exec_user, json={"matrix": {"manager": {"leave": "none"}}})
    assert changed.status == 200, changed
    request_id = submit_leave(api, eve)
    assert _told(db, manager) == []
    assert _told(db, exec_user) == [_full(request_id)]
    assert api.get("/api/leave/pending-count", as_=exec_user).json == {"count": 1}


def test_a_squad_manager_with_leave_is_still_its_approver(api, db, exec_user):
    manager, _, eve = squad_team(db)
    request_id = submit_leave(api, eve)
    assert _told(db, manager) == [_full(request_id)]
    assert _told(db, exec_user) == []
    assert api.get("/api/leave/pending-count", as_=exec_user).json == {"count": 0}
    assert api.get(f"/api/leave/requests/{request_id}", as_=manager).status == 200


# ---------------------------------------------------------------- leave_requested: the executives


def test_an_executive_without_leave_is_not_told(api, db, exec_user):
    """Was told a generic title without link; below update:leave they decide nothing (session 26,
    test_executives_decide_s26.py)."""
    boss = make_user(db, access_level="executive", name="Ed Exec")
    grant(db, boss, "leave", "none")
    eve = make_user(db, name="Eve Member")  # no squad: the executives decide
    request_id = submit_leave(api, eve)
    assert api.get(f"/api/leave/requests/{request_id}", as_=boss).status == 403
    assert _told(db, boss) == []
    assert _told(db, exec_user) == [_full(request_id)]


def test_the_second_step_tells_no_executive_below_update(api, db, exec_user):
    """Was: `none` told generically, `view` told in full; neither may decide (session 26)."""
    manager, _, eve = squad_team(db)
    boss = make_user(db, access_level="executive")
    viewer = make_user(db, access_level="executive")
    grant(db, boss, "leave", "none")
    grant(db, viewer, "leave", "view")  # reads it (the link opens), cannot decide
    request_id = submit_leave(api, eve)
    assert api.post(f"/api/leave/requests/{request_id}/approve", as_=manager).status == 200
    assert _told(db, boss) == []
    assert _told(db, viewer) == []
    assert _told(db, exec_user) == [_full(request_id)]


def test_a_promoted_executive_without_leave_is_not_told(api, db, exec_user):
    """Was told generically; below update:leave they decide nothing (session 26)."""
    make_leave(db, make_user(db), status="pending_exec")
    promoted = make_user(db, access_level="manager")
    grant(db, promoted, "leave", "none")
    done = api.put(f"/api/admin/users/{promoted.id}", as_=exec_user, json={"access_level": "executive"})
    assert done.status == 200, done
    assert _told(db, promoted) == []


def test_a_new_squad_manager_without_leave_leaves_the_step_to_the_executives(api, db, exec_user):
    """tell_new_approvers: the squad's manager changed to one without leave: the executives now decide."""
    _, squad, eve = squad_team(db)
    request_id = submit_leave(api, eve)
    other_exec = make_user(db, access_level="executive")
    newcomer = make_user(db, access_level="manager")
    grant(db, newcomer, "leave", "none")
    changed = api.put(f"/api/admin/squads/{squad.id}", as_=exec_user, json={"manager_id": newcomer.id})
    assert changed.status == 200, changed
    assert _told(db, newcomer) == []
    assert _told(db, other_exec) == [_full(request_id)]


def test_the_readers_check_is_one_statement_whatever_the_approvers(api, db, exec_user, count_queries, aws):
    """A second step told to 2 and to 7 executives (some without leave): the same statements."""
    counts = []
    for step, extra in enumerate((1, 6)):
        bosses = [make_user(db, access_level="executive") for _ in range(extra)]
        grant(db, bosses[0], "leave", "none")
        manager, _, eve = squad_team(db)
        request_id = submit_leave(api, eve, start_date=f"2027-0{step + 1}-01", end_date=f"2027-0{step + 1}-01")
        db.refresh(manager)
        with count_queries() as counter:
            assert api.post(f"/api/leave/requests/{request_id}/approve", as_=manager).status == 200
        counts.append(counter.count)
        assert _notices(db, bosses[0]) == []  # below update:leave: not told (session 26)
        assert all(n.action_url for boss in bosses[1:] for n in _notices(db, boss))
    assert counts[0] == counts[1], counts


# ---------------------------------------------------------------- the requester's decisions


def test_a_requester_without_leave_gets_no_link_on_cancel(api, db, exec_user):
    eve = make_user(db, name="Eve Member")
    request_id = submit_leave(api, eve)
    grant(db, eve, "leave", "none")
    assert api.post(f"/api/leave/requests/{request_id}/cancel", as_=exec_user).status == 200
    assert api.get(f"/api/leave/requests/{request_id}", as_=eve).status == 403
    assert _told(db, eve, "leave_cancelled") == [(request_id, "Your leave was cancelled: Sick Leave", None)]


def test_a_requester_without_leave_gets_no_link_on_approval_or_rejection(api, db, exec_user):
    eve = make_user(db, name="Eve Member")
    approved = submit_leave(api, eve)
    rejected = submit_leave(api, eve, start_date="2027-01-04", end_date="2027-01-04")
    grant(db, eve, "leave", "none")
    assert api.post(f"/api/leave/requests/{approved}/approve", as_=exec_user).status == 200
    assert api.post(f"/api/leave/requests/{approved}/approve", as_=exec_user).status == 200
    assert api.post(f"/api/leave/requests/{rejected}/reject", as_=exec_user, json={"reason": "busy"}).status == 200
    assert _told(db, eve, "leave_approved") == [
        (approved, "Your leave was approved: Sick Leave, 2026-12-01 to 2026-12-03", None)]
    assert _told(db, eve, "leave_rejected") == [(rejected, "Your leave request was rejected: Sick Leave", None)]


def test_a_requester_who_reads_leave_keeps_the_link(api, db, exec_user):
    eve = make_user(db, name="Eve Member")
    request_id = submit_leave(api, eve)
    grant(db, eve, "leave", "view")  # cannot write leave any more, still reads their own
    assert api.post(f"/api/leave/requests/{request_id}/cancel", as_=exec_user).status == 200
    told = _told(db, eve, "leave_cancelled")
    assert told == [(request_id, "Your leave was cancelled: Sick Leave", f"/leave/requests/{request_id}")]
    assert api.get(f"/api/leave/requests/{request_id}", as_=eve).status == 200
