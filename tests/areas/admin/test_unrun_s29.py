"""Session 29 (code no test runs): the admin area's branches the whole suite left unexecuted. A non-executive
administrator raising their own access level (403), and demoting an executive whose own override already puts
admin below manage (not the last executive keeping admin: allowed)."""
from sqlalchemy import select

from chalicelib.core.models import User
from tests.factories import grant, make_user


def test_a_non_executive_admin_cannot_raise_their_own_access_level(api, db):
    manager = make_user(db, access_level="manager")
    grant(db, manager, "admin", "manage")
    answer = api.put(f"/api/admin/users/{manager.id}", as_=manager, json={"access_level": "head"})
    assert answer.status == 403 and answer.json["error"] == "You cannot raise your own access level", answer
    db.expire_all()
    assert db.scalar(select(User.access_level).where(User.id == manager.id)) == "manager"
    # lowering oneself, or sending the level back unchanged, stays allowed
    assert api.put(f"/api/admin/users/{manager.id}", as_=manager, json={"access_level": "manager"}).status == 200
    lowered = api.put(f"/api/admin/users/{manager.id}", as_=manager, json={"access_level": "lead"})
    assert lowered.status == 200 and lowered.json["user"]["access_level"] == "lead", lowered


def test_an_executive_whose_admin_is_lowered_may_be_demoted(api, db):
    keeper = make_user(db, access_level="executive")
    lowered = make_user(db, access_level="executive")
    grant(db, lowered, "admin", "view")
    answer = api.put(f"/api/admin/users/{lowered.id}", as_=keeper, json={"access_level": "head"})
    assert answer.status == 200 and answer.json["user"]["access_level"] == "head", answer
    # the one keeping admin:manage is still the last: refused
    refused = api.put(f"/api/admin/users/{keeper.id}", as_=keeper, json={"access_level": "head"})
    assert refused.status == 409, refused
