"""The AI summary a client reads in the portal (`aiSummary`) follows the portal's audience (session 28): it is built
from no other client's request (session 24's rule, tasks' `_filed_for`), and a project moved to another client loses
the summary generated while it was the first client's."""
import pytest

from chalicelib.providers.ai.sandbox import SandboxAI
from tests.areas.portal.conftest import make_client
from tests.areas.projects.factories import make_project


@pytest.fixture
def quoting_model(monkeypatch):
    """A model that quotes the tasks it is told, as a live one may."""
    def model(self, facts):
        titles = ", ".join(task["title"] for task in facts["tasks"])
        return {"summary": f"{facts['name']} is {facts['status']}. Work in hand: {titles}. More soon.",
                "recommendations": ["Review open tasks.", "Agree the next goals."]}

    monkeypatch.setattr(SandboxAI, "project_summary", model)


def _request_of_first_client(portal, db):
    first, second = make_client(db), make_client(db)
    project = make_project(db, company_id=first.id)
    made = portal.post("/requests", first, role="collaborator", user="pu-a",
                       json={"title": "A's confidential request", "projectId": project.id})
    assert made.status == 201, made
    return first, second, project


def test_portal_ai_summary_is_not_built_from_another_clients_requests(portal, api, db, exec_user, quoting_model):
    _, second, project = _request_of_first_client(portal, db)
    assert api.put(f"/api/projects/{project.id}", as_=exec_user, json={"company_id": second.id}).status == 200
    assert api.post(f"/api/projects/{project.id}/ai-summary", as_=exec_user).status == 200
    summary = portal.get(f"/projects/{project.id}", second, user="pu-b").json["aiSummary"]
    assert "A's confidential request" not in summary["summary_text"], summary


def test_a_project_moved_to_another_client_loses_the_summary_of_the_first(portal, api, db, exec_user, quoting_model):
    first, second, project = _request_of_first_client(portal, db)
    assert api.post(f"/api/projects/{project.id}/ai-summary", as_=exec_user).status == 200
    assert "A's confidential request" in portal.get(f"/projects/{project.id}", first).json["aiSummary"]["summary_text"]
    assert api.put(f"/api/projects/{project.id}", as_=exec_user, json={"company_id": second.id}).status == 200
    assert portal.get(f"/projects/{project.id}", second, user="pu-b").json["aiSummary"] is None
    assert api.get(f"/api/projects/{project.id}/ai-summary", as_=exec_user).json == {"summary": None}


def test_a_project_edit_that_keeps_its_client_keeps_its_summary(portal, api, db, exec_user, quoting_model):
    first, _, project = _request_of_first_client(portal, db)
    assert api.post(f"/api/projects/{project.id}/ai-summary", as_=exec_user).status == 200
    assert api.put(f"/api/projects/{project.id}", as_=exec_user,
                   json={"company_id": first.id, "name": "Renamed"}).status == 200
    assert portal.get(f"/projects/{project.id}", first).json["aiSummary"] is not None


def test_a_summary_generated_while_its_project_moved_to_another_client_is_not_stored(portal, api, db, exec_user,
                                                                                      monkeypatch):
    from sqlalchemy import update

    from chalicelib.areas.projects.models import Project

    _, second, project = _request_of_first_client(portal, db)

    def model_while_the_project_moves(self, facts):
        db.execute(update(Project).where(Project.id == project.id).values(company_id=second.id))
        return {"summary": f"Work in hand: {facts['tasks'][0]['title']}. One. Two.",
                "recommendations": ["Review open tasks.", "Agree the next goals."]}

    monkeypatch.setattr(SandboxAI, "project_summary", model_while_the_project_moves)
    generated = api.post(f"/api/projects/{project.id}/ai-summary", as_=exec_user)
    assert generated.status == 409, generated
    assert portal.get(f"/projects/{project.id}", second, user="pu-b").json["aiSummary"] is None
