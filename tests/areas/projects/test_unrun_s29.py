"""Session 29, "code no test runs": the projects area's lines the coverage run left unexecuted, run through the API."""
from sqlalchemy import delete

from chalicelib.areas.projects.models import Project
from chalicelib.providers.ai.sandbox import SandboxAI
from tests.factories import make_squad, make_user

from .factories import make_project


def test_a_blank_squad_or_ticket_address_is_stored_as_none(api, db):
    boss = make_user(db, access_level="executive")
    make_squad(db, name="Blue")
    made = api.post("/api/projects", as_=boss, json={"name": "Atlas", "squad": "", "auto_ticket_from_email": "  "})
    assert made.status == 201, made.json
    project = made.json["project"]
    assert project["squad"] is None and project["auto_ticket_from_email"] is None
    path = f"/api/projects/{project['id']}"
    assert api.put(path, as_=boss, json={"squad": "Blue", "auto_ticket_from_email": "in@example.com"}).status == 200
    cleared = api.put(path, as_=boss, json={"squad": " ", "auto_ticket_from_email": ""})
    assert cleared.status == 200, cleared.json
    assert cleared.json["project"]["squad"] is None and cleared.json["project"]["auto_ticket_from_email"] is None
    assert api.get("/api/projects?squad=Blue", as_=boss).json["projects"] == []


def test_a_project_deleted_while_its_summary_was_generated_is_404_and_nothing_stored(api, db, monkeypatch):
    from chalicelib.core.db import unit_of_work

    boss = make_user(db, access_level="executive")
    project_id = make_project(db, name="Atlas").id
    real = SandboxAI.project_summary

    def project_summary(self, facts):
        answer = real(self, facts)
        with unit_of_work() as uow:  # deleted by someone else while the provider answered
            uow.session.execute(delete(Project).where(Project.id == project_id))
        return answer

    monkeypatch.setattr(SandboxAI, "project_summary", project_summary)
    answer = api.post(f"/api/projects/{project_id}/ai-summary", as_=boss)
    assert answer.status == 404 and answer.json == {"error": "Project not found"}
