"""A client's portal request naming a project while staff delete that project, against a real HTTP server on
Postgres (the server and helpers of test_concurrency.py; deterministic: the other transaction holds the project's
row, as projects' delete_project does, while the request runs). The request reads the project share-locked (FOR KEY
SHARE, as a staff task create's link_project): it waits for the delete and then answers as for a missing project
(400 on projectId), leaving no task naming the deleted project. Before session 24 it read the project unlocked and
committed a task on the deleted project (201, the delivery manager told). An edit of the project (FOR NO KEY UPDATE)
does not hold it up."""
from __future__ import annotations

import json

from sqlalchemy import func, select, update

from tests.concurrency.conftest import PORTAL_TOKEN  # the server's portal service token
from tests.concurrency.test_concurrency import while_held
from tests.concurrency.test_concurrency import pytestmark  # noqa: F401 - Postgres only, as there


def _portal_post(base, path, company_id, body):
    import urllib.error
    import urllib.request

    request = urllib.request.Request(base + "/api/portal" + path, method="POST", data=json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {PORTAL_TOKEN}",
                                              "Content-Type": "application/json", "X-Portal-Company-Id": company_id,
                                              "X-Portal-User-Role": "admin", "X-Portal-User-Id": "pu-1"})
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def _client_project(sessions):
    from tests.areas.portal.conftest import make_client
    from tests.areas.projects.factories import make_project
    from tests.factories import make_user

    with sessions() as db:
        manager = make_user(db)
        company = make_client(db)
        project = make_project(db, company_id=company.id, delivery_manager_id=manager.id)
        db.commit()
        return company.id, project.id, manager.id


def _tasks_on(sessions, project_id: str) -> int:
    from chalicelib.areas.tasks.models import Task

    with sessions() as db:
        return db.scalar(select(func.count()).select_from(Task).where(Task.resource_type == "project",
                                                                      Task.resource_id == project_id))


def test_a_portal_request_filed_while_staff_delete_its_project_waits_and_is_refused(live):
    from chalicelib.areas.projects.models import Project
    from chalicelib.areas.tasks import service as tasks_service
    from chalicelib.core.locks import lock_row
    from chalicelib.core.notify import Notification

    base, sessions = live
    company_id, project_id, manager_id = _client_project(sessions)

    def delete_the_project(other):  # what projects.service.delete_project does, committed after the request ran
        lock_row(other, Project, project_id)
        tasks_service.project_deleted(other, project_id)
        other.delete(other.get(Project, project_id))
        other.flush()

    status, body = while_held(sessions, delete_the_project, lambda: _portal_post(
        base, "/requests", company_id, {"title": "Please fix", "projectId": project_id}), wait=1.5)
    assert status == 400, body
    assert body["details"][0]["field"] == "projectId", body
    assert _tasks_on(sessions, project_id) == 0
    with sessions() as db:
        assert db.scalar(select(func.count()).select_from(Notification).where(
            Notification.user_id == manager_id, Notification.type == "portal_request")) == 0


def test_a_portal_request_is_not_held_up_by_an_edit_of_its_project(live):
    """The share lock is the weakest (FOR KEY SHARE): an edit of the project in progress (its UPDATE's FOR NO KEY
    UPDATE) does not make the request wait."""
    import threading

    from chalicelib.areas.projects.models import Project

    base, sessions = live
    company_id, project_id, _ = _client_project(sessions)
    answers = []
    with sessions() as other:
        other.execute(update(Project).where(Project.id == project_id).values(name="Renamed"))
        request = threading.Thread(target=lambda: answers.append(_portal_post(
            base, "/requests", company_id, {"title": "Please fix", "projectId": project_id})))
        request.start()
        request.join(timeout=15)
        finished = not request.is_alive()
        other.commit()
    request.join(timeout=20)
    assert finished, "the request waited for an edit of its project"
    status, body = answers[0]
    assert status == 201, body
    assert _tasks_on(sessions, project_id) == 1
