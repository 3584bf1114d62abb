"""Research runs and the request's transaction: the fetch and the AI call run with no transaction open; a
provider failure (here a timeout, 504) is recorded as the decisions file says: one `failed` brief, nothing
else half-written."""
from sqlalchemy import func, select

from chalicelib.areas.research.models import ResearchBrief
from chalicelib.core.errors import GatewayTimeout
from chalicelib.core.models import HistoryEntry
from chalicelib.providers.ai.sandbox import SandboxAI
from chalicelib.providers.website.sandbox import SandboxWebsite
from tests.areas.deals.factories import make_company
from tests.factories import app_in_transaction


def test_a_timed_out_ai_call_stores_one_failed_brief_and_holds_no_transaction(api, db, employee, monkeypatch):
    company = make_company(db, website="https://shop-three.com")
    open_during_calls = []

    def in_transaction():
        return app_in_transaction(db)

    fetch = SandboxWebsite.fetch

    def watched_fetch(self, url):
        open_during_calls.append(in_transaction())
        return fetch(self, url)

    def timed_out(self, page):
        open_during_calls.append(in_transaction())
        raise GatewayTimeout("The AI provider did not answer within 30 s")

    monkeypatch.setattr(SandboxWebsite, "fetch", watched_fetch)
    monkeypatch.setattr(SandboxAI, "research_brief", timed_out)
    answer = api.post("/api/research/run", as_=employee, json={"entity_type": "company", "entity_id": company.id})
    assert answer.status == 201, answer
    brief = answer.json["brief"]
    assert brief["status"] == "failed" and "did not answer" in brief["error"] and brief["brief_content"] is None
    assert open_during_calls == [False, False]
    assert db.scalar(select(func.count()).select_from(ResearchBrief)
                     .where(ResearchBrief.company_id == company.id)) == 1
    assert db.scalars(select(HistoryEntry.action).where(HistoryEntry.entity_id == company.id)).all() == ["research_run"]
