"""Session 29, code no test ran (coverage audit): a fetched page the HTML parser gives up on part way (a marked
section it does not know raises in html.parser) still gives what was read before the fault: a completed brief,
not a 500."""
import responses

from tests.areas.deals.factories import make_company


@responses.activate
def test_a_page_the_parser_gives_up_on_still_makes_a_brief(api, db, employee, set_env):
    set_env(WEBSITE_MODE="live")
    responses.get("https://odd-shop.com/", body='<html><head><title>Odd Shop</title>'
                                                '<meta name="description" content="Shoes for all"></head>'
                                                '<body><h2>Shoes</h2><p>Made in Sydney</p><![bogus[ x ]]>'
                                                '<h2>Never read</h2></body></html>')
    company = make_company(db, website="https://odd-shop.com/")
    answer = api.post("/api/research/run", as_=employee, json={"entity_type": "company", "entity_id": company.id})
    assert answer.status == 201, answer
    brief = answer.json["brief"]
    assert brief["status"] == "completed", brief
    page = brief["brief_content"]["page"]
    assert page["title"] == "Odd Shop"
    assert brief["brief_content"]["offering"] == ["Shoes"]


def test_a_deal_deleted_while_its_page_was_read_is_a_404_and_stores_no_brief(api, db, employee, monkeypatch):
    """The fetch and the AI call run outside the transaction; a deal deleted meanwhile is answered as a run after the
    delete (404 naming it), not a brief naming a deleted deal (its foreign key's 500)."""
    from sqlalchemy import delete, func, select

    from chalicelib.areas.deals.models import Deal
    from chalicelib.areas.research.models import ResearchBrief
    from chalicelib.providers.ai.sandbox import SandboxAI
    from tests.areas.deals.factories import make_deal

    company = make_company(db, website="https://gone-shop.com")
    deal = make_deal(db, company_id=company.id, title="Gone deal")
    brief = SandboxAI.research_brief

    def deleted_meanwhile(self, page):
        db.execute(delete(Deal).where(Deal.id == deal.id))  # another request's delete, committed meanwhile
        db.flush()
        return brief(self, page)

    monkeypatch.setattr(SandboxAI, "research_brief", deleted_meanwhile)
    answer = api.post("/api/research/run", as_=employee, json={"entity_type": "deal", "entity_id": deal.id})
    assert answer.status == 404, answer
    assert answer.json == {"error": "Deal not found"}
    assert db.scalar(select(func.count()).select_from(ResearchBrief).where(ResearchBrief.company_id == company.id)) == 0
