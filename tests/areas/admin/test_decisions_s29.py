"""Session 29 (decisions versus code audit): docs/decisions/admin.md, "Executives make executives": only an executive
edits an executive's record (403 otherwise). A holder of admin:manage by override (a head) could still rewrite an
executive's per-tool overrides through `PUT /api/admin/users/:id/permissions`: take away another executive's
admin (while a second one kept it) or lock them out of any tool, the executive's side of the takeover the rule
closes for the e-mail and the access level. Now 403, nothing written; executives and the user's own limits as before."""
from sqlalchemy import select

from chalicelib.core.models import UserPermission
from tests.factories import grant, make_user


def test_a_non_executive_admin_cannot_change_an_executives_overrides(api, db):
    first, second = make_user(db, access_level="executive"), make_user(db, access_level="executive")
    head = make_user(db, access_level="head")
    grant(db, head, "admin", "manage")
    for levels in ({"admin": "none"}, {"leave": "none"}, {"tasks": "view"}, {"insights": None}):
        answer = api.put(f"/api/admin/users/{first.id}/permissions", as_=head, json={"permissions": levels})
        assert answer.status == 403, (levels, answer)
        assert answer.json["error"]
    assert db.scalars(select(UserPermission).where(UserPermission.user_id == first.id)).all() == []
    # an executive still sets another executive's overrides; the head still sets a non-executive's
    done = api.put(f"/api/admin/users/{first.id}/permissions", as_=second, json={"permissions": {"tasks": "view"}})
    assert done.status == 200, done
    employee = make_user(db)
    assert api.put(f"/api/admin/users/{employee.id}/permissions", as_=head,
                   json={"permissions": {"tasks": "view"}}).status == 200
