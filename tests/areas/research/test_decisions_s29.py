"""Session 29 (decisions documents against the code): research.

docs/decisions/research.md: "`WEBSITE_MODE` ... `off` stores failed briefs" and "A fetch failure ... stores a brief with
status `failed`, `brief_content` null and `error` saying why". With the website fetch off, the failed brief's error
said "The AI provider failed: Website fetching is not configured": the website provider's 503 was taken for the AI
provider's, so staff were sent to look at the AI settings for a site that was never fetched."""
from tests.areas.deals.factories import make_company


def test_a_brief_run_with_website_fetching_off_says_the_site_was_not_fetched(api, db, employee, set_env):
    company = make_company(db, website="https://shop-three.com")
    set_env(WEBSITE_MODE="off")
    made = api.post("/api/research/run", as_=employee, json={"entity_type": "company", "entity_id": company.id})
    assert made.status == 201, made
    brief = made.json["brief"]
    assert (brief["status"], brief["brief_content"], brief["platform"]) == ("failed", None, None)
    assert "AI provider" not in brief["error"], brief["error"]
    assert brief["error"] == "The site could not be fetched: Website fetching is not configured"
