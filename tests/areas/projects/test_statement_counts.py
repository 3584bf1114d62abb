"""Projects: every list a route answers costs the same statements at 5 and at 100 rows (docs/area-contract.md,
"Reads"). The project list itself is tested in test_projects.py."""
from chalicelib.areas.projects.models import ProjectDecision, ProjectGoal
from chalicelib.core.locks import insert_rows
from chalicelib.core.models import HistoryEntry
from tests.areas.tasks.factories import make_task, priority, status
from tests.factories import assert_constant, make_user

from .factories import add_member, make_project


def test_detail_members_and_goals(api, db, exec_user, count_queries):
    project = make_project(db, owner_id=exec_user.id, delivery_manager_id=exec_user.id)

    def grow(n):
        for _ in range(n):
            add_member(db, project, make_user(db, picture="p.png", job_title="Dev"))
        start = len(db.query(ProjectGoal).filter_by(project_id=project.id).all())
        insert_rows(db, ProjectGoal, [{"project_id": project.id, "title": f"G{start + i}", "position": start + i,
                                       "created_by": exec_user.id} for i in range(n)])

    body = assert_constant(api, count_queries, exec_user, f"/api/projects/{project.id}", grow,
                           lambda b: len(b["members"]) if len(b["members"]) == len(b["goals"]) else -1)
    assert all(m["name"] and m["job_title"] == "Dev" for m in body["members"])


def test_members(api, db, exec_user, count_queries):
    project = make_project(db)

    def grow(n):
        for _ in range(n):
            add_member(db, project, make_user(db, picture="p.png", job_title="Dev"))

    body = assert_constant(api, count_queries, exec_user, f"/api/projects/{project.id}/members", grow,
                           lambda b: len(b["members"]))
    assert all(m["name"] and m["picture"] == "p.png" for m in body["members"])


def test_goals(api, db, exec_user, count_queries):
    project = make_project(db)

    def grow(n):
        insert_rows(db, ProjectGoal, [{"project_id": project.id, "title": f"G{i}", "position": i,
                                       "created_by": make_user(db).id} for i in range(n)])

    assert_constant(api, count_queries, exec_user, f"/api/projects/{project.id}/goals", grow,
                    lambda b: len(b["goals"]))


def test_decisions(api, db, exec_user, count_queries):
    project = make_project(db)

    def grow(n):
        insert_rows(db, ProjectDecision, [{"project_id": project.id, "title": f"D{i}", "decision": "Yes",
                                           "decided_by": make_user(db).id, "created_by": exec_user.id}
                                          for i in range(n)])

    body = assert_constant(api, count_queries, exec_user, f"/api/projects/{project.id}/decisions", grow,
                           lambda b: len(b["decisions"]))
    assert all(d["decided_by_name"] for d in body["decisions"])


def test_history(api, db, exec_user, count_queries):
    project = make_project(db)

    def grow(n):
        insert_rows(db, HistoryEntry, [{"entity_type": "project", "entity_id": project.id, "action": "updated",
                                        "actor_id": make_user(db).id, "changes": {"name": {"from": "a", "to": "b"}}}
                                       for _ in range(n)])

    body = assert_constant(api, count_queries, exec_user, f"/api/projects/{project.id}/history", grow,
                           lambda b: len(b["history"]))
    assert all(h.get("actor_name") for h in body["history"])


def test_tasks(api, db, exec_user, count_queries):
    project = make_project(db)
    todo, high = status(db, "todo"), priority(db, "high")

    def grow(n):
        for _ in range(n):
            parent = make_task(db, resource_type="project", resource_id=project.id, status_id=todo.id,
                               priority_id=high.id, assignee_id=make_user(db).id)
            make_task(db, resource_type="project", resource_id=project.id, parent_task_id=parent.id)

    body = assert_constant(api, count_queries, exec_user, f"/api/projects/{project.id}/tasks", grow,
                           lambda b: len(b["tasks"]))
    assert all(t["assignee_name"] and t["status_label"] for t in body["tasks"])
