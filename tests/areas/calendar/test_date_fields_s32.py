"""Session 32, audit "error bodies that name the wrong field": a 400 about one field names it, as the core names a
field (decisions.md section 4). A culture event ending before it starts named `body` on create (a model validator)
and `end_date` on an update that sent only `date`; an events range ending before it starts, or longer than 400
days, named `body` for two query parameters the client sent by name."""


def _fields(answer):
    return [d["field"] for d in answer.json["details"]]


def test_a_culture_event_ending_before_it_starts_names_the_date_sent(api, db, exec_user):
    made = api.post("/api/calendar/culture-events", as_=exec_user,
                    json={"title": "Offsite", "date": "2030-05-10", "end_date": "2030-05-09"})
    assert made.status == 400 and _fields(made) == ["end_date"], made.json
    event = api.post("/api/calendar/culture-events", as_=exec_user,
                     json={"title": "Offsite", "date": "2030-05-10", "end_date": "2030-05-12"}).json["culture_event"]
    path = f"/api/calendar/culture-events/{event['id']}"
    late = api.put(path, as_=exec_user, json={"date": "2030-05-13"})
    assert late.status == 400 and late.json["details"] == [
        {"field": "date", "message": "must not be after end_date"}], late.json
    early = api.put(path, as_=exec_user, json={"end_date": "2030-05-09"})
    assert early.status == 400 and _fields(early) == ["end_date"], early.json


def test_an_events_range_names_the_query_parameter(api, employee):
    backwards = api.get("/api/calendar/events?timeMin=2030-01-02T00:00:00Z&timeMax=2030-01-01T00:00:00Z",
                        as_=employee)
    assert backwards.status == 400 and _fields(backwards) == ["timeMax"], backwards.json
    longer = api.get("/api/calendar/events?timeMin=2026-01-01T00:00:00Z&timeMax=2027-02-05T12:00:00Z", as_=employee)
    assert longer.status == 400 and _fields(longer) == ["timeMax"], longer.json
    early = api.get("/api/calendar/events?timeMin=1899-06-01T00:00:00Z&timeMax=1900-02-01T00:00:00Z", as_=employee)
    assert early.status == 400 and _fields(early) == ["timeMin"], early.json
    late = api.get("/api/calendar/events?timeMin=2200-12-01T00:00:00Z&timeMax=2201-02-01T00:00:00Z", as_=employee)
    assert late.status == 400 and _fields(late) == ["timeMax"], late.json
