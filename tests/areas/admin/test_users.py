"""Admin users: /api/me, list filters, create, detail, update, salary visibility, history."""
import pytest
from sqlalchemy import select

from chalicelib.core.models import HistoryEntry, User
from tests.factories import grant, make_squad, make_user


@pytest.fixture
def executive(db):
    return make_user(db, name="Eve Executive", email="eve@agency.test", access_level="executive")


@pytest.fixture
def head(db):
    # head: admin:update by default -> admin:view (reads) but not admin:manage
    return make_user(db, name="Hank Head", email="hank@agency.test", access_level="head")


@pytest.mark.smoke
def test_me_answers_user_and_permissions(api, db):
    user = make_user(db, name="Emma", access_level="employee", salary=50000)
    response = api.get("/api/me", as_=user)
    assert response.status == 200
    assert response.json["user"]["id"] == user.id
    assert response.json["user"]["email"] == user.email
    assert response.json["user"]["is_active"] == 1
    assert response.json["user"]["salary"] == 50000.0  # one's own salary
    assert response.json["permissions"]["tasks"] == "update"
    assert response.json["permissions"]["admin"] == "none"


def test_me_requires_a_token(api):
    assert api.get("/api/me").status == 401


def test_list_users_requires_admin_view(api, db, head):
    employee = make_user(db)
    manager = make_user(db, access_level="manager")
    assert api.get("/api/admin/users", as_=employee).status == 403
    assert api.get("/api/admin/users", as_=manager).status == 403
    assert api.get("/api/admin/users", as_=head).status == 200
    grant(db, employee, "admin", "view")
    assert api.get("/api/admin/users", as_=employee).status == 200


def test_list_users_filters(api, db, executive):
    squad = make_squad(db, name="Blue")
    alice = make_user(db, name="Alice Archer", email="alice@agency.test", squad_id=squad.id, manager_id=executive.id)
    bob = make_user(db, name="Bob Baker", email="bob@other.test", access_level="lead")
    gone = make_user(db, name="Gone Person", email="gone@agency.test", is_active=False)

    users = api.get("/api/admin/users", as_=executive).json["users"]
    ids = [u["id"] for u in users]
    assert alice.id in ids and bob.id in ids and gone.id not in ids
    assert [u["name"] for u in users] == sorted([u["name"] for u in users], key=str.lower)
    row = next(u for u in users if u["id"] == alice.id)
    assert row["squad_name"] == "Blue" and row["manager_name"] == "Eve Executive"

    found = api.get("/api/admin/users?search=ARCH", as_=executive).json["users"]
    assert [u["id"] for u in found] == [alice.id]
    found = api.get("/api/admin/users?search=other.test", as_=executive).json["users"]
    assert [u["id"] for u in found] == [bob.id]
    found = api.get("/api/admin/users?search=%25", as_=executive).json["users"]
    assert found == []  # % is searched literally
    found = api.get(f"/api/admin/users?squad_id={squad.id}", as_=executive).json["users"]
    assert [u["id"] for u in found] == [alice.id]
    found = api.get("/api/admin/users?access_level=lead", as_=executive).json["users"]
    assert [u["id"] for u in found] == [bob.id]
    found = api.get("/api/admin/users?include_inactive=true&search=gone", as_=executive).json["users"]
    assert [u["id"] for u in found] == [gone.id] and found[0]["is_active"] == 0


def test_list_users_rejects_unknown_access_level(api, executive):
    response = api.get("/api/admin/users?access_level=emperor", as_=executive)
    assert response.status == 400
    assert response.json["details"][0]["field"] == "access_level"


def test_list_users_costs_constant_queries(api, db, executive, count_queries):
    squad = make_squad(db)
    for _ in range(3):
        make_user(db, squad_id=squad.id, manager_id=executive.id)
    with count_queries() as few:
        assert api.get("/api/admin/users", as_=executive).status == 200
    for _ in range(20):
        make_user(db, squad_id=make_squad(db).id, manager_id=executive.id)
    with count_queries() as many:
        assert api.get("/api/admin/users", as_=executive).status == 200
    assert many.count == few.count


def test_salary_only_for_admin_manage(api, db, executive, head):
    other = make_user(db, salary=91000)
    as_exec = api.get(f"/api/admin/users/{other.id}", as_=executive).json["user"]
    assert as_exec["salary"] == 91000.0
    as_head = api.get(f"/api/admin/users/{other.id}", as_=head).json["user"]
    assert "salary" not in as_head
    listed = api.get("/api/admin/users", as_=head).json["users"]
    assert all("salary" not in u for u in listed)


def test_create_user(api, db, executive):
    squad = make_squad(db)
    response = api.post("/api/admin/users", as_=executive, json={
        "email": "  New.Person@Agency.TEST ", "name": " New Person ", "squad_id": squad.id,
        "manager_id": executive.id, "job_title": "Designer", "date_of_birth": "1990-04-01",
        "start_date": "2024-01-15", "salary": 72000.5, "employment_basis": "full_time",
        "id": "ignored", "is_system": True, "unknown": 1,
    })
    assert response.status == 201, response
    user = response.json["user"]
    assert user["email"] == "new.person@agency.test"
    assert user["name"] == "New Person"
    assert user["access_level"] == "employee"
    assert user["is_active"] == 1
    assert user["squad_id"] == squad.id and user["manager_id"] == executive.id
    assert user["date_of_birth"] == "1990-04-01" and user["salary"] == 72000.5
    assert user["id"] != "ignored" and user["created_at"].endswith("Z")
    stored = db.get(User, user["id"])
    assert stored.email == "new.person@agency.test"
    entry = db.scalar(select(HistoryEntry).where(HistoryEntry.entity_id == user["id"]))
    assert entry.action == "created" and entry.actor_id == executive.id
    assert entry.changes["salary"] == "[redacted]"


def test_create_user_email_conflict_is_case_insensitive(api, db, executive):
    make_user(db, email="taken@agency.test")
    response = api.post("/api/admin/users", as_=executive, json={"email": "TAKEN@agency.test", "name": "X"})
    assert response.status == 409
    assert "error" in response.json


@pytest.mark.parametrize("body, field", [
    ({"name": "No Email"}, "email"),
    ({"email": "a@b.test"}, "name"),
    ({"email": "not-an-email", "name": "X"}, "email"),
    ({"email": "a@b.test", "name": "   "}, "name"),
    ({"email": "a@b.test", "name": "X", "access_level": "king"}, "access_level"),
    ({"email": "a@b.test", "name": "X", "start_date": "soon"}, "start_date"),
    ({"email": "a@b.test", "name": "X", "salary": -1}, "salary"),
    ({"email": "a@b.test", "name": 42}, "name"),
    # core input types (issue 9 item 3): strict dates
    ({"email": "a@b.test", "name": "X", "start_date": "2026-01-05T00:00:00"}, "start_date"),
    ({"email": "a@b.test", "name": "X", "date_of_birth": 0}, "date_of_birth"),
])
def test_create_user_validation(api, executive, body, field):
    response = api.post("/api/admin/users", as_=executive, json=body)
    assert response.status == 400
    assert field in [d["field"] for d in response.json["details"]]


def test_create_user_unknown_references_are_400(api, executive):
    response = api.post("/api/admin/users", as_=executive, json={"email": "a@b.test", "name": "X", "squad_id": "nope"})
    assert response.status == 400 and response.json["details"][0]["field"] == "squad_id"
    response = api.post("/api/admin/users", as_=executive, json={"email": "a@b.test", "name": "X", "manager_id": "nope"})
    assert response.status == 400 and response.json["details"][0]["field"] == "manager_id"
    response = api.post("/api/admin/users", as_=executive,
                        json={"email": "a@b.test", "name": "X", "start_date": "2024-05-01", "end_date": "2024-04-01"})
    assert response.status == 400


def test_create_user_requires_admin_manage(api, db, head):
    response = api.post("/api/admin/users", as_=head, json={"email": "a@b.test", "name": "X"})
    assert response.status == 403
    assert db.scalar(select(User).where(User.email == "a@b.test")) is None


def test_get_user_detail(api, db, executive, head):
    user = make_user(db, access_level="lead")
    grant(db, user, "insights", "view")
    response = api.get(f"/api/admin/users/{user.id}", as_=head)
    assert response.status == 200
    assert response.json["user"]["id"] == user.id
    assert response.json["permissions"]["insights"] == "view"
    assert response.json["permissions"]["tasks"] == "update"
    assert response.json["overrides"] == {"insights": "view"}
    assert api.get("/api/admin/users/00000000-0000-0000-0000-000000000000", as_=head).status == 404
    assert api.get(f"/api/admin/users/{user.id}", as_=user).status == 403


def test_update_user(api, db, executive):
    squad = make_squad(db)
    user = make_user(db, name="Old Name", job_title="Dev", salary=1000)
    response = api.put(f"/api/admin/users/{user.id}", as_=executive, json={
        "name": "New Name", "access_level": "manager", "squad_id": squad.id, "job_title": None,
        "is_active": False, "salary": 2000, "created_at": "2000-01-01T00:00:00Z",
    })
    assert response.status == 200, response
    body = response.json["user"]
    assert body["name"] == "New Name" and body["access_level"] == "manager"
    assert body["squad_id"] == squad.id and body["job_title"] is None and body["is_active"] == 0
    assert not body["created_at"].startswith("2000")
    db.refresh(user)
    assert user.is_active is False and user.job_title is None
    entry = db.scalar(select(HistoryEntry).where(HistoryEntry.entity_id == user.id, HistoryEntry.action == "updated"))
    assert entry.actor_id == executive.id
    assert entry.changes["name"] == {"from": "Old Name", "to": "New Name"}
    assert entry.changes["salary"] == {"from": "[redacted]", "to": "[redacted]"}
    assert "email" not in entry.changes


def test_deactivated_user_loses_access(api, db, executive):
    user = make_user(db)
    assert api.get("/api/me", as_=user).status == 200
    assert api.put(f"/api/admin/users/{user.id}", as_=executive, json={"is_active": False}).status == 200
    assert api.get("/api/me", as_=user).status == 403


def test_update_user_errors(api, db, executive):
    user = make_user(db)
    make_user(db, email="other@agency.test")
    missing = "00000000-0000-0000-0000-000000000000"
    assert api.put(f"/api/admin/users/{missing}", as_=executive, json={"name": "X"}).status == 404
    response = api.put(f"/api/admin/users/{user.id}", as_=executive, json={"email": "OTHER@agency.test"})
    assert response.status == 409
    response = api.put(f"/api/admin/users/{user.id}", as_=executive, json={"name": None})
    assert response.status == 400 and response.json["details"][0]["field"] == "name"
    response = api.put(f"/api/admin/users/{user.id}", as_=executive, json={"manager_id": user.id})
    assert response.status == 400
    response = api.put(f"/api/admin/users/{executive.id}", as_=executive, json={"is_active": False})
    assert response.status == 400
    response = api.put(f"/api/admin/users/{user.id}", as_=executive, json={"access_level": "god"})
    assert response.status == 400


def test_the_last_active_executive_is_kept(api, db, executive):
    """Only an executive edits the matrix and access levels: the last active one is neither demoted nor
    deactivated (409), and once another is active either may step down."""
    demote = api.put(f"/api/admin/users/{executive.id}", as_=executive, json={"access_level": "head"})
    assert demote.status == 409 and "last active executive" in demote.json["error"]
    assert db.get(User, executive.id).access_level == "executive"
    other = make_user(db, access_level="executive", is_active=False)
    # an inactive executive does not count
    assert api.put(f"/api/admin/users/{executive.id}", as_=executive, json={"access_level": "head"}).status == 409
    assert api.put(f"/api/admin/users/{other.id}", as_=executive, json={"is_active": True}).status == 200
    assert api.put(f"/api/admin/users/{other.id}", as_=executive, json={"name": "Still exec"}).status == 200
    assert api.put(f"/api/admin/users/{executive.id}", as_=executive, json={"access_level": "head"}).status == 200
    assert api.put(f"/api/admin/users/{other.id}", as_=other, json={"is_active": False}).status == 400  # self
    assert api.put(f"/api/admin/users/{other.id}", as_=other, json={"access_level": "manager"}).status == 409


def test_blank_squad_and_manager_clear_them(api, db, executive):
    squad = make_squad(db)
    user = make_user(db, squad_id=squad.id, manager_id=executive.id)
    response = api.put(f"/api/admin/users/{user.id}", as_=executive, json={"squad_id": "", "manager_id": " "})
    assert response.status == 200
    assert response.json["user"]["squad_id"] is None and response.json["user"]["manager_id"] is None


def test_update_user_rejects_reporting_cycle(api, db, executive):
    boss = make_user(db)
    middle = make_user(db, manager_id=boss.id)
    low = make_user(db, manager_id=middle.id)
    response = api.put(f"/api/admin/users/{boss.id}", as_=executive, json={"manager_id": low.id})
    assert response.status == 400
    assert api.put(f"/api/admin/users/{low.id}", as_=executive, json={"manager_id": boss.id}).status == 200


def test_update_user_email_is_lowercased_and_own_email_allowed(api, db, executive):
    user = make_user(db, email="mixed@agency.test")
    response = api.put(f"/api/admin/users/{user.id}", as_=executive, json={"email": "MIXED@Agency.test"})
    assert response.status == 200 and response.json["user"]["email"] == "mixed@agency.test"


def test_update_user_requires_admin_manage(api, db, head):
    user = make_user(db)
    assert api.put(f"/api/admin/users/{user.id}", as_=head, json={"name": "X"}).status == 403


def test_list_users_is_paged(api, db, executive):
    for _ in range(3):
        make_user(db)
    whole = api.get("/api/admin/users", as_=executive).json
    total = whole["total"]
    assert total == len(whole["users"]) >= 4 and (whole["limit"], whole["offset"]) == (500, 0)
    body = api.get("/api/admin/users?limit=2&offset=1", as_=executive).json
    assert [u["id"] for u in body["users"]] == [u["id"] for u in whole["users"]][1:3]
    assert (body["total"], body["limit"], body["offset"]) == (total, 2, 1)
    for bad in ("limit=0", "limit=501", "offset=-1"):
        response = api.get(f"/api/admin/users?{bad}", as_=executive)
        assert response.status == 400 and response.json["details"][0]["field"] == bad.split("=")[0]


@pytest.mark.parametrize("value", ["yes", "on", "true"])
def test_is_active_is_a_flag(api, db, executive, value):
    user = make_user(db)
    response = api.put(f"/api/admin/users/{user.id}", as_=executive, json={"is_active": value})
    assert response.status == 400 and response.json["details"][0]["field"] == "is_active"


@pytest.mark.parametrize("value", ["yes", "on"])
def test_include_inactive_is_a_query_flag(api, executive, value):
    response = api.get(f"/api/admin/users?include_inactive={value}", as_=executive)
    assert response.status == 400 and response.json["details"][0]["field"] == "include_inactive"



def test_an_executive_whose_admin_was_lowered_does_not_keep_the_organisation(api, db, executive):
    """The last active executive is kept (docs/decisions/admin.md) so that someone keeps admin:manage. An
    executive whose override lowers admin below manage cannot administer, so does not count; and lowering the
    admin of the last executive who keeps it is 409, like demoting them. Otherwise one executive could take
    the other's admin away and then step down, and nobody could edit users, overrides or the matrix."""
    other = make_user(db, access_level="executive")
    lowered = api.put(f"/api/admin/users/{other.id}/permissions", as_=executive, json={"permissions": {"admin": "view"}})
    assert lowered.status == 200, lowered  # the caller still keeps admin:manage
    refused = api.put(f"/api/admin/users/{executive.id}", as_=executive, json={"access_level": "head"})
    assert refused.status == 409 and "last active executive" in refused.json["error"], refused
    assert db.get(User, executive.id).access_level == "executive"
    # the other's admin back to the matrix's manage: now the caller may step down
    assert api.put(f"/api/admin/users/{other.id}/permissions", as_=executive,
                   json={"permissions": {"admin": None}}).json["permissions"]["admin"] == "manage"
    assert api.put(f"/api/admin/users/{executive.id}", as_=executive, json={"access_level": "head"}).status == 200
    # `other` is the last executive keeping admin:manage: nobody lowers it
    last = api.put(f"/api/admin/users/{other.id}/permissions", as_=other, json={"permissions": {"admin": "none"}})
    assert last.status == 400, last  # their own admin is never lowered by themselves; nobody else may (below)
    # a holder of admin:manage by override changes no executive's overrides (session 29: 403, an executive's
    # permissions are theirs as their record is)
    holder = make_user(db)
    grant(db, holder, "admin", "manage")
    refused = api.put(f"/api/admin/users/{other.id}/permissions", as_=holder, json={"permissions": {"admin": "none"}})
    assert refused.status == 403, refused
    assert api.get("/api/me", as_=other).json["permissions"]["admin"] == "manage"
    # other tools of that executive, and raising or keeping admin, stay allowed (to the executive)
    assert api.put(f"/api/admin/users/{other.id}/permissions", as_=other,
                   json={"permissions": {"tasks": "view", "admin": "manage"}}).status == 200
