"""What the leave integrations publish: an approved leave becomes an event on the shared team calendar, which
every holder of calendar:view (employees included) reads at GET /api/calendar/events?calendarIds=team. The
request's notes and its leave type are the requester's own (the leave scope hides them from peers, and the
calendar's synthetic leave events never show them): the team event must carry neither."""
from chalicelib.providers.payroll.sandbox import LEAVE_TYPES
from tests.factories import make_squad, make_user

NOTES = "Oncology appointment, chemo cycle 2"
TYPE_NAME = "Personal/Carer's Leave (sick)"


def test_a_peer_reading_the_team_calendar_sees_no_leave_notes_or_type(api, db):
    squad = make_squad(db, chat_channel_id="C_TEAM")
    requester = make_user(db, squad_id=squad.id, name="Eve Employee")
    peer = make_user(db, squad_id=squad.id, name="Pat Peer")
    boss = make_user(db, access_level="executive")
    body = {"leave_type_id": LEAVE_TYPES[0]["id"], "leave_type_name": TYPE_NAME, "start_date": "2026-12-01",
            "end_date": "2026-12-03", "notes": NOTES}
    made = api.post("/api/leave/requests", as_=requester, json=body)
    assert made.status == 201, made
    path = f"/api/leave/requests/{made.json['request']['id']}"
    api.post(f"{path}/approve", as_=boss)
    assert api.post(f"{path}/approve", as_=boss).json["request"]["status"] == "approved"
    event_id = api.get(path, as_=boss).json["request"]["calendar_event_id"]
    assert event_id

    # the peer may not read the request itself
    assert api.get(path, as_=peer).status == 404
    # ... but reads the team calendar
    answer = api.get("/api/calendar/events?calendarIds=team&timeMin=2026-11-30T00:00:00Z"
                     "&timeMax=2026-12-05T00:00:00Z", as_=peer)
    assert answer.status == 200, answer
    (event,) = [e for e in answer.json["events"] if e["id"] == event_id]
    assert "Eve Employee" in event["summary"]  # who is away stays on the team calendar
    shown = f"{event.get('summary')} {event.get('description')}"
    assert NOTES not in shown and "chemo" not in shown
    assert TYPE_NAME.split(" ")[0] not in shown and "sick" not in shown
