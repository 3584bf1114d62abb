"""The caller's principal (user, access level and effective permissions) costs one statement."""
from chalicelib.core import auth
from chalicelib.core.models import AccessLevelPermission, UserPermission
from tests.factories import make_user


def _headers(user) -> dict:
    return {"Authorization": f"Bearer {auth.issue_dev_token(user.email)}"}


def test_principal_in_one_statement_with_matrix_and_overrides(db, count_queries):
    user = make_user(db, email="Principal@Agency.test", access_level="employee")
    db.add_all([
        AccessLevelPermission(access_level="employee", tool="budgets", level="update"),
        AccessLevelPermission(access_level="employee", tool="sla", level="none"),
        AccessLevelPermission(access_level="manager", tool="tasks", level="manage"),
        UserPermission(user_id=user.id, tool="sla", level="manage"),
        UserPermission(user_id=user.id, tool="insights", level="view"),
    ])
    db.flush()
    db.expunge_all()
    with count_queries() as counter:
        principal = auth.authenticate(db, _headers(user))
    assert counter.count == 1, counter.statements
    assert principal.id == user.id and principal.access_level == "employee"
    assert principal.permissions["budgets"] == "update"   # matrix cell of the access level
    assert principal.permissions["sla"] == "manage"       # the user's override wins over the matrix
    assert principal.permissions["insights"] == "view"    # override of a default
    assert principal.permissions["tasks"] == "update"     # another level's cell does not leak in
    assert principal.permissions["admin"] == "none"       # default


def test_principal_without_any_permission_rows(db, count_queries):
    user = make_user(db, access_level="executive")
    db.flush()
    db.expunge_all()
    with count_queries() as counter:
        principal = auth.authenticate(db, _headers(user))
    assert counter.count == 1, counter.statements
    assert set(principal.permissions.values()) == {"manage"}


def test_me_costs_one_statement_for_the_principal(api, db, exec_user, count_queries):
    db.expunge_all()
    with count_queries() as counter:
        response = api.get("/api/me", as_=exec_user)
    assert response.status == 200, response
    # the principal (1) and the user record of /api/me (1)
    assert counter.count <= 2, counter.statements
