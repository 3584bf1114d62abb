"""Results of connections in different currencies (docs/decisions/portal.md, "Currencies of the results"): money
is never added or compared across currencies. The money metrics are those of the main currency (the ad
platforms' for spend, conversion value, cpc, cpa and roas; the stores' for revenue and aov), each naming it; the
figures of the other currencies are answered apart (`other_currencies`); counts are summed over every connection;
a money goal's target is read in its metric's currency; the insight names the currency; each campaign names its
connection's currency and the campaigns' totals are per currency."""
from tests.areas.portal.conftest import make_client
from tests.areas.portal.test_results_routes import connect, day, goal, metrics

MARCH = "/results?period_type=month&period_end=2024-03-31"


def two_currencies(db, company):
    google = connect(db, company, currency="AUD")
    meta = connect(db, company, platform="meta_ads", account="act_1", currency="USD")
    day(db, google, "2024-03-05", campaign="g1", name="Brand", spend=300, impressions=1000, clicks=30, conversions=3,
        conversion_value=900)
    day(db, meta, "2024-03-06", campaign="m1", name="Advantage", spend=100, impressions=1000, clicks=20,
        conversions=1, conversion_value=100)
    day(db, google, "2024-02-05", campaign="g1", name="Brand", spend=150, clicks=10)
    day(db, meta, "2024-02-06", campaign="m1", name="Advantage", spend=600, clicks=10)
    return google, meta


def test_ad_money_of_two_currencies_is_never_added(portal, db):
    mine = make_client(db, dashboard=True)
    two_currencies(db, mine)
    goal(db, mine, "spend", 320)
    db.flush()
    answer = portal.get(MARCH, mine)
    m = metrics(answer)
    # AUD: 300 of spend against USD 100 (and the prior period's USD 600 is not AUD either)
    assert (m["spend"]["value"], m["spend"]["prior_value"], m["spend"]["delta_pct"]) == (300.0, 150.0, 100.0)
    assert (m["spend"]["target"], m["spend"]["tracking_status"]) == (320.0, "on_track")  # summed: 400, off track
    assert (m["conversion_value"]["value"], m["roas"]["value"], m["cpc"]["value"], m["cpa"]["value"]) == \
        (900.0, 3.0, 10.0, 100.0)
    assert all(m[k]["currency"] == "AUD" for k in ("spend", "conversion_value", "cpc", "cpa"))
    assert all(m[k]["currency"] is None for k in ("impressions", "clicks", "ctr", "conversions", "roas"))
    # counts are counted over every connection
    assert (m["clicks"]["value"], m["impressions"]["value"], m["conversions"]["value"], m["ctr"]["value"]) == \
        (50, 2000, 4.0, 2.5)
    assert answer.json["currency"] == "AUD"
    assert answer.json["other_currencies"] == [{"currency": "USD", "spend": 100.0, "conversion_value": 100.0,
                                                "revenue": 0.0}]
    assert "ad spend AUD 300.00 (up 100.0% on the prior period), on track against a target of AUD 320.00" in \
        answer.json["insight"]


def test_a_store_in_its_own_currency_keeps_its_revenue(portal, db):
    mine = make_client(db, dashboard=True)
    google = connect(db, mine, currency="AUD")
    shop = connect(db, mine, platform="shopify", account="acme.myshopify.com", currency="NZD")
    day(db, google, "2024-03-05", spend=200, clicks=10, conversions=2, conversion_value=500)
    day(db, shop, "2024-03-05", campaign="store", orders=4, revenue=400)
    db.flush()
    answer = portal.get(MARCH, mine)
    m = metrics(answer)
    assert (m["spend"]["value"], m["spend"]["currency"], m["roas"]["value"]) == (200.0, "AUD", 2.5)
    assert (m["revenue"]["value"], m["revenue"]["currency"], m["aov"]["value"], m["aov"]["currency"]) == \
        (400.0, "NZD", 100.0, "NZD")
    assert answer.json["currency"] == "AUD" and answer.json["other_currencies"] == []
    assert "store revenue NZD 400.00" in answer.json["insight"] and "ad spend AUD 200.00" in answer.json["insight"]


def test_one_currency_is_named_and_nothing_is_apart(portal, db):
    mine = make_client(db, dashboard=True)
    google = connect(db, mine, currency="AUD")
    meta = connect(db, mine, platform="meta_ads", account="act_1", currency="AUD")
    day(db, google, "2024-03-05", spend=100, clicks=10)
    day(db, meta, "2024-03-05", spend=50, clicks=5)
    db.flush()
    answer = portal.get(MARCH, mine)
    assert metrics(answer)["spend"]["value"] == 150.0 and metrics(answer)["cpc"]["value"] == 10.0
    assert (answer.json["currency"], answer.json["other_currencies"]) == ("AUD", [])


def test_campaigns_name_their_currency_and_are_totalled_per_currency(portal, db):
    mine = make_client(db, dashboard=True)
    two_currencies(db, mine)
    db.flush()
    answer = portal.get("/results/campaigns?period_end=2024-03-31", mine)
    assert answer.status == 200, answer
    body = answer.json
    assert [(r["campaign_name"], r["currency"]) for r in body["campaigns"]] == [("Brand", "AUD"), ("Advantage", "USD")]
    assert body["currency"] == "AUD"
    assert (body["totals"]["spend"], body["totals"]["clicks"], body["totals"]["roas"]) == (300.0, 30, 3.0)
    assert [(t["currency"], t["spend"], t["clicks"], t["roas"]) for t in body["totals_by_currency"]] == \
        [("AUD", 300.0, 30, 3.0), ("USD", 100.0, 20, 1.0)]


def test_ask_is_told_the_currencies(portal, db, monkeypatch):
    from chalicelib.providers.ai.sandbox import SandboxAI

    mine = make_client(db, dashboard=True)
    two_currencies(db, mine)
    db.flush()
    seen = []
    real = SandboxAI.answer_from_figures
    monkeypatch.setattr(SandboxAI, "answer_from_figures", lambda self, **kw: seen.append(kw) or real(self, **kw))
    answer = portal.post("/results/ask?period_end=2024-03-31", mine, json={"question": "Spend?"})
    assert answer.status == 200, answer
    assert "Ad spend was AUD 300.00" in answer.json["answer"]  # the sandbox names the metric's currency
    figures = seen[0]["figures"]
    assert figures["currency"] == "AUD" and figures["other_currencies"][0]["currency"] == "USD"
    spend = next(m for m in figures["metrics"] if m["key"] == "spend")
    assert (spend["value"], spend["currency"]) == (300.0, "AUD")
    assert {c["campaign_name"]: c["currency"] for c in figures["campaigns"]} == {"Brand": "AUD", "Advantage": "USD"}
