"""Session 32 (the same address written two ways): an action item's assignee the AI answers with white space around
the address is the attendee it names (it assigned nobody), and the Fireflies organiser address is trimmed as the
attendees' are."""
from chalicelib.providers.meetnotes.live import note_from
from tests.providers.test_ai_meeting_items_s31 import analyse
from tests.providers.test_ai_wire import live  # noqa: F401 - the fixture


def test_an_assignee_with_spaces_around_the_address_is_the_attendee(live):
    answer = analyse(live, {"category": "internal", "action_items": [
        {"text": "Send the quote", "assignee_email": " Pat@Agency.test "},
        {"text": "Book the room", "assignee_email": " nobody@agency.test"}]})
    assert [(item["text"], item["assignee_email"]) for item in answer["action_items"]] == [
        ("Send the quote", "pat@agency.test"), ("Book the room", None)]


def test_the_organiser_address_is_trimmed_and_lower_cased():
    note = note_from({"id": "n1", "title": "Call", "date": 1_700_000_000_000, "organizer_email": "  Pat@Agency.TEST ",
                      "meeting_attendees": [{"email": " Sam@Agency.test", "displayName": "Sam"}]})
    assert note["organizer_email"] == "pat@agency.test"
    assert note["attendees"] == [{"email": "sam@agency.test", "name": "Sam"}]
    assert note_from({"id": "n2", "organizer_email": "   "})["organizer_email"] is None
