"""Results routes answer their declared bodies over synced sandbox figures (smoke; detail in test_results_*)."""
from tests.areas.portal.conftest import make_client
from tests.areas.portal.test_connections_routes import GOOGLE, SHOP


def test_results_campaigns_and_ask_over_sandbox_figures(portal, db, set_env):
    set_env(ADPLATFORMS_RESYNC_DAYS="70")
    mine = make_client(db, dashboard=True)
    assert portal.post("/connections", mine, role="admin", json=GOOGLE).status == 201
    assert portal.post("/connections", mine, role="admin", json=SHOP).status == 201
    results = portal.get("/results", mine)
    assert results.status == 200, results
    keys = [m["key"] for m in results.json["metrics"]]
    assert "spend" in keys and "revenue" in keys and results.json["connected_platforms"] == ["google_ads", "shopify"]
    assert results.json["insight"]
    campaigns = portal.get("/results/campaigns?sort_by=roas&sort_dir=asc", mine)
    assert campaigns.status == 200, campaigns
    assert campaigns.json["campaigns"] and campaigns.json["totals"]["spend"] > 0
    answer = portal.post("/results/ask", mine, json={"question": "How is my spend doing?"})
    assert answer.status == 200, answer
    assert "Ad spend was" in answer.json["answer"]
