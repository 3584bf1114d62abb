"""Data scoping of projects: employee and lead see their own, managers their team's and squads', heads all."""
import pytest

from tests.factories import make_squad, make_user

from .factories import make_project


@pytest.fixture
def org(db):
    """Two squads. `mgr` manages Alpha; `emp_a` and `lead_a` are in Alpha; `report_b` reports to `mgr`
    but sits in Beta; `emp_b` and `outsider` are in Beta with nothing to do with `mgr`."""
    mgr = make_user(db, access_level="manager", name="Mgr")
    alpha = make_squad(db, name="Alpha", manager_id=mgr.id)
    beta_manager = make_user(db, access_level="manager", name="Beta manager")
    beta = make_squad(db, name="Beta", manager_id=beta_manager.id)
    beta_manager.squad_id = beta.id
    users = {
        "mgr": mgr, "beta_manager": beta_manager,
        "emp_a": make_user(db, access_level="employee", squad_id=alpha.id, manager_id=mgr.id, name="Emp A"),
        "lead_a": make_user(db, access_level="lead", squad_id=alpha.id, name="Lead A"),
        "report_b": make_user(db, access_level="employee", squad_id=beta.id, manager_id=mgr.id, name="Report B"),
        "emp_b": make_user(db, access_level="employee", squad_id=beta.id, name="Emp B"),
        "outsider": make_user(db, access_level="employee", squad_id=beta.id, name="Outsider"),
        "head": make_user(db, access_level="head", squad_id=beta.id, name="Head"),
        "exec": make_user(db, access_level="executive", name="Exec"),
    }
    db.flush()
    u = users
    projects = {
        "owned_by_emp_a": make_project(db, name="owned_by_emp_a", owner_id=u["emp_a"].id),
        "managed_by_emp_a": make_project(db, name="managed_by_emp_a", owner_id=u["outsider"].id,
                                         delivery_manager_id=u["emp_a"].id),
        "emp_a_member": make_project(db, name="emp_a_member", owner_id=u["outsider"].id, members=[u["emp_a"]]),
        "lead_a_own": make_project(db, name="lead_a_own", owner_id=u["lead_a"].id),
        "alpha_squad": make_project(db, name="alpha_squad", owner_id=u["outsider"].id, squad="Alpha"),
        "report_b_own": make_project(db, name="report_b_own", owner_id=u["report_b"].id, squad="Beta"),
        "beta_only": make_project(db, name="beta_only", owner_id=u["emp_b"].id, squad="Beta",
                                  members=[u["outsider"]]),
        "mgr_own": make_project(db, name="mgr_own", owner_id=u["mgr"].id),
    }
    return users, projects


def visible(api, user):
    response = api.get("/api/projects", as_=user)
    assert response.status == 200, response
    return sorted(p["name"] for p in response.json["projects"])


def test_employee_sees_projects_they_own_manage_or_belong_to(api, org):
    users, _ = org
    assert visible(api, users["emp_a"]) == ["emp_a_member", "managed_by_emp_a", "owned_by_emp_a"]
    assert visible(api, users["emp_b"]) == ["beta_only"]


def test_lead_sees_only_own_projects_not_squad_ones(api, org):
    users, _ = org
    assert visible(api, users["lead_a"]) == ["lead_a_own"]


def test_manager_sees_team_members_reports_and_squad_projects(api, org):
    users, _ = org
    assert visible(api, users["mgr"]) == ["alpha_squad", "emp_a_member", "lead_a_own", "managed_by_emp_a", "mgr_own",
                                          "owned_by_emp_a", "report_b_own"]


def test_manager_of_other_squad_sees_that_squad_only(api, org):
    users, _ = org
    # Beta manager's squad members: emp_b, outsider, report_b, head; outsider owns three Alpha-side projects.
    assert visible(api, users["beta_manager"]) == ["alpha_squad", "beta_only", "emp_a_member", "managed_by_emp_a",
                                                   "report_b_own"]


@pytest.mark.parametrize("level", ["head", "exec"])
def test_head_and_executive_see_all(api, org, level):
    users, projects = org
    assert visible(api, users[level]) == sorted(projects)


def test_out_of_scope_project_is_404_on_detail_sub_resources_and_writes(api, org):
    users, projects = org
    emp_b, pid = users["emp_b"], projects["owned_by_emp_a"].id
    base = f"/api/projects/{pid}"
    for path in ("", "/members", "/goals", "/decisions", "/tasks", "/profitability", "/ai-summary", "/deal",
                 "/history"):
        assert api.get(base + path, as_=emp_b).status == 404, path
    assert api.put(base, json={"name": "hijack"}, as_=emp_b).status == 404
    assert api.post(base + "/members", json={"user_id": emp_b.id}, as_=emp_b).status == 404
    assert api.post(base + "/goals", json={"title": "g"}, as_=emp_b).status == 404
    assert api.post(base + "/decisions", json={"title": "t", "decision": "d"}, as_=emp_b).status == 404
    assert api.post(base + "/ai-summary", as_=emp_b).status == 404
    assert api.put(base + "/deal", json={"deal_id": None}, as_=emp_b).status == 404
    assert api.delete(f"{base}/members/{users['emp_a'].id}", as_=emp_b).status == 404
    # The same requests are allowed for someone who sees the project.
    assert api.get(base, as_=users["emp_a"]).status == 200
    assert api.get(base, as_=users["mgr"]).status == 200


def test_manager_cannot_open_project_outside_team(api, org):
    users, projects = org
    assert api.get(f"/api/projects/{projects['beta_only'].id}", as_=users["mgr"]).status == 404
    assert api.get(f"/api/projects/{projects['report_b_own'].id}", as_=users["mgr"]).status == 200


def test_delete_outside_scope_is_404_even_with_manage(api, db, org):
    from tests.factories import grant

    users, projects = org
    grant(db, users["emp_b"], "projects", "manage")
    assert api.delete(f"/api/projects/{projects['owned_by_emp_a'].id}", as_=users["emp_b"]).status == 404
    assert api.delete(f"/api/projects/{projects['beta_only'].id}", as_=users["emp_b"]).status == 200


def test_becoming_a_member_brings_the_project_into_scope(api, org):
    users, projects = org
    pid = projects["beta_only"].id
    assert api.get(f"/api/projects/{pid}", as_=users["emp_a"]).status == 404
    assert api.post(f"/api/projects/{pid}/members", json={"user_id": users["emp_a"].id},
                    as_=users["emp_b"]).status == 201
    assert api.get(f"/api/projects/{pid}", as_=users["emp_a"]).status == 200


def test_user_without_projects_permission_is_403(api, db, org):
    from tests.factories import grant

    users, projects = org
    grant(db, users["emp_a"], "projects", "none")
    assert api.get("/api/projects", as_=users["emp_a"]).status == 403
    assert api.get(f"/api/projects/{projects['owned_by_emp_a'].id}", as_=users["emp_a"]).status == 403
