"""AI editing and the request's transaction: the provider is called with no transaction open, and its failure
answers its status (502, 504) as a JSON error, with nothing written."""
import pytest
from sqlalchemy import func, select

from chalicelib.areas.pages.models import Page
from chalicelib.core.errors import BadGateway, GatewayTimeout
from chalicelib.providers.ai.sandbox import SandboxAI
from tests.factories import app_in_transaction, make_user

DOC = [{"type": "p", "children": [{"text": "The launch is planned for March."}]}]


@pytest.mark.parametrize("error, status", [(BadGateway("The AI provider answered HTTP 500"), 502),
                                           (GatewayTimeout("The AI provider did not answer"), 504)])
def test_a_failing_provider_answers_its_status_and_writes_nothing(api, db, monkeypatch, error, status):
    user = make_user(db)
    pages_before = db.scalar(select(func.count()).select_from(Page))
    open_during_call = []

    def failing(self, **kwargs):
        open_during_call.append(app_in_transaction(db))
        raise error

    monkeypatch.setattr(SandboxAI, "edit_text", failing)
    monkeypatch.setattr(SandboxAI, "complete", failing)
    edited = api.post("/api/pages/ai/command", as_=user, json={
        "ctx": {"children": DOC, "selection": None},
        "messages": [{"role": "user", "parts": [{"type": "text", "text": "write more"}]}]})
    assert edited.status == status and edited.json == {"error": error.message}, edited
    completed = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "The plan"})
    assert completed.status == status and completed.json == {"error": error.message}, completed
    assert open_during_call == [False, False]
    assert db.scalar(select(func.count()).select_from(Page)) == pages_before
