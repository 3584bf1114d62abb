"""Projects name their squad by a plain string (`projects.squad`) and a manager sees the projects of their squads by
that name. A squad's delete left the name on its projects, so a squad created later under the same name (another
manager's) inherited them; a rename left the old name, so the squad's own manager lost its projects and a squad later
given the old name got them. A rename now carries the projects with it, a delete clears their squad
(docs/decisions/admin.md)."""
from sqlalchemy import select

from chalicelib.areas.projects.models import Project
from tests.factories import make_user


def _squad_with_project(api, db, exec_user, name="Alpha"):
    manager = make_user(db, access_level="manager", name="First manager")
    owner = make_user(db, access_level="employee", name="Unrelated owner")
    squad = api.post("/api/admin/squads", as_=exec_user, json={"name": name, "manager_id": manager.id})
    assert squad.status == 201, squad
    project = api.post("/api/projects", as_=exec_user, json={"name": "Squad project", "squad": name,
                                                                "owner_id": owner.id})
    assert project.status == 201, project
    project_id = project.json["project"]["id"]
    assert api.get(f"/api/projects/{project_id}", as_=manager).status == 200  # the squad scope, before
    return manager, squad.json["squad"]["id"], project_id


def _listed(api, user) -> set[str]:
    answer = api.get("/api/projects", as_=user)
    assert answer.status == 200, answer
    return {project["id"] for project in answer.json["projects"]}


def test_a_renamed_squad_keeps_its_projects_and_the_old_name_gives_none(api, db, exec_user):
    manager, squad_id, project_id = _squad_with_project(api, db, exec_user)
    assert api.put(f"/api/admin/squads/{squad_id}", as_=exec_user, json={"name": "Alpha Team"}).status == 200

    seen = api.get(f"/api/projects/{project_id}", as_=manager)
    assert seen.status == 200, seen
    assert seen.json["project"]["squad"] == "Alpha Team"
    assert project_id in _listed(api, manager)

    # a squad later given the old name gets nothing of the renamed squad's
    other = make_user(db, access_level="manager", name="Second manager")
    assert api.post("/api/admin/squads", as_=exec_user, json={"name": "Alpha", "manager_id": other.id}).status == 201
    assert api.get(f"/api/projects/{project_id}", as_=other).status == 404
    assert project_id not in _listed(api, other)


def test_a_rename_changing_only_the_case_carries_the_projects(api, db, exec_user):
    manager, squad_id, project_id = _squad_with_project(api, db, exec_user, name="alpha")
    assert api.put(f"/api/admin/squads/{squad_id}", as_=exec_user, json={"name": "ALPHA"}).status == 200
    assert api.get(f"/api/projects/{project_id}", as_=manager).status == 200
    assert db.scalar(select(Project.squad).where(Project.id == project_id)) == "ALPHA"


def test_a_deleted_squads_projects_do_not_go_to_a_new_squad_of_the_same_name(api, db, exec_user):
    first, squad_id, project_id = _squad_with_project(api, db, exec_user)
    assert api.delete(f"/api/admin/squads/{squad_id}", as_=exec_user).status == 200
    assert api.get(f"/api/projects/{project_id}", as_=exec_user).json["project"]["squad"] is None

    second = make_user(db, access_level="manager", name="Second manager")
    again = api.post("/api/admin/squads", as_=exec_user, json={"name": "Alpha", "manager_id": second.id})
    assert again.status == 201, again
    assert api.get(f"/api/projects/{project_id}", as_=second).status == 404
    assert project_id not in _listed(api, second)
    assert api.get(f"/api/projects/{project_id}", as_=first).status == 404  # nor does the old squad's manager keep it


def test_a_rename_or_delete_leaves_other_squads_projects_alone(api, db, exec_user):
    _, alpha_id, alpha_project = _squad_with_project(api, db, exec_user, name="Alpha")
    beta_manager, _, beta_project = _squad_with_project(api, db, exec_user, name="Beta")
    assert api.put(f"/api/admin/squads/{alpha_id}", as_=exec_user, json={"name": "Gamma"}).status == 200
    assert api.delete(f"/api/admin/squads/{alpha_id}", as_=exec_user).status == 200
    squads = dict(db.execute(select(Project.id, Project.squad).where(Project.id.in_([alpha_project, beta_project]))).all())
    assert squads == {alpha_project: None, beta_project: "Beta"}
    assert api.get(f"/api/projects/{beta_project}", as_=beta_manager).status == 200
