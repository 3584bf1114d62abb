"""Research briefs: run for a deal or a company, refresh (a new record, history kept), read and list.

Run: the URL is `store_url`, else the deal's website, else the company's website or domain (422 when there is
none, or it is not an http(s) URL on port 80 or 443 of a public host). The page is fetched through the website
provider (core.netguard rules) and the brief written by the AI provider as JSON checked against BriefContent;
a fetch or provider failure stores a `failed` brief. The slow calls run after the read transaction is released
(ctx.release_connection). Side effects: a history entry on the deal or company; the deal owner notified when
they are not the caller.
"""
from __future__ import annotations

import logging
from urllib.parse import urlsplit

from pydantic import ValidationError

from chalicelib.core import history
from chalicelib.core.errors import DomainError, NotFound, Unprocessable
from chalicelib.core.netguard import FetchFailed, UnsafeURL, check_public_web_url

from .models import ResearchBrief
from .queries import brief_record, brief_records, load_brief
from .schemas import BriefContent
from .service_page import read_page

log = logging.getLogger("wms.research")


def _target(ctx, entity_type: str, entity_id: str) -> dict:
    """`{entity_type, entity_id, deal, company}` (deal None for a company); 404 when the deal or company is
    missing, or the deal has no company."""
    from chalicelib.areas.deals import service as deals_service

    if entity_type == "deal":
        deal = deals_service.deal_facts(ctx.db, entity_id)
        if deal is None:
            raise NotFound("Deal not found")
        company = deals_service.company_facts(ctx.db, deal["company_id"])
        if company is None:
            raise NotFound("The deal has no company linked")
        return {"entity_type": "deal", "entity_id": deal["id"], "deal": deal, "company": company}
    company = deals_service.company_facts(ctx.db, entity_id)
    if company is None:
        raise NotFound("Company not found")
    return {"entity_type": "company", "entity_id": company["id"], "deal": None, "company": company}


def _url_for(target: dict, store_url: str | None, *, stored_as: str | None = None) -> str:
    """The URL to research: `store_url`, else the deal's website, else the company's website, else its domain
    (docs/decisions/research.md). A refused one is a 422 naming `store_url` only when it is the `store_url` the
    request sent; one taken from a record (the deal's or company's website or domain, or, on a refresh, the brief's
    URL: `stored_as`) names no field, its message saying whose URL it is (session 32: all named `store_url`, a field
    the request had not sent, or that the refresh route does not take)."""
    candidates = [(store_url, "store_url" if stored_as is None else stored_as),
                  ((target["deal"] or {}).get("website"), "the deal's website"),
                  (target["company"].get("website"), "the company's website"),
                  (target["company"].get("domain"), "the company's domain")]
    url, source = next(((value.strip(), source) for value, source in candidates if value and value.strip()),
                       (None, None))
    if url is None:
        raise Unprocessable("No URL available: give store_url, or set the deal's or company's website or domain")
    if "://" not in url:
        url = f"https://{url}"
    try:
        check_public_web_url(url)
    except UnsafeURL as exc:
        if source == "store_url":
            raise Unprocessable(f"Invalid URL: {exc}",
                                details=[{"field": "store_url", "message": str(exc)}]) from exc
        raise Unprocessable(f"Invalid URL ({source}, {url[:200]}): {exc}") from exc
    return url


def _generate(url: str) -> dict:
    """Fetch, read and summarise: `{status, platform, brief_content, error}`; failures become a failed brief."""
    from chalicelib.providers.ai import get_ai
    from chalicelib.providers.website import get_website

    platform = None
    try:
        try:
            website = get_website()
        except DomainError as exc:  # website fetching off (503): the site's failure, not the AI provider's
            raise FetchFailed(exc.message) from exc
        page = website.fetch(url)
        facts = read_page(page.url, page.text)
        platform = facts["platform"]
        content = BriefContent.model_validate(get_ai().research_brief(facts)).model_dump()
        content["platform"] = content["platform"] or platform
        content["page"] = {"url": page.url, "title": facts["title"], "description": facts["description"]}
        return {"status": "completed", "platform": platform, "brief_content": content, "error": None}
    except UnsafeURL as exc:
        error = f"The site redirected to a refused address: {exc}"
    except FetchFailed as exc:
        error = f"The site could not be fetched: {exc}"
    except ValidationError as exc:
        error = f"The AI provider's brief did not match the brief schema ({exc.error_count()} problem(s))"
    except DomainError as exc:  # the AI provider failed (502) or is off (503)
        error = f"The AI provider failed: {exc.message}"
    # the site's address without its query or fragment, which may carry a token of a shared link
    log.warning("research brief for %s failed: %s", urlsplit(url)._replace(query="", fragment="").geturl(), error)
    return {"status": "failed", "platform": platform, "brief_content": None, "error": error}


def _run(ctx, target: dict, url: str, refreshed_from_id: str | None = None) -> dict:
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    deal, company = target["deal"], target["company"]
    ctx.release_connection()  # the fetch and the AI call run outside the transaction
    result = _generate(url)
    gone = deals_service.hold_deal_and_company(ctx.db, deal["id"] if deal else None, company["id"])
    if gone:  # deleted while the page was fetched and read: as a run after the delete
        raise NotFound(f"{gone} not found")
    brief = ResearchBrief(entity_type=target["entity_type"], entity_id=target["entity_id"],
                          deal_id=deal["id"] if deal else None, company_id=company["id"], url=url,
                          status=result["status"], platform=result["platform"],
                          platform_detected=result["platform"] is not None, brief_content=result["brief_content"],
                          error=result["error"], refreshed_from_id=refreshed_from_id, created_by=ctx.user_id)
    ctx.db.add(brief)
    ctx.db.flush()
    history.record(ctx.db, entity_type=target["entity_type"], entity_id=target["entity_id"],
                   action="research_refreshed" if refreshed_from_id else "research_run", actor_id=ctx.user_id,
                   changes={"brief_id": brief.id, "url": url, "status": brief.status})
    if deal and deal["owner_id"] and deal["owner_id"] != ctx.user_id and _reads_deal(ctx, deal["id"], deal["owner_id"]):
        notify(ctx, user_id=deal["owner_id"], type="research_brief_ready",
               title=f"Research brief {'ready' if brief.status == 'completed' else 'failed'}: {deal['title']}",
               body=brief.error, resource_type="research_brief", resource_id=brief.id,
               action_url=f"/deals/{deal['id']}?brief={brief.id}", actor_id=ctx.user_id)
    ctx.db.flush()
    return brief_record(ctx.db, brief.id)


def _reads_deal(ctx, deal_id: str, user_id: str) -> bool:
    """Whether the user may read the deal and its briefs (deals service `deal_readers`: active, `deals:view`, the deal
    in their scope). A deal owner who may not (`deals: none`, where GET /api/research/<id> answers 403) is told
    nothing of the brief: the notice is about the brief, not about them."""
    from chalicelib.areas.deals import service as deals_service

    return user_id in deals_service.deal_readers(ctx.db, deal_id, [user_id])


def _allow(ctx) -> None:
    from chalicelib.core.allowance import allow

    allow(ctx, "research")  # a page fetch and an AI brief: 429 past the caller's hourly allowance


def run_research(ctx, *, data) -> dict:
    target = _target(ctx, data.entity_type, data.entity_id)
    url = _url_for(target, data.store_url)
    _allow(ctx)
    return _run(ctx, target, url)


def refresh_brief(ctx, *, brief_id: str) -> dict:
    """A new brief for the same entity and URL (the original stays: history)."""
    original = load_brief(ctx, brief_id)
    target = _target(ctx, original.entity_type, original.entity_id)
    url = _url_for(target, original.url, stored_as="the brief's URL")
    _allow(ctx)
    return _run(ctx, target, url, refreshed_from_id=original.id)


def get_brief(ctx, *, brief_id: str) -> dict:
    return brief_record(ctx.db, load_brief(ctx, brief_id).id)


def deal_briefs(ctx, *, deal_id: str) -> list[dict]:
    from chalicelib.areas.deals import service as deals_service

    if deals_service.deal_facts(ctx.db, deal_id) is None:
        raise NotFound("Deal not found")
    return brief_records(ctx.db, ctx.principal, ResearchBrief.deal_id == deal_id)


def company_briefs(ctx, *, company_id: str) -> list[dict]:
    """Every brief of the company: its own and its deals'."""
    from chalicelib.areas.deals import service as deals_service

    if deals_service.company_facts(ctx.db, company_id) is None:
        raise NotFound("Company not found")
    return brief_records(ctx.db, ctx.principal, ResearchBrief.company_id == company_id)
