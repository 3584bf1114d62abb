"""The project's AI summary is shown to the client as it is stored (GET /api/portal/projects/{id}: `aiSummary`),
but staff generate it (POST /api/projects/{id}/ai-summary) from every top-level task *they* can see, private ones
included (projects/service_insights.summary_facts). A model that names the work it summarises puts private task
titles in front of the client; even the sandbox's summary counts them ("It has 2 top-level tasks") while the
portal's own counts leave them out.

Fixed (security audit S4): `summary_facts` leaves private tasks out (the AI reads top-level tasks only, so none is
under a private task), as the portal's task list does."""
import pytest

from chalicelib.providers.ai.sandbox import SandboxAI
from tests.areas.portal.conftest import TOKEN, Portal, make_client
from tests.areas.projects.factories import make_project
from tests.areas.tasks.factories import make_task
from tests.factories import make_user


@pytest.fixture
def portal(api, set_env):
    set_env(PORTAL_SERVICE_TOKEN=TOKEN)
    return Portal(api)

SECRET = "Renegotiate: we bill 3x what the contractor costs"


def test_the_client_reads_no_private_task_in_the_ai_summary(portal, api, db, monkeypatch):
    original = SandboxAI.project_summary

    def naming_the_work(self, facts):  # a model that mentions what it summarises, as a real one does
        answer = original(self, facts)
        titles = ", ".join(task["title"] for task in facts.get("tasks") or [])
        answer["recommendations"][-1] = f"Follow up on: {titles}."
        return answer

    monkeypatch.setattr(SandboxAI, "project_summary", naming_the_work)

    staff = make_user(db, access_level="executive")
    company = make_client(db)
    project = make_project(db, company_id=company.id, owner_id=staff.id)
    make_task(db, title="Homepage redesign", resource_type="project", resource_id=project.id)
    make_task(db, title=SECRET, resource_type="project", resource_id=project.id, is_private=True)
    generated = api.post(f"/api/projects/{project.id}/ai-summary", as_=staff)
    assert generated.status == 200, generated

    answer = portal.get(f"/projects/{project.id}", company)
    assert answer.status == 200, answer
    summary = answer.json["aiSummary"]
    assert SECRET not in " ".join([summary["summary_text"], *summary["recommendations"]]), summary
    assert "It has 1 top-level task," in summary["summary_text"], summary  # the portal counts 1
