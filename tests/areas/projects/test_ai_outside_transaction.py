"""No provider call runs while the request's database transaction is open (issue 9 item 5): the project
AI summary reads its facts, gives the connection back, calls the provider, then writes."""
import pytest

from tests.areas.projects.factories import make_project
from tests.factories import app_in_transaction, make_user


class WatchingAI:
    """A provider that records whether any session of the app holds a transaction while it works."""

    def __init__(self, test_session) -> None:
        self.test_session = test_session
        self.open_during_call: list[bool] = []

    def _check(self):
        self.open_during_call.append(app_in_transaction(self.test_session))

    def project_summary(self, facts):
        self._check()
        return {"summary": f"{facts['name']} is on track", "recommendations": ["Keep going"]}

    def edit_text(self, **kwargs):
        self._check()
        return "edited"


@pytest.fixture
def watching_ai(monkeypatch, db):
    import chalicelib.providers.ai as ai

    provider = WatchingAI(db)
    monkeypatch.setattr(ai, "get_ai", lambda: provider)
    return provider


def test_the_summary_provider_call_holds_no_transaction(api, db, watching_ai):
    boss = make_user(db, access_level="executive")
    project = make_project(db, name="Atlas")
    response = api.post(f"/api/projects/{project.id}/ai-summary", as_=boss)
    assert response.status == 200, response
    assert response.json["summary"]["summary_text"] == "Atlas is on track"
    assert watching_ai.open_during_call == [False]
    again = api.get(f"/api/projects/{project.id}/ai-summary", as_=boss)
    assert again.json["summary"]["summary_text"] == "Atlas is on track"  # written after the call, committed


def test_release_refuses_unsaved_changes(db):
    from chalicelib.core.db import UnitOfWork
    from chalicelib.core.models import Squad

    uow = UnitOfWork()
    try:
        uow.session.add(Squad(name="pending"))
        with pytest.raises(RuntimeError, match="unsaved"):
            uow.release()
    finally:
        uow.rollback()
        uow.close()
