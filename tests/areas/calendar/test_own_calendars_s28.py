"""Session 28 (fields audit): the calendars a user reads are their primary calendar and the shared team calendar
(document 3, Authentication 4; GET /api/calendar/calendars offers those two). GET /api/calendar/events took any
`calendarIds` and the sandbox (the default mode) answered a colleague's primary calendar whole: an employee read an
executive's event titles, descriptions and attendees."""
from tests.factories import grant, make_user

RANGE = "timeMin=2026-12-01T00:00:00Z&timeMax=2026-12-31T00:00:00Z"
PRIVATE = {"calendarId": "primary", "summary": "Redundancy planning", "description": "Names to let go",
           "start": {"dateTime": "2026-12-03T10:00:00+11:00"}, "end": {"dateTime": "2026-12-03T11:00:00+11:00"}}


def _executive_event(api, db):
    executive = make_user(db, access_level="executive", email="ceo@agency.test")
    made = api.post("/api/calendar/events", as_=executive, json=PRIVATE)
    assert made.status == 201, made
    return made.json["event"]["id"]


def test_an_employee_does_not_read_a_colleagues_primary_calendar(api, db):
    _executive_event(api, db)
    employee = make_user(db, access_level="employee")
    answer = api.get(f"/api/calendar/events?{RANGE}&calendarIds=primary,ceo@agency.test", as_=employee)
    assert answer.status == 400, answer
    assert [d["field"] for d in answer.json["details"]] == ["calendarIds"], answer.json
    assert "Redundancy planning" not in str(answer.json)


def test_the_callers_own_address_and_the_team_calendar_are_read(api, db):
    employee = make_user(db, access_level="employee", email="emma@agency.test")
    grant(db, employee, "calendar", "update")
    for calendar_id, summary in (("primary", "Own"), ("team", "Team")):
        made = api.post("/api/calendar/events", as_=employee, json={**PRIVATE, "calendarId": calendar_id,
                                                                    "summary": summary})
        assert made.status == 201, made
    # the own address is the primary calendar (read once); the team calendar by its id; blanks and repeats once
    answer = api.get(f"/api/calendar/events?{RANGE}&calendarIds=EMMA@agency.test,team,primary,%20,team", as_=employee)
    assert answer.status == 200, answer
    assert sorted(e["summary"] for e in answer.json["events"] if not e.get("synthetic")) == ["Own", "Team"]


def test_a_colleagues_event_is_not_answered_through_a_write_route(api, db):
    """The sandbox answers 404 for a calendar neither the caller's nor the team's, as Google does for a calendar not
    shared with the caller: a PUT that changes nothing answered the executive's event as read."""
    event_id = _executive_event(api, db)
    employee = make_user(db, access_level="employee")
    grant(db, employee, "calendar", "update")
    answer = api.put(f"/api/calendar/events/ceo@agency.test/{event_id}", as_=employee, json={})
    assert answer.status == 404, answer
    assert "Redundancy planning" not in str(answer.json)
