"""Cross-area effects of service levels: a task created in a project with an SLA policy gets its SLA, and the
project detail names the policy with its hours."""
from datetime import datetime

from tests.areas.projects.factories import make_project
from tests.factories import config_item


def _policy(api, user, db):
    high, low = config_item(db, "task_priority", "high"), config_item(db, "task_priority", "low")
    return api.post("/api/sla/policies", as_=user, json={"name": "Support", "rules": [
        {"priority_id": high.id, "response_hours": 2, "resolution_hours": 8},
        {"priority_id": low.id, "response_hours": 24, "resolution_hours": 72}]}).json["policy"], high


def _parse(stamp):
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def test_task_created_in_a_support_project_gets_its_sla(api, db, exec_user):
    policy, high = _policy(api, exec_user, db)
    project = make_project(db, sla_policy_id=policy["id"])
    created = api.post("/api/tasks", as_=exec_user, json={
        "title": "Printer down", "resource_type": "project", "resource_id": project.id, "priority_id": high.id})
    assert created.status == 201, created
    task = created.json["task"]
    sla = api.get(f"/api/sla/tasks/{task['id']}", as_=exec_user).json["sla"]
    assert sla["policy_id"] == policy["id"] and sla["response_hours"] == 2
    assert _parse(sla["created_at"]) == _parse(task["created_at"])
    assert (_parse(sla["response_deadline"]) - _parse(sla["created_at"])).total_seconds() == 2 * 3600
    assert (_parse(sla["resolution_deadline"]) - _parse(sla["created_at"])).total_seconds() == 8 * 3600


def test_no_sla_without_policy_priority_or_rule(api, db, exec_user):
    policy, high = _policy(api, exec_user, db)
    support = make_project(db, sla_policy_id=policy["id"])
    plain = make_project(db)
    medium = config_item(db, "task_priority", "medium")
    cases = [{"resource_type": "project", "resource_id": plain.id, "priority_id": high.id},
             {"resource_type": "project", "resource_id": support.id},
             {"resource_type": "project", "resource_id": support.id, "priority_id": medium.id},
             {"priority_id": high.id}]
    for extra in cases:
        created = api.post("/api/tasks", as_=exec_user, json={"title": "T", **extra})
        assert created.status == 201, (extra, created)
        assert api.get(f"/api/sla/tasks/{created.json['task']['id']}", as_=exec_user).json == {"sla": None}, extra


def test_project_detail_names_its_sla_policy(api, db, exec_user):
    policy, high = _policy(api, exec_user, db)
    project = make_project(db, sla_policy_id=policy["id"], owner_id=exec_user.id)
    detail = api.get(f"/api/projects/{project.id}", as_=exec_user).json["project"]
    assert detail["sla_policy_name"] == "Support"
    assert (detail["sla_response_hours"], detail["sla_resolution_hours"]) == (24, 72)  # first rule by position (Low)
    medium = config_item(db, "task_priority", "medium")
    api.put(f"/api/sla/policies/{policy['id']}", as_=exec_user, json={"rules": [
        {"priority_id": high.id, "response_hours": 2, "resolution_hours": 8},
        {"priority_id": medium.id, "response_hours": 4, "resolution_hours": 16}]})
    detail = api.get(f"/api/projects/{project.id}", as_=exec_user).json["project"]
    assert (detail["sla_response_hours"], detail["sla_resolution_hours"]) == (4, 16)  # the default priority's rule
    plain = make_project(db, owner_id=exec_user.id)
    assert api.get(f"/api/projects/{plain.id}", as_=exec_user).json["project"]["sla_policy_name"] is None


def test_a_project_names_only_an_existing_policy(api, db, exec_user):
    """sla_policy_id on a project write must name a policy (400 naming the field); nothing is written."""
    policy, _high = _policy(api, exec_user, db)
    refused = api.post("/api/projects", as_=exec_user, json={"name": "Helpdesk", "sla_policy_id": "no-such-policy"})
    assert refused.status == 400, refused
    assert refused.json["details"] == [{"field": "sla_policy_id", "message": "no SLA policy has this id"}]
    assert api.get("/api/projects?search=Helpdesk", as_=exec_user).json["projects"] == []

    created = api.post("/api/projects", as_=exec_user, json={"name": "Helpdesk", "sla_policy_id": policy["id"]})
    assert created.status == 201, created
    project = created.json["project"]
    assert (project["sla_policy_id"], project["sla_policy_name"]) == (policy["id"], "Support")

    refused = api.put(f"/api/projects/{project['id']}", as_=exec_user, json={"sla_policy_id": "no-such-policy"})
    assert refused.status == 400, refused
    assert refused.json["details"] == [{"field": "sla_policy_id", "message": "no SLA policy has this id"}]
    kept = api.get(f"/api/projects/{project['id']}", as_=exec_user).json["project"]
    assert kept["sla_policy_id"] == policy["id"]

    cleared = api.put(f"/api/projects/{project['id']}", as_=exec_user, json={"sla_policy_id": None})
    assert cleared.status == 200, cleared
    assert cleared.json["project"]["sla_policy_id"] is None


def test_deleting_a_policy_clears_it_on_its_projects(api, db, exec_user):
    """The foreign key (sla_0002, ON DELETE SET NULL) keeps no project naming a deleted policy."""
    policy, _high = _policy(api, exec_user, db)
    project = make_project(db, sla_policy_id=policy["id"], owner_id=exec_user.id)
    assert api.delete(f"/api/sla/policies/{policy['id']}", as_=exec_user).status == 200
    detail = api.get(f"/api/projects/{project.id}", as_=exec_user).json["project"]
    assert (detail["sla_policy_id"], detail["sla_policy_name"]) == (None, None)
