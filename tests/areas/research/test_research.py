"""Research briefs at /api/research (tool deals): run, refresh, read, lists; sandbox website and AI."""
import pytest
from sqlalchemy import select

from chalicelib.core.models import HistoryEntry
from chalicelib.core.notify import Notification
from tests.areas.deals.factories import make_company, make_deal
from tests.conftest import RESOLVES
from tests.factories import grant, make_user


def _run(api, user, **body):
    return api.post("/api/research/run", as_=user, json=body)


@pytest.mark.smoke
def test_run_for_a_deal(api, db, employee):
    owner = make_user(db)
    company = make_company(db, website="https://www.acme-homewares.com.au")
    deal = make_deal(db, company_id=company.id, owner_id=owner.id, title="Acme replatform")
    answer = _run(api, employee, entity_type="deal", entity_id=deal.id)
    assert answer.status == 201, answer
    brief = answer.json["brief"]
    assert (brief["status"], brief["platform_detected"], brief["platform"], brief["url"]) == (
        "completed", 1, "Shopify", "https://www.acme-homewares.com.au")
    assert (brief["entity_type"], brief["entity_id"], brief["deal_id"], brief["company_id"]) == (
        "deal", deal.id, deal.id, company.id)
    content = brief["brief_content"]
    assert content["company_summary"].startswith("Acme Homewares") and content["talking_points"]
    assert content["page"]["title"] == "Acme Homewares | Official Store" and content["platform"] == "Shopify"
    assert brief["created_by"] == employee.id and brief["created_by_name"] == employee.name
    entry = db.scalar(select(HistoryEntry).where(HistoryEntry.entity_id == deal.id))
    assert (entry.entity_type, entry.action, entry.changes["brief_id"]) == ("deal", "research_run", brief["id"])
    sent = db.scalars(select(Notification).where(Notification.resource_id == brief["id"])).all()
    assert [(n.user_id, n.action_url) for n in sent] == [(owner.id, f"/deals/{deal.id}?brief={brief['id']}")]
    assert api.get(f"/api/research/{brief['id']}", as_=employee).json["brief"] == brief
    # the owner running it is not notified; the deal's own website comes before the company's
    deal.owner_id = employee.id
    deal.website = "shop.acme.test"
    db.flush()
    again = _run(api, employee, entity_type="deal", entity_id=deal.id).json["brief"]
    assert again["url"] == "https://shop.acme.test"
    assert db.scalars(select(Notification).where(Notification.resource_id == again["id"])).all() == []


def test_a_deal_owner_who_may_not_read_the_deal_is_not_told(api, db, employee):
    """docs/decisions/research.md: `research_brief_ready` only to a deal owner who may read the deal and its briefs
    (active, deals:view, the deal in their scope: the deals service's `seen_by`); an owner whose deals permission
    is none (GET /api/research/<brief> answers 403) is told nothing (audit 6)."""
    owner = make_user(db)
    grant(db, owner, "deals", "none")
    company = make_company(db, website="https://www.acme-homewares.com.au")
    deal = make_deal(db, company_id=company.id, owner_id=owner.id, title="Acme replatform")
    answer = _run(api, employee, entity_type="deal", entity_id=deal.id)
    assert answer.status == 201, answer
    brief_id = answer.json["brief"]["id"]
    assert api.get(f"/api/research/{brief_id}", as_=owner).status == 403  # the owner cannot read it
    assert db.scalars(select(Notification).where(Notification.user_id == owner.id)).all() == []
    grant(db, owner, "deals", "view")  # once they may read it, a refresh tells them
    again = api.post(f"/api/research/{brief_id}/refresh", as_=employee).json["brief"]
    sent = db.scalars(select(Notification).where(Notification.user_id == owner.id)).all()
    assert [(n.type, n.resource_id, n.title) for n in sent] == [
        ("research_brief_ready", again["id"], "Research brief ready: Acme replatform")]


def test_run_for_a_company_falls_back_to_the_domain(api, db, employee):
    company = make_company(db, domain="bestbuy-store.com")
    brief = _run(api, employee, entity_type="company", entity_id=company.id).json["brief"]
    assert (brief["url"], brief["deal_id"], brief["company_id"]) == ("https://bestbuy-store.com", None, company.id)
    given = _run(api, employee, entity_type="company", entity_id=company.id, store_url="http://other-shop.com/")
    assert given.json["brief"]["url"] == "http://other-shop.com/"


def test_run_errors(api, db, employee):
    company = make_company(db)  # no website, no domain
    lonely = make_deal(db)  # no company
    deal = make_deal(db, company_id=company.id)
    for body in ({"entity_id": deal.id}, {"entity_type": "lead", "entity_id": deal.id}, {"entity_type": "deal"},
                 {"entity_type": "deal", "entity_id": ""}, {"entity_type": None, "entity_id": deal.id}):
        assert _run(api, employee, **body).status == 400, body
    assert _run(api, employee, entity_type="deal", entity_id="missing").status == 404
    assert _run(api, employee, entity_type="deal", entity_id=lonely.id).status == 404
    assert _run(api, employee, entity_type="company", entity_id="missing").status == 404
    none = _run(api, employee, entity_type="deal", entity_id=deal.id)
    assert none.status == 422 and "No URL" in none.json["error"]
    RESOLVES.update({"internal.example.com": ["10.0.0.1"], "metadata.example.com": ["169.254.169.254"],
                     "six.example.com": ["::1"], "mapped.example.com": ["::ffff:127.0.0.1"]})
    for url in ("ftp://shop.example.com/", "javascript:alert(1)", "http://shop.example.com:8080/",
                "https://127.0.0.1/", "http://[::1]/", "http://169.254.169.254/latest/meta-data/",
                "http://internal.example.com/", "https://metadata.example.com/", "https://six.example.com/",
                "https://mapped.example.com/", "http://localhost/", "http://user:pw@shop.example.com/",
                "http://shop.example.com:99999/", "http://0.0.0.0/", "http://[fd00::1]/"):
        refused = _run(api, employee, entity_type="deal", entity_id=deal.id, store_url=url)
        assert refused.status == 422, (url, refused)
    from chalicelib.areas.research.models import ResearchBrief

    assert db.scalar(select(ResearchBrief.id).where(ResearchBrief.deal_id == deal.id)) is None
    grant(db, employee, "deals", "view")
    assert _run(api, employee, entity_type="deal", entity_id=deal.id, store_url="https://a.com").status == 403


def test_refresh_keeps_history_and_lists_newest_first(api, db, employee):
    company = make_company(db, website="https://shop-one.com")
    deal = make_deal(db, company_id=company.id)
    first = _run(api, employee, entity_type="deal", entity_id=deal.id).json["brief"]
    own = _run(api, employee, entity_type="company", entity_id=company.id).json["brief"]
    refreshed = api.post(f"/api/research/{first['id']}/refresh", as_=employee)
    assert refreshed.status == 201, refreshed
    fresh = refreshed.json["brief"]
    assert fresh["id"] != first["id"] and (fresh["url"], fresh["deal_id"], fresh["refreshed_from_id"]) == (
        first["url"], deal.id, first["id"])
    assert api.get(f"/api/research/{first['id']}", as_=employee).status == 200  # history kept
    deal_list = api.get(f"/api/research/deals/{deal.id}/briefs", as_=employee).json["briefs"]
    assert [b["id"] for b in deal_list] == [fresh["id"], first["id"]]
    company_list = api.get(f"/api/research/companies/{company.id}/briefs", as_=employee).json["briefs"]
    assert [b["id"] for b in company_list] == [fresh["id"], own["id"], first["id"]]
    assert api.post("/api/research/missing/refresh", as_=employee).status == 404
    assert api.get("/api/research/missing", as_=employee).status == 404
    assert api.get("/api/research/deals/missing/briefs", as_=employee).status == 404
    assert api.get("/api/research/companies/missing/briefs", as_=employee).status == 404


def test_provider_failures_store_a_failed_brief(api, db, employee, set_env, monkeypatch):
    company = make_company(db, website="https://shop-two.com")
    set_env(AI_MODE="off")
    failed = _run(api, employee, entity_type="company", entity_id=company.id)
    assert failed.status == 201
    brief = failed.json["brief"]
    assert brief["status"] == "failed" and brief["brief_content"] is None and "AI provider" in brief["error"]
    assert brief["platform"] == "Shopify"  # the page was read
    set_env(AI_MODE="sandbox")
    from chalicelib.providers.ai.sandbox import SandboxAI

    monkeypatch.setattr(SandboxAI, "research_brief", lambda self, page: {"company_summary": "x"})
    off_schema = _run(api, employee, entity_type="company", entity_id=company.id).json["brief"]
    assert off_schema["status"] == "failed" and "schema" in off_schema["error"]


def test_lists_cost_constant_statements(api, db, exec_user, count_queries):
    from chalicelib.areas.research.models import ResearchBrief

    def cost(n):
        company = make_company(db)
        deal = make_deal(db, company_id=company.id)
        for i in range(n):
            db.add(ResearchBrief(entity_type="deal", entity_id=deal.id, deal_id=deal.id, company_id=company.id,
                                 url="https://x.com", status="completed", platform_detected=False,
                                 created_by=make_user(db).id if i % 10 == 0 else exec_user.id))
        db.flush()
        counts = []
        for path in (f"/api/research/deals/{deal.id}/briefs", f"/api/research/companies/{company.id}/briefs"):
            with count_queries() as counter:
                assert len(api.get(path, as_=exec_user).json["briefs"]) == n
            counts.append(counter.count)
        return counts

    assert cost(5) == cost(100)


def test_company_runs_and_refreshes_leave_a_history_entry_on_the_company(api, db, employee):
    """Document 2, Events: research run -> a history entry on the deal or company (a refresh too)."""
    company = make_company(db, domain="history-shop.com")
    brief = _run(api, employee, entity_type="company", entity_id=company.id).json["brief"]
    fresh = api.post(f"/api/research/{brief['id']}/refresh", as_=employee).json["brief"]
    entries = db.scalars(select(HistoryEntry).where(HistoryEntry.entity_id == company.id)
                         .order_by(HistoryEntry.created_at, HistoryEntry.id)).all()
    assert [(e.entity_type, e.action, e.actor_id, e.changes["brief_id"], e.changes["url"]) for e in entries] == [
        ("company", "research_run", employee.id, brief["id"], "https://history-shop.com"),
        ("company", "research_refreshed", employee.id, fresh["id"], "https://history-shop.com")]


def test_view_reads_update_runs_and_company_runs_notify_nobody(api, db, employee):
    """Document 2, Research: deals:view reads, deals:update runs and refreshes; the notification goes to a
    deal owner only."""
    owner = make_user(db)
    company = make_company(db, domain="quiet-shop.com", owner_id=owner.id)
    brief = _run(api, employee, entity_type="company", entity_id=company.id).json["brief"]
    assert db.scalars(select(Notification).where(Notification.resource_id == brief["id"])).all() == []
    grant(db, employee, "deals", "view")
    for path in (f"/api/research/{brief['id']}", f"/api/research/companies/{company.id}/briefs"):
        assert api.get(path, as_=employee).status == 200, path
    assert api.post(f"/api/research/{brief['id']}/refresh", as_=employee).status == 403
    grant(db, employee, "deals", "none")
    assert api.get(f"/api/research/{brief['id']}", as_=employee).status == 403
