"""Tool permissions: the starting matrix of decisions.md section 3, level ordering, overrides, matrix edits."""
import pytest

from chalicelib.core.models import AccessLevelPermission
from chalicelib.core.permissions import allows, normalise_permission, require
from chalicelib.core.errors import Forbidden
from tests.factories import grant, make_user

ALL_TOOLS = [
    "tasks", "projects", "budgets", "roadmaps", "sla", "config-lists", "action-centre", "proposals", "deals",
    "invoices", "relationships", "templates", "performance", "leave", "insights", "pages", "announcements",
    "calendar", "meetings", "timesheets", "admin",
]
STAFF_UPDATE = ["tasks", "projects", "pages", "action-centre", "leave", "performance", "meetings", "timesheets",
                "relationships", "deals", "proposals"]
STAFF_VIEW = ["budgets", "roadmaps", "sla", "config-lists", "announcements", "calendar", "templates", "invoices"]


def expected(access_level: str) -> dict:
    """Written out from decisions.md section 3, independently of the code under test."""
    if access_level == "executive":
        return {tool: "manage" for tool in ALL_TOOLS}
    if access_level == "head":
        return {tool: ("update" if tool == "admin" else "manage") for tool in ALL_TOOLS}
    if access_level == "manager":
        return {tool: {"admin": "none", "insights": "view"}.get(tool, "update") for tool in ALL_TOOLS}
    levels = {tool: "update" for tool in STAFF_UPDATE}
    levels.update({tool: "view" for tool in STAFF_VIEW})
    levels.update({"insights": "none", "admin": "none"})
    assert set(levels) == set(ALL_TOOLS)
    return levels


@pytest.mark.parametrize("access_level", ["employee", "lead", "manager", "head", "executive"])
def test_default_permissions_of_each_access_level(api, db, access_level):
    user = make_user(db, access_level=access_level)
    response = api.get("/api/me", as_=user)
    assert response.status == 200
    assert response.json["permissions"] == expected(access_level)


def test_override_replaces_one_tool(api, db):
    user = make_user(db, access_level="employee")
    grant(db, user, "insights", "view")
    grant(db, user, "tasks", "none")
    permissions = api.get("/api/me", as_=user).json["permissions"]
    assert permissions["insights"] == "view"
    assert permissions["tasks"] == "none"
    assert {k: v for k, v in permissions.items() if k not in ("insights", "tasks")} == \
        {k: v for k, v in expected("employee").items() if k not in ("insights", "tasks")}


def test_override_of_another_user_does_not_leak(api, db):
    granted = make_user(db)
    other = make_user(db)
    grant(db, granted, "admin", "manage")
    assert api.get("/api/me", as_=other).json["permissions"]["admin"] == "none"


def test_matrix_cell_applies_to_the_access_level_and_override_beats_it(api, db):
    lead = make_user(db, access_level="lead")
    employee = make_user(db, access_level="employee")
    db.add(AccessLevelPermission(access_level="lead", tool="insights", level="view"))
    db.add(AccessLevelPermission(access_level="lead", tool="sla", level="update"))
    db.flush()
    assert api.get("/api/me", as_=lead).json["permissions"]["insights"] == "view"
    assert api.get("/api/me", as_=employee).json["permissions"]["insights"] == "none"
    grant(db, lead, "sla", "none")
    assert api.get("/api/me", as_=lead).json["permissions"]["sla"] == "none"


def test_levels_include_lower_ones():
    perms = {"tasks": "update", "admin": "none", "budgets": "manage", "sla": "view"}
    assert allows(perms, "tasks", "view") and allows(perms, "tasks", "update") and not allows(perms, "tasks", "manage")
    assert allows(perms, "budgets", "view") and allows(perms, "budgets", "manage")
    assert allows(perms, "sla", "view") and not allows(perms, "sla", "update")
    assert not allows(perms, "admin", "view")
    assert not allows(perms, "unknown-tool", "view")
    with pytest.raises(Forbidden):
        require(perms, "tasks", "manage")
    require(perms, "tasks", "update")


def test_permission_names_in_either_order():
    assert normalise_permission("performance:view") == ("performance", "view")
    assert normalise_permission("view:performance") == ("performance", "view")
    assert normalise_permission("tasks / manage") == ("tasks", "manage")


def test_endpoint_levels_enforced_through_http(api, db):
    """config-lists: view reads, manage writes; an override lifts and lowers the level."""
    user = make_user(db, access_level="employee")
    assert api.get("/api/config-lists", as_=user).status == 200
    body = {"label": "X", "value": "x_perm"}
    assert api.post("/api/config-lists/task_phase/items", as_=user, json=body).status == 403
    grant(db, user, "config-lists", "update")
    assert api.post("/api/config-lists/task_phase/items", as_=user, json=body).status == 403
    grant(db, user, "config-lists", "manage")
    assert api.post("/api/config-lists/task_phase/items", as_=user, json=body).status == 201
    grant(db, user, "config-lists", "none")
    assert api.get("/api/config-lists", as_=user).status == 403
