"""Session 32, audit "error bodies that name the wrong field": a review cycle whose period would end before it starts
is a 400 naming the date the request sent: `period_end` when it gives one, `period_start` when an update moves only
the start past the stored end (it named `period_end`, a field the request did not send)."""


def test_an_update_names_the_period_date_it_sent(api, exec_user):
    cycle = api.post("/api/performance/cycles", as_=exec_user, json={
        "type": "quarterly", "name": "Q1", "period_start": "2026-01-01", "period_end": "2026-03-31"}).json["cycle"]
    path = f"/api/performance/cycles/{cycle['id']}"
    late = api.put(path, as_=exec_user, json={"period_start": "2026-04-01"})
    assert late.status == 400 and late.json["details"] == [
        {"field": "period_start", "message": "must not be after period_end"}], late.json
    early = api.put(path, as_=exec_user, json={"period_end": "2025-12-31"})
    assert early.status == 400 and early.json["details"] == [
        {"field": "period_end", "message": "must not be before period_start"}], early.json
    made = api.post("/api/performance/cycles", as_=exec_user, json={
        "type": "annual", "name": "x", "period_start": "2026-03-01", "period_end": "2026-02-01"})
    assert made.status == 400 and [d["field"] for d in made.json["details"]] == ["period_end"]
