"""GET /results, /results/campaigns and POST /results/ask over synced figures (issue 19 item 4): values and
prior values of the period, delta_pct (null when the prior is 0), the client goal's target and tracking status,
period arithmetic at month and year ends through HTTP, every campaign sort key in both directions, totals,
scoping to the company, AI off 503, and constant statement counts at 5 and 100 campaigns."""
import json
import math
from datetime import date
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from chalicelib.areas.portal.models import AdConnection, AdDailyMetric, ClientGoal
from chalicelib.areas.portal.schemas_results import CAMPAIGN_SORT_KEYS
from chalicelib.core import crypto
from chalicelib.core.ids import utcnow
from chalicelib.core.timeutil import org_today
from tests.areas.portal.conftest import make_client

D = date.fromisoformat


def connect(db, company, platform="google_ads", account="1234567890", currency=None):
    row = AdConnection(company_id=company.id, platform=platform, display_name=platform, account_id=account,
                       currency=currency, secret=crypto.encrypt("{}"))
    db.add(row)
    db.flush()
    return row


def day(db, conn, when, campaign="c1", name=None, **figures):
    values = {"spend": 0, "impressions": 0, "clicks": 0, "conversions": 0, "conversion_value": 0, "orders": 0,
              "revenue": 0, **figures}
    db.add(AdDailyMetric(connection_id=conn.id, company_id=conn.company_id, platform=conn.platform,
                         campaign_id=campaign, campaign_name=name or f"Campaign {campaign}", date=D(when),
                         synced_at=utcnow(), **{k: Decimal(str(v)) if k in ("spend", "conversions", "conversion_value",
                                                                            "revenue") else v
                                                for k, v in values.items()}))


def goal(db, company, key, target, period="month"):
    db.add(ClientGoal(company_id=company.id, metric=key, metric_key=key, target=Decimal(str(target)), period=period))


def metrics(answer):
    assert answer.status == 200, answer
    return {m["key"]: m for m in answer.json["metrics"]}


def test_month_ending_31_march_against_february_with_targets(portal, db):
    mine, other = make_client(db, dashboard=True), make_client(db, dashboard=True)
    conn, foreign = connect(db, mine), connect(db, other)
    day(db, conn, "2024-03-05", spend=100, impressions=1000, clicks=40, conversions=6, conversion_value=400)
    day(db, conn, "2024-03-31", campaign="c2", spend=50, impressions=1000, clicks=10, conversions=4,
        conversion_value=200)
    day(db, conn, "2024-02-29", spend=120, impressions=500, clicks=10)
    day(db, conn, "2024-01-31", spend=999, conversions=99)  # before the prior period
    day(db, conn, "2024-04-01", spend=999, conversions=99)  # after the period
    day(db, foreign, "2024-03-05", spend=5000, conversions=500, conversion_value=9000)
    goal(db, mine, "roas", 5)
    goal(db, mine, "spend", 160)
    goal(db, mine, "conversions", 11, period=None)
    goal(db, mine, "clicks", 1, period="week")
    goal(db, other, "cpa", 1)
    db.flush()
    answer = portal.get("/results?period_type=month&period_end=2024-03-31", mine)
    body = answer.json
    assert body["period"] == {"type": "month", "start": "2024-03-01", "end": "2024-03-31",
                              "prior_start": "2024-02-01", "prior_end": "2024-02-29", "days": 31}
    assert body["connected_platforms"] == ["google_ads"] and body["dashboard_enabled"] == 1
    m = metrics(answer)
    assert set(m) == {"spend", "impressions", "clicks", "ctr", "cpc", "conversions", "conversion_value", "roas", "cpa"}
    assert set(m["spend"]) == {"key", "label", "unit", "higher_is_better", "currency", "value", "prior_value",
                               "delta_pct", "target", "tracking_status"}
    assert (m["spend"]["value"], m["spend"]["prior_value"], m["spend"]["delta_pct"]) == (150.0, 120.0, 25.0)
    assert (m["spend"]["target"], m["spend"]["tracking_status"]) == (160.0, "on_track")
    assert (m["roas"]["value"], m["roas"]["prior_value"], m["roas"]["delta_pct"]) == (4.0, 0.0, None)
    assert (m["roas"]["target"], m["roas"]["tracking_status"]) == (5.0, "off_track")
    assert (m["conversions"]["value"], m["conversions"]["prior_value"], m["conversions"]["delta_pct"]) == (10.0, 0.0, None)
    assert (m["conversions"]["target"], m["conversions"]["tracking_status"]) == (11.0, "at_risk")
    assert (m["clicks"]["value"], m["clicks"]["prior_value"], m["clicks"]["delta_pct"]) == (50, 10, 400.0)
    assert (m["clicks"]["target"], m["clicks"]["tracking_status"]) == (None, "no_target")
    assert (m["cpa"]["value"], m["cpa"]["prior_value"], m["cpa"]["target"]) == (15.0, None, None)
    assert (m["ctr"]["value"], m["cpc"]["value"]) == (2.5, 3.0)
    assert "spend 150.00 (up 25.0% on the prior period), on track" in body["insight"]

    # 29 February: the month is February, the prior January (only the 31 January day)
    m = metrics(portal.get("/results?period_end=2024-02-29", mine))
    assert (m["spend"]["value"], m["spend"]["prior_value"], m["conversions"]["prior_value"]) == (120.0, 999.0, 99.0)
    # the week ending 31 March holds the 31 March day only; its prior week nothing
    m = metrics(portal.get("/results?period_type=week&period_end=2024-03-31", mine))
    assert (m["spend"]["value"], m["spend"]["prior_value"], m["spend"]["delta_pct"]) == (50.0, 0.0, None)
    # the quarter ending 31 March: January to March, every day but April's
    m = metrics(portal.get("/results?period_type=quarter&period_end=2024-03-31", mine))
    assert (m["spend"]["value"], m["spend"]["prior_value"]) == (1269.0, 0.0)


def test_year_ends_and_store_metrics(portal, db):
    mine = make_client(db, dashboard=True)
    shop = connect(db, mine, platform="shopify", account="acme.myshopify.com")
    day(db, shop, "2024-12-31", campaign="store", orders=4, revenue=400)
    day(db, shop, "2024-01-01", campaign="store", orders=1, revenue=50)
    day(db, shop, "2023-12-31", campaign="store", orders=2, revenue=300)
    day(db, shop, "2022-12-31", campaign="store", orders=9, revenue=900)
    goal(db, mine, "revenue", 400, period="year")
    goal(db, mine, "aov", 100, period="year")
    db.flush()
    answer = portal.get("/results?period_type=year&period_end=2024-12-31", mine)
    assert answer.json["period"]["start"] == "2024-01-01" and answer.json["period"]["prior_start"] == "2023-01-01"
    m = metrics(answer)
    assert set(m) == {"revenue", "orders", "aov"}
    assert (m["revenue"]["value"], m["revenue"]["prior_value"], m["revenue"]["delta_pct"]) == (450.0, 300.0, 50.0)
    assert m["revenue"]["tracking_status"] == "on_track"
    assert (m["orders"]["value"], m["aov"]["value"], m["aov"]["prior_value"]) == (5, 90.0, 150.0)
    assert (m["aov"]["delta_pct"], m["aov"]["tracking_status"]) == (-40.0, "at_risk")
    # the year ending 31 December 2023 holds only its last day; the prior year 2022's last day
    m = metrics(portal.get("/results?period_type=year&period_end=2023-12-31", mine))
    assert (m["revenue"]["value"], m["revenue"]["prior_value"]) == (300.0, 900.0)


def test_exactly_ten_percent_off_the_target_is_at_risk(portal, db):
    """docs/decisions/portal.md, Metrics: `at_risk` within 10% of the target on the wrong side, compared as the figures
    are shown (in binary 2.2 * 0.9 is 1.9800000000000002: a ROAS of 1.98 read off track); a cent further is off."""
    mine = make_client(db, dashboard=True)
    conn = connect(db, mine)
    day(db, conn, "2024-03-10", spend=100, impressions=1000, clicks=10, conversions=4, conversion_value=198)
    goal(db, mine, "roas", 2.2)
    goal(db, mine, "spend", 90.9)  # lower is better: 100 is 10.01% above
    goal(db, mine, "conversions", 4.4)  # 4 is 9.09% below
    db.flush()
    m = metrics(portal.get("/results?period_type=month&period_end=2024-03-31", mine))
    assert (m["roas"]["value"], m["roas"]["target"], m["roas"]["tracking_status"]) == (1.98, 2.2, "at_risk")
    assert (m["spend"]["tracking_status"], m["conversions"]["tracking_status"]) == ("off_track", "at_risk")


def test_defaults_empty_and_bad_queries(portal, db):
    mine = make_client(db, dashboard=True)
    answer = portal.get("/results", mine)
    assert answer.status == 200
    assert answer.json["period"]["type"] == "month" and answer.json["period"]["end"] == org_today().isoformat()
    assert (answer.json["metrics"], answer.json["insight"], answer.json["connected_platforms"]) == ([], None, [])
    for query in ("period_type=decade", "period_end=2024-02-30", "period_end=yesterday", "period_end=0001-01-01",
                  "period_end=9999-12-31"):
        assert portal.get(f"/results?{query}", mine).status == 400, query
        assert portal.get(f"/results/campaigns?{query}", mine).status == 400, query
    for query in ("sort_by=bogus", "sort_dir=up", "platform=tiktok"):
        bad = portal.get(f"/results/campaigns?{query}", mine)
        assert bad.status == 400 and bad.json["details"], query


def campaigns_fixture(db, company):
    google, meta = connect(db, company), connect(db, company, platform="meta_ads", account="act_1")
    shop = connect(db, company, platform="shopify", account="acme.myshopify.com")
    day(db, google, "2024-03-10", campaign="g1", name="Brand", spend=100, impressions=5000, clicks=200, conversions=10,
        conversion_value=900)
    day(db, google, "2024-03-11", campaign="g1", name="Brand", spend=20, impressions=1000, clicks=20, conversions=2,
        conversion_value=100)
    day(db, google, "2024-03-10", campaign="g2", name="Generic", spend=300, impressions=9000, clicks=90, conversions=3,
        conversion_value=240)
    day(db, meta, "2024-03-12", campaign="m1", name="Advantage", spend=50, impressions=20000, clicks=0)
    day(db, meta, "2024-03-12", campaign="m2", name="Catalogue", spend=0, impressions=0, clicks=0)
    day(db, shop, "2024-03-12", campaign="store", name="Online store", orders=7, revenue=700)
    day(db, google, "2024-02-10", campaign="g3", name="Old", spend=1000)  # outside the period
    db.flush()


def test_campaigns_sort_by_every_key_both_ways_with_totals(portal, db):
    mine, other = make_client(db, dashboard=True), make_client(db, dashboard=True)
    campaigns_fixture(db, mine)
    day(db, connect(db, other), "2024-03-10", campaign="x1", name="Foreign", spend=77)
    db.flush()
    answer = portal.get("/results/campaigns?period_end=2024-03-31", mine)
    assert answer.status == 200, answer
    rows = answer.json["campaigns"]
    assert [r["campaign_name"] for r in rows] == ["Generic", "Brand", "Advantage", "Catalogue", "Online store"]
    brand = rows[1]
    assert (brand["spend"], brand["impressions"], brand["clicks"], brand["conversions"], brand["conversion_value"],
            brand["ctr"], brand["cpc"], brand["cpa"], brand["roas"]) == (120.0, 6000, 220, 12.0, 1000.0, 3.67, 0.55,
                                                                        10.0, 8.33)
    assert rows[2]["cpc"] is None and rows[3]["roas"] is None
    assert answer.json["totals"] == {"spend": 470.0, "impressions": 35000, "clicks": 310, "conversions": 15.0,
                                     "conversion_value": 1240.0, "orders": 7, "revenue": 700.0, "ctr": 0.89,
                                     "cpc": 1.52, "cpa": 31.33, "roas": 2.64}
    for key in CAMPAIGN_SORT_KEYS:
        for direction in ("asc", "desc"):
            got = portal.get(f"/results/campaigns?period_end=2024-03-31&sort_by={key}&sort_dir={direction}", mine)
            assert got.status == 200, (key, got)
            values = [r[key] for r in got.json["campaigns"]]
            present = [v for v in values if v is not None]
            assert values == present + [None] * (len(values) - len(present)), (key, direction, values)
            assert present == sorted(present, reverse=direction == "desc"), (key, direction, values)
            assert len(values) == 5
    only_meta = portal.get("/results/campaigns?period_end=2024-03-31&platform=meta_ads", mine).json
    assert {r["platform"] for r in only_meta["campaigns"]} == {"meta_ads"}
    assert (only_meta["totals"]["spend"], only_meta["totals"]["impressions"]) == (50.0, 20000)


def test_ask_answers_from_this_company_only_and_503_when_off(portal, db, set_env, monkeypatch):
    from chalicelib.providers.ai.sandbox import SandboxAI

    mine, other = make_client(db, dashboard=True), make_client(db, dashboard=True)
    campaigns_fixture(db, mine)
    day(db, connect(db, other), "2024-03-10", campaign="x1", name="Foreign Secret Campaign", spend=7777)
    db.flush()
    seen = []
    real = SandboxAI.answer_from_figures
    monkeypatch.setattr(SandboxAI, "answer_from_figures",
                        lambda self, **kw: seen.append(kw) or real(self, **kw))
    answer = portal.post("/results/ask?period_end=2024-03-31", mine, json={"question": "Which campaign spent most?"})
    assert answer.status == 200, answer
    assert "Ad spend was 470.00" in answer.json["answer"] and "Generic" in answer.json["answer"]
    prompt = json.dumps(seen[0]["figures"])
    assert "Foreign Secret Campaign" not in prompt and "7777" not in prompt and "Generic" in prompt
    assert seen[0]["question"] == "Which campaign spent most?"
    assert portal.post("/results/ask", mine, json={}).status == 400
    assert portal.post("/results/ask", mine, json={"question": "x" * 2001}).status == 400
    set_env(AI_MODE="off")
    assert portal.post("/results/ask", mine, json={"question": "How?"}).status == 503


@pytest.mark.parametrize("path", ["/results?period_end=2024-03-31", "/results/campaigns?period_end=2024-03-31"])
def test_results_and_campaigns_cost_constant_statements(portal, db, count_queries, path):
    mine = make_client(db, dashboard=True)
    conn = connect(db, mine)
    connect(db, mine, platform="shopify", account="acme.myshopify.com")
    goal(db, mine, "spend", 100)

    def add(first, last):
        for index in range(first, last):
            for when in ("2024-03-02", "2024-02-02"):
                day(db, conn, when, campaign=f"c{index}", spend=index + 1, clicks=index, impressions=10 * index)
        db.flush()

    add(0, 5)
    with count_queries() as small:
        answer = portal.get(path, mine)
    assert answer.status == 200
    if "campaigns" in path:
        assert len(answer.json["campaigns"]) == 5
    add(5, 100)
    with count_queries() as large:
        answer = portal.get(path, mine)
    if "campaigns" in path:
        assert len(answer.json["campaigns"]) == 100
    else:
        assert {m["key"]: m for m in answer.json["metrics"]}["spend"]["value"] == sum(range(1, 101))
    assert large.count == small.count


def test_ask_maps_an_ai_failure_to_its_status(portal, db, monkeypatch):
    """The AI provider is asked with no transaction open; its failure answers its status (504 timeout, 502
    unreachable) with `{error}` and changes no figures."""
    from chalicelib.core.errors import BadGateway, GatewayTimeout
    from chalicelib.providers.ai.sandbox import SandboxAI

    mine = make_client(db, dashboard=True)
    campaigns_fixture(db, mine)
    db.flush()
    before = db.scalar(select(func.count()).select_from(AdDailyMetric))
    for error, status in ((GatewayTimeout("The AI provider did not answer in time"), 504),
                          (BadGateway("The AI provider could not be reached"), 502)):
        def fail(self, *, question, figures, error=error):
            raise error

        monkeypatch.setattr(SandboxAI, "answer_from_figures", fail)
        answer = portal.post("/results/ask?period_end=2024-03-31", mine, json={"question": "How?"})
        assert answer.status == status and answer.json == {"error": error.message}
    assert db.scalar(select(func.count()).select_from(AdDailyMetric)) == before


def test_a_company_asks_at_most_30_questions_an_hour(portal, db):
    """Each question is an AI request at the agency's cost, and any viewer may ask (audit S1): past 30 in an hour a
    company's question is a 429 naming when to retry, and the provider is not asked; another company is not
    affected, and a question older than the hour no longer counts."""
    from datetime import timedelta

    from chalicelib.core.allowance import PER_HOUR
    from chalicelib.core.models import ProviderUse

    mine, other = make_client(db, dashboard=True), make_client(db, dashboard=True)
    db.add_all([ProviderUse(kind="portal_ask", key=mine.id, created_at=utcnow() - timedelta(minutes=50))
                for _ in range(PER_HOUR["portal_ask"] - 1)])
    db.flush()
    assert portal.post("/results/ask", mine, json={"question": "How did we do?"}).status == 200
    refused = portal.post("/results/ask", mine, json={"question": "And now?"})
    assert refused.status == 429, refused
    assert 590 <= refused.json["retry_after"] <= 601 and refused.json["error"]
    assert portal.post("/results/ask", other, json={"question": "How did we do?"}).status == 200
    for question in db.scalars(select(ProviderUse).where(ProviderUse.kind == "portal_ask", ProviderUse.key == mine.id)):
        question.created_at -= timedelta(minutes=15)  # the oldest are now past the hour
    db.flush()
    assert portal.post("/results/ask", mine, json={"question": "And now?"}).status == 200


def test_cpc_and_cpa_round_half_up_to_the_cent(portal, db):
    """The portal's currency ratios round half up to the cent, the service's money rule (core.money); in binary
    100.25 / 2 = 50.125 rounded to 50.12 (numeric audit)."""
    mine = make_client(db, dashboard=True)
    conn = connect(db, mine)
    # spend 100.25 over 2 clicks and 2 conversions: cpc = cpa = 50.125 exactly -> 50.13 half up
    day(db, conn, "2024-03-05", spend="100.25", impressions=1000, clicks=2, conversions=2, conversion_value=0)
    db.flush()
    m = metrics(portal.get("/results?period_type=month&period_end=2024-03-31", mine))
    assert (m["cpc"]["value"], m["cpa"]["value"]) == (50.13, 50.13)


def test_aov_rounds_half_up_to_the_cent(portal, db):
    mine = make_client(db, dashboard=True)
    conn = connect(db, mine, platform="shopify", account="shop")
    day(db, conn, "2024-03-05", revenue="100.25", orders=2)  # aov 50.125 -> 50.13
    db.flush()
    m = metrics(portal.get("/results?period_type=month&period_end=2024-03-31", mine))
    assert m["aov"]["value"] == 50.13


def test_campaign_cpc_rounds_half_up(portal, db):
    mine = make_client(db, dashboard=True)
    conn = connect(db, mine)
    day(db, conn, "2024-03-05", spend="0.25", impressions=10, clicks=2, conversions=0, conversion_value=0)
    db.flush()
    answer = portal.get("/results/campaigns?period_type=month&period_end=2024-03-31", mine)
    assert answer.status == 200, answer
    assert answer.json["campaigns"][0]["cpc"] == 0.13  # 0.125 -> 0.13 half up
    assert answer.json["totals"]["cpc"] == 0.13


def test_small_drop_is_not_negative_zero(portal, db):
    """A drop too small for one decimal is 0.0, not -0.0 (which the insight read as "up")."""
    mine = make_client(db, dashboard=True)
    conn = connect(db, mine)
    day(db, conn, "2024-03-05", spend="999.99", impressions=1, clicks=1)
    day(db, conn, "2024-02-05", spend="1000.00", impressions=1, clicks=1)
    db.flush()
    answer = portal.get("/results?period_type=month&period_end=2024-03-31", mine)
    delta = metrics(answer)["spend"]["delta_pct"]
    assert b'"delta_pct":-0.0' not in answer.body
    assert delta == 0.0 and math.copysign(1.0, delta) == 1.0, delta
