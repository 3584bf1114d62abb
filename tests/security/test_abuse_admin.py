"""Privilege escalation through the admin area (security audit S5): a holder of admin:manage raising themselves.

An executive may hand admin:manage to someone who is not an executive (an override: an office or HR manager
who keeps the user directory). That holder then promoted themselves to `executive` (every leave's final
approval, every review, all salaries), raised their own tool overrides or their own access level's row of the
matrix, and set their own salary: the self-edits one caller must not make. Lowering oneself stays allowed (an
executive stepping down, decisions in docs/decisions/admin.md), and so does editing other users."""
import pytest

from tests.factories import grant, make_user


@pytest.fixture
def office(db):
    """A manager given admin:manage by an executive, and the executive."""
    make_user(db, access_level="executive")
    manager = make_user(db, access_level="manager", salary=80000)
    grant(db, manager, "admin", "manage")
    return manager


def test_an_admin_cannot_promote_themselves(api, db, office):
    answer = api.put(f"/api/admin/users/{office.id}", as_=office, json={"access_level": "executive"})
    assert answer.status == 403, answer
    assert api.get("/api/me", as_=office).json["user"]["access_level"] == "manager"


def test_an_admin_cannot_set_their_own_salary(api, db, office):
    answer = api.put(f"/api/admin/users/{office.id}", as_=office, json={"salary": 250000})
    assert answer.status == 403, answer
    assert api.get("/api/me", as_=office).json["user"]["salary"] == 80000


def test_an_admin_cannot_raise_their_own_overrides(api, db, office):
    answer = api.put(f"/api/admin/users/{office.id}/permissions", as_=office,
                     json={"permissions": {"insights": "manage"}})
    assert answer.status == 403, answer
    assert api.get("/api/me", as_=office).json["permissions"]["insights"] == "view"


def test_an_admin_cannot_raise_their_own_access_levels_matrix_row(api, db, office):
    answer = api.put("/api/admin/permissions", as_=office, json={"matrix": {"manager": {"insights": "manage"}}})
    assert answer.status == 403, answer
    assert api.get("/api/me", as_=office).json["permissions"]["insights"] == "view"


def test_an_admin_still_edits_others_and_lowers_themselves(api, db, office):
    other = make_user(db)
    assert api.put(f"/api/admin/users/{other.id}", as_=office, json={"access_level": "lead", "salary": 1}).status == 200
    assert api.put(f"/api/admin/users/{other.id}/permissions", as_=office,
                   json={"permissions": {"insights": "view"}}).status == 200
    assert api.put("/api/admin/permissions", as_=office, json={"matrix": {"lead": {"insights": "view"}}}).status == 200
    assert api.put(f"/api/admin/users/{office.id}/permissions", as_=office,
                   json={"permissions": {"insights": "none"}}).status == 200
    assert api.put(f"/api/admin/users/{office.id}", as_=office, json={"access_level": "lead",
                                                                     "job_title": "Office"}).status == 200


def test_an_admin_cannot_choose_their_own_reporting_line_or_end_date(api, db, office):
    from tests.factories import make_squad

    friend = make_user(db, access_level="manager")
    friendly = make_squad(db, manager_id=friend.id)
    path = f"/api/admin/users/{office.id}"
    assert api.put(path, as_=office, json={"squad_id": friendly.id}).status == 403
    assert api.put(path, as_=office, json={"manager_id": friend.id}).status == 403
    assert api.put(path, as_=office, json={"end_date": "2030-12-31"}).status == 403
    # nor become the manager (leave and time approver) of a squad
    assert api.put(f"/api/admin/squads/{friendly.id}", as_=office, json={"manager_id": office.id}).status == 403
    assert api.post("/api/admin/squads", as_=office, json={"name": "Mine", "manager_id": office.id}).status == 403
    me = api.get("/api/me", as_=office).json["user"]
    assert (me["squad_id"], me["manager_id"], me["end_date"]) == (None, None, None)
    # a record sent back unchanged is no change; another administrator sets them
    assert api.put(path, as_=office, json={"squad_id": None, "salary": 80000, "job_title": "Office"}).status == 200
    boss = make_user(db, access_level="executive")
    assert api.put(path, as_=boss, json={"squad_id": friendly.id, "manager_id": friend.id}).status == 200


def test_only_an_executive_makes_or_edits_an_executive_or_hands_out_administration(api, db, office):
    """A non-executive holding admin:manage could create an executive under an address they control, take over an
    executive's account by changing its e-mail, or give an accomplice admin:manage (security audit S5). Other
    overrides of other users, an executive's included, stay theirs to set (tests/areas/admin)."""
    from chalicelib.core.models import User
    from sqlalchemy import select

    made = api.post("/api/admin/users", as_=office, json={"email": "ghost@agency.test", "name": "Ghost",
                                                           "access_level": "executive"})
    assert made.status == 403, made
    assert db.scalar(select(User.id).where(User.email == "ghost@agency.test")) is None
    executive = db.scalar(select(User).where(User.access_level == "executive"))
    taken = api.put(f"/api/admin/users/{executive.id}", as_=office, json={"email": "mine@agency.test"})
    assert taken.status == 403, taken
    accomplice = make_user(db)
    assert api.put(f"/api/admin/users/{accomplice.id}/permissions", as_=office,
                   json={"permissions": {"admin": "manage"}}).status == 403
    assert api.put(f"/api/admin/users/{accomplice.id}", as_=office, json={"access_level": "executive"}).status == 403
    # an executive still does all of it
    assert api.put(f"/api/admin/users/{accomplice.id}/permissions", as_=executive,
                   json={"permissions": {"admin": "manage"}}).status == 200
    assert api.post("/api/admin/users", as_=executive, json={"email": "ceo2@agency.test", "name": "C",
                                                              "access_level": "executive"}).status == 201


def test_only_an_executive_raises_an_access_levels_admin_cell(api, db, office):
    """The matrix reached what the overrides refuse (invariant audit): the office manager raised the `lead` row's
    admin cell, so every lead, an accomplice among them, held admin:manage and could raise the manager row the office
    manager may not raise themselves. Lowering an admin cell, and the other cells of other rows, stay theirs to set."""
    accomplice = make_user(db, access_level="lead")
    answer = api.put("/api/admin/permissions", as_=office, json={"matrix": {"lead": {"admin": "manage"}}})
    assert answer.status == 403, answer
    assert api.get("/api/me", as_=accomplice).json["permissions"]["admin"] == "none"
    assert api.put("/api/admin/permissions", as_=office,
                   json={"matrix": {"lead": {"admin": "none", "insights": "view"}}}).status == 200
    executive = make_user(db, access_level="executive")
    assert api.put("/api/admin/permissions", as_=executive, json={"matrix": {"lead": {"admin": "view"}}}).status == 200
    assert api.get("/api/me", as_=accomplice).json["permissions"]["admin"] == "view"
