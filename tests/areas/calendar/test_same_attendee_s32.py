"""Session 32 (the same thing written two ways): an event's attendee sent twice, under two spellings of one address
("ann@agency.test" and " Ann@Agency.TEST"). The provider folds an address's case (Google keeps guests lower-cased;
the sandbox likewise), so both entries named one guest, who was listed twice, each entry with its own answer."""
from tests.areas.calendar.test_calendar import _event, make_user


def test_an_attendee_sent_twice_in_two_spellings_is_one_guest(api, db):
    organiser, ann = make_user(db, name="Olga Organiser"), make_user(db, email="ann@agency.test", name="Ann")
    created = api.post("/api/calendar/events", as_=organiser, json=_event(attendees=[
        {"email": "ann@agency.test", "displayName": "Ann"}, {"email": " Ann@Agency.TEST", "displayName": "Annie"},
        {"email": "gus@client.test"}]))
    assert created.status == 201, created.json
    event = created.json["event"]
    assert [(a["email"], a.get("displayName")) for a in event["attendees"]] == [
        ("ann@agency.test", "Ann"), ("gus@client.test", None)]
    path = f"/api/calendar/events/primary/{event['id']}"
    replaced = api.put(path, as_=organiser, json={"attendees": [
        {"email": "gus@client.test"}, {"email": "GUS@client.test"}, {"email": "ann@agency.test"}]})
    assert replaced.status == 200, replaced.json
    assert [a["email"] for a in replaced.json["event"]["attendees"]] == ["gus@client.test", "ann@agency.test"]
    answered = api.post(f"{path}/respond", as_=ann, json={"status": "accepted"})
    assert answered.status == 200, answered.json
    assert [(a["email"], a["responseStatus"]) for a in answered.json["event"]["attendees"]] == [
        ("gus@client.test", "needsAction"), ("ann@agency.test", "accepted")]
