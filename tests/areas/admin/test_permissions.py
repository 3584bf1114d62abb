"""The access-level matrix and per-user overrides through /api/admin/permissions and /users/:id/permissions."""
from sqlalchemy import select

from chalicelib.core.models import HistoryEntry, UserPermission
from tests.factories import make_user

TOOLS = {
    "tasks", "projects", "budgets", "roadmaps", "sla", "config-lists", "action-centre", "proposals", "deals",
    "invoices", "relationships", "templates", "performance", "leave", "insights", "pages", "announcements",
    "calendar", "meetings", "timesheets", "admin",
}


def test_get_matrix(api, db):
    head = make_user(db, access_level="head")
    response = api.get("/api/admin/permissions", as_=head)
    assert response.status == 200
    matrix = response.json["matrix"]
    assert set(matrix) == {"employee", "lead", "manager", "head", "executive"}
    assert all(set(row) == TOOLS for row in matrix.values())
    assert matrix["executive"]["admin"] == "manage"
    assert matrix["manager"]["admin"] == "none" and matrix["manager"]["insights"] == "view"
    assert matrix["employee"]["budgets"] == "view"


def test_get_matrix_requires_admin_view(api, db):
    assert api.get("/api/admin/permissions", as_=make_user(db, access_level="manager")).status == 403


def test_put_matrix_changes_subset_and_takes_effect(api, db):
    executive = make_user(db, access_level="executive")
    employee = make_user(db, access_level="employee")
    response = api.put("/api/admin/permissions", as_=executive,
                       json={"matrix": {"employee": {"insights": "view", "tasks": "manage"}, "lead": {"admin": "view"}}})
    assert response.status == 200, response
    matrix = response.json["matrix"]
    assert matrix["employee"]["insights"] == "view" and matrix["employee"]["tasks"] == "manage"
    assert matrix["lead"]["admin"] == "view"
    assert matrix["employee"]["projects"] == "update"  # untouched cell keeps its default
    assert api.get("/api/admin/permissions", as_=executive).json["matrix"] == matrix
    assert api.get("/api/me", as_=employee).json["permissions"]["insights"] == "view"
    # a second edit of a stored cell
    matrix = api.put("/api/admin/permissions", as_=executive,
                     json={"matrix": {"employee": {"insights": "none"}}}).json["matrix"]
    assert matrix["employee"]["insights"] == "none" and matrix["employee"]["tasks"] == "manage"
    entries = db.scalars(select(HistoryEntry).where(HistoryEntry.entity_type == "access_level",
                                                    HistoryEntry.entity_id == "employee")).all()
    assert len(entries) == 2
    assert {"from": "none", "to": "view"} in [e.changes.get("insights") for e in entries]


def test_put_matrix_validates_names_and_levels(api, db):
    executive = make_user(db, access_level="executive")
    for body in ({"matrix": {"emperor": {"tasks": "view"}}}, {"matrix": {"employee": {"spaceships": "view"}}},
                 {"matrix": {"employee": {"tasks": "admin"}}}, {"matrix": []}, {}):
        response = api.put("/api/admin/permissions", as_=executive, json=body)
        assert response.status == 400, body
        assert response.json["details"], body
    response = api.put("/api/admin/permissions", as_=executive, json={"matrix": {"executive": {"admin": "view"}}})
    assert response.status == 400  # no lock-out
    assert api.get("/api/admin/permissions", as_=executive).json["matrix"]["executive"]["admin"] == "manage"


def test_put_matrix_requires_admin_manage(api, db):
    head = make_user(db, access_level="head")
    response = api.put("/api/admin/permissions", as_=head, json={"matrix": {"employee": {"tasks": "view"}}})
    assert response.status == 403


def test_user_overrides_set_and_remove(api, db):
    executive = make_user(db, access_level="executive")
    user = make_user(db, access_level="employee")
    response = api.put(f"/api/admin/users/{user.id}/permissions", as_=executive,
                       json={"permissions": {"insights": "view", "tasks": "none", "budgets": "manage"}})
    assert response.status == 200, response
    assert response.json["permissions"]["insights"] == "view"
    assert response.json["permissions"]["tasks"] == "none"
    assert response.json["permissions"]["budgets"] == "manage"
    assert response.json["permissions"]["projects"] == "update"
    assert response.json["overrides"] == {"insights": "view", "tasks": "none", "budgets": "manage"}
    me = api.get("/api/me", as_=user).json["permissions"]
    assert me["tasks"] == "none" and me["insights"] == "view"
    # null removes the override: the matrix level comes back
    response = api.put(f"/api/admin/users/{user.id}/permissions", as_=executive,
                       json={"permissions": {"tasks": None, "insights": None}})
    assert response.json["permissions"]["tasks"] == "update"
    assert response.json["permissions"]["insights"] == "none"
    assert response.json["overrides"] == {"budgets": "manage"}
    rows = db.scalars(select(UserPermission).where(UserPermission.user_id == user.id)).all()
    assert [(r.tool, r.level) for r in rows] == [("budgets", "manage")]
    entries = db.scalars(select(HistoryEntry).where(HistoryEntry.entity_id == user.id,
                                                    HistoryEntry.action == "permissions_changed")).all()
    assert len(entries) == 2
    assert any(e.changes.get("tasks") == {"from": "none", "to": None} for e in entries)


def test_override_beats_an_edited_matrix(api, db):
    executive = make_user(db, access_level="executive")
    user = make_user(db, access_level="lead")
    api.put(f"/api/admin/users/{user.id}/permissions", as_=executive, json={"permissions": {"sla": "update"}})
    api.put("/api/admin/permissions", as_=executive, json={"matrix": {"lead": {"sla": "none"}}})
    assert api.get("/api/me", as_=user).json["permissions"]["sla"] == "update"


def test_user_overrides_errors(api, db):
    executive = make_user(db, access_level="executive")
    head = make_user(db, access_level="head")
    user = make_user(db)
    url = f"/api/admin/users/{user.id}/permissions"
    assert api.put(url, as_=executive, json={"permissions": {"tasks": "superuser"}}).status == 400
    assert api.put(url, as_=executive, json={"permissions": {"warp-drive": "view"}}).status == 400
    assert api.put(url, as_=executive, json={"permissions": "all"}).status == 400
    assert api.put(url, as_=head, json={"permissions": {"tasks": "view"}}).status == 403
    missing = "/api/admin/users/00000000-0000-0000-0000-000000000000/permissions"
    assert api.put(missing, as_=executive, json={"permissions": {"tasks": "view"}}).status == 404
    own = api.put(f"/api/admin/users/{executive.id}/permissions", as_=executive, json={"permissions": {"admin": "view"}})
    assert own.status == 400


def test_granted_admin_manage_via_override(api, db):
    employee = make_user(db)
    executive = make_user(db, access_level="executive")
    api.put(f"/api/admin/users/{employee.id}/permissions", as_=executive, json={"permissions": {"admin": "manage"}})
    response = api.post("/api/admin/squads", as_=employee, json={"name": "Made by an employee"})
    assert response.status == 201
