"""Lists in one order whatever their ties (session 28's ties audit): the calendar's synthetic public holidays and culture
events were read ORDER BY date alone, so two of one day came in the heap's order, which an edit of one of them changed;
the holiday and culture event lists order the same rows by date, then name or title, then id, and so does the
calendar now."""

RANGE = "timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z"


def _synthetic(api, user, kind):
    events = api.get(f"/api/calendar/events?{RANGE}", as_=user).json["events"]
    return [e["summary"] for e in events if e.get("type") == kind]


def test_same_day_public_holidays_keep_one_order_in_the_calendar(api, exec_user, employee):
    zeta = api.post("/api/calendar/public-holidays", as_=exec_user,
                    json={"date": "2026-12-25", "name": "Zeta Day"}).json["public_holiday"]
    api.post("/api/calendar/public-holidays", as_=exec_user, json={"date": "2026-12-25", "name": "Alpha Day"})
    listed = [h["name"] for h in api.get("/api/calendar/public-holidays?year=2026", as_=employee).json["public_holidays"]]
    assert listed == ["Alpha Day", "Zeta Day"]
    before = _synthetic(api, employee, "public_holiday")
    # moved a day and back: the same rows, the same dates and names as before
    path = f"/api/calendar/public-holidays/{zeta['id']}"
    assert api.put(path, as_=exec_user, json={"date": "2026-12-24"}).status == 200
    assert api.put(path, as_=exec_user, json={"date": "2026-12-25"}).status == 200
    after = _synthetic(api, employee, "public_holiday")
    assert before == after == listed, (before, after)


def test_same_day_culture_events_keep_one_order_in_the_calendar(api, exec_user, employee):
    zeta = api.post("/api/calendar/culture-events", as_=exec_user,
                    json={"date": "2026-12-18", "title": "Zeta party", "status": "confirmed"}).json["culture_event"]
    api.post("/api/calendar/culture-events", as_=exec_user,
             json={"date": "2026-12-18", "title": "Alpha party", "status": "confirmed"})
    before = _synthetic(api, employee, "culture_event")
    assert api.put(f"/api/calendar/culture-events/{zeta['id']}", as_=exec_user,
                   json={"description": "edited"}).status == 200
    after = _synthetic(api, employee, "culture_event")
    assert before == after == ["Alpha party", "Zeta party"], (before, after)
