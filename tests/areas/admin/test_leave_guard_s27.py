"""Session 27: someone keeps deciding the leave that waits on the executives (second steps, first steps no squad
manager decides: the leave area's `queries.awaiting`, which needs update:leave). As the executive level keeps
admin:manage, it keeps update:leave: a matrix save lowering the executive level's leave cell below update is 400 with
the same shape as the admin guard's; and an override lowering leave below update for the last active executive who
holds it is 409, as lowering the admin of the last executive keeping admin:manage (docs/decisions/admin.md)."""
from sqlalchemy import select

from chalicelib.core.models import AccessLevelPermission, UserPermission
from tests.factories import make_user


def _leave_of(api, user) -> str:
    return api.get("/api/me", as_=user).json["permissions"]["leave"]


def _override(api, admin, user, level):
    return api.put(f"/api/admin/users/{user.id}/permissions", as_=admin, json={"permissions": {"leave": level}})


def test_the_executive_levels_leave_cell_keeps_update(api, db, exec_user):
    for level in ("view", "none"):
        refused = api.put("/api/admin/permissions", as_=exec_user,
                          json={"matrix": {"executive": {"leave": level}, "employee": {"budgets": "none"}}})
        assert refused.status == 400, refused
        assert refused.json["details"] == [{"field": "matrix.executive.leave", "message": "must stay update or manage"}]
        assert "leave:update" in refused.json["error"]
    db.expire_all()
    assert db.scalars(select(AccessLevelPermission)).all() == []  # nothing of the refused saves was written
    assert _leave_of(api, exec_user) == "manage"
    for level in ("update", "manage"):
        kept = api.put("/api/admin/permissions", as_=exec_user, json={"matrix": {"executive": {"leave": level}}})
        assert kept.status == 200, kept
        assert kept.json["matrix"]["executive"]["leave"] == level
    # other levels' leave cells, and the executive level's other cells, may still be lowered
    other = api.put("/api/admin/permissions", as_=exec_user,
                    json={"matrix": {"head": {"leave": "none"}, "executive": {"budgets": "view"}}})
    assert other.status == 200, other


def test_both_guards_at_once_name_both_cells(api, db, exec_user):
    refused = api.put("/api/admin/permissions", as_=exec_user,
                      json={"matrix": {"executive": {"leave": "view", "admin": "update"}}})
    assert refused.status == 400, refused
    assert {d["field"] for d in refused.json["details"]} == {"matrix.executive.admin", "matrix.executive.leave"}


def test_the_last_executive_deciding_leave_keeps_it(api, db, exec_user):
    """exec_user is the only active executive: lowering their leave (themselves, or by another administrator)
    is 409; once another executive decides leave it is allowed, and lowering that one is then 409."""
    for level in ("view", "none"):
        refused = _override(api, exec_user, exec_user, level)
        assert refused.status == 409, refused
        assert "last active executive" in refused.json["error"] and "leave" in refused.json["error"]
    holder = make_user(db)
    db.add(UserPermission(user_id=holder.id, tool="admin", level="manage"))
    db.flush()
    # another administrator who is not an executive does not change an executive's overrides at all (session 29: 403)
    assert _override(api, holder, exec_user, "view").status == 403
    assert _leave_of(api, exec_user) == "manage"
    # executives who do not count: an inactive one, and one whose own override keeps leave below update
    make_user(db, access_level="executive", is_active=False)
    lowered = make_user(db, access_level="executive")
    db.add(UserPermission(user_id=lowered.id, tool="leave", level="view"))
    db.flush()
    assert _override(api, exec_user, exec_user, "view").status == 409
    # raising or keeping leave, and the other tools, stay allowed
    assert _override(api, exec_user, exec_user, "update").status == 200
    kept = api.put(f"/api/admin/users/{exec_user.id}/permissions", as_=exec_user,
                   json={"permissions": {"leave": "manage", "budgets": "view"}})
    assert kept.status == 200, kept
    # another executive deciding leave: the first may be lowered, and then the other is the last
    assert _override(api, exec_user, lowered, None).status == 200  # back to the matrix's manage
    assert _override(api, exec_user, exec_user, "view").status == 200
    assert _leave_of(api, exec_user) == "view"
    last = _override(api, exec_user, lowered, "none")
    assert last.status == 409, last
    assert _leave_of(api, lowered) == "manage"


def test_an_executive_not_deciding_leave_may_be_lowered_further(api, db, exec_user):
    """Lowering the leave of an executive who already does not decide it changes nobody's decisions."""
    other = make_user(db, access_level="executive")
    db.add(UserPermission(user_id=other.id, tool="leave", level="view"))
    db.add(AccessLevelPermission(access_level="executive", tool="leave", level="view"))  # stored before the guard
    db.add(UserPermission(user_id=exec_user.id, tool="leave", level="update"))
    db.flush()
    assert _override(api, exec_user, other, "none").status == 200
    assert _override(api, exec_user, other, None).status == 200  # to the (old, lowered) cell: still not deciding
    # exec_user, the last deciding one, falls back to the lowered cell when their override is removed: 409
    refused = _override(api, exec_user, exec_user, None)
    assert refused.status == 409, refused
    assert _leave_of(api, exec_user) == "update"


def test_a_non_executive_may_be_lowered(api, db, exec_user):
    manager = make_user(db, access_level="manager")
    assert _override(api, exec_user, manager, "none").status == 200


def test_the_last_executive_deciding_leave_is_not_deactivated_or_demoted(api, db, exec_user):
    """The same guard on the user's own row (session 27): another executive keeps admin:manage, so the admin guard
    lets the change pass, but their own override keeps them below update:leave: deactivating or demoting the one who
    decides the executives' leave steps is 409 until another executive can decide them."""
    other = make_user(db, access_level="executive", name="Other Exec")
    decider = make_user(db, access_level="executive", name="Deciding Exec")
    assert _override(api, exec_user, exec_user, "view").status == 200  # the caller keeps admin:manage, not leave
    assert _override(api, exec_user, other, "none").status == 200
    for change in ({"is_active": False}, {"access_level": "head"}):
        refused = api.put(f"/api/admin/users/{decider.id}", as_=exec_user, json=change)
        assert refused.status == 409, refused
        assert "leave:update" in refused.json["error"]
    db.expire_all()
    assert _leave_of(api, decider) == "manage"
    assert _override(api, exec_user, other, None).status == 200  # back to the level's cell: they decide again
    moved = api.put(f"/api/admin/users/{decider.id}", as_=exec_user, json={"access_level": "head"})
    assert moved.status == 200, moved
