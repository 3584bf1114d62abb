"""A client goal's `metric_key` names the results metric it targets (docs/decisions/portal.md, "Metrics": the goal
whose `metric_key` is the metric's key). It is typed freely, by staff on the client's goals and by the client in the
questionnaire; session 32 (audit "a value staff type freely"): it names the metric letter case, surrounding spaces
and a space or hyphen for the underscore aside ("ROAS" and "Conversion value" set no target: `no_target`)."""
from tests.areas.portal.conftest import make_client
from tests.areas.portal.test_results_routes import connect, day, metrics


def test_a_goal_typed_in_another_spelling_sets_the_target(api, portal, db, exec_user):
    company = make_client(db, dashboard=True)
    conn = connect(db, company)
    day(db, conn, "2024-03-05", spend=100, impressions=1000, clicks=40, conversions=6, conversion_value=400)
    db.flush()
    for key, target in (("ROAS", 5), ("Spend", 160), ("Conversion value", 300), ("cost-per-click", 1)):
        made = api.post(f"/api/clients/{company.id}/goals", as_=exec_user,
                        json={"metric": key, "metric_key": key, "target": target, "period": "month"})
        assert made.status == 201, made
        assert made.json["goal"]["metric_key"] == key  # kept as typed
    m = metrics(portal.get("/results?period_type=month&period_end=2024-03-31", company))
    assert (m["roas"]["target"], m["roas"]["tracking_status"]) == (5.0, "off_track")
    assert (m["spend"]["target"], m["spend"]["tracking_status"]) == (160.0, "on_track")
    assert (m["conversion_value"]["target"], m["conversion_value"]["tracking_status"]) == (300.0, "on_track")
    assert (m["cpc"]["target"], m["cpc"]["tracking_status"]) == (None, "no_target")  # not a metric's key


def test_the_newest_goal_wins_across_spellings(api, portal, db, exec_user):
    """Two goals of one metric in two spellings: the newest is the target, as for two of one spelling."""
    company = make_client(db, dashboard=True)
    conn = connect(db, company)
    day(db, conn, "2024-03-05", spend=100)
    db.flush()
    for key, target in (("spend", 90), ("Spend", 160)):
        made = api.post(f"/api/clients/{company.id}/goals", as_=exec_user,
                        json={"metric": "Spend", "metric_key": key, "target": target, "period": "month"})
        assert made.status == 201, made
    assert metrics(portal.get("/results?period_type=month&period_end=2024-03-31", company))["spend"]["target"] == 160.0
