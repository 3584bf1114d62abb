"""Session 32, audit "error bodies that name the wrong field": an MMS without `media_url`, or an SMS or app message
with one, is a 400 naming `media_url`; a model validator named `body`, which on this route is the message's text,
so a client pointed its user at the text they had written correctly."""
from tests.areas.relationships.test_messages import BASE, _opted_in


def test_a_media_url_problem_names_media_url(api, db, employee):
    contact = _opted_in(api, db, employee)
    path = f"{BASE}/contacts/{contact.id}/messages"
    for bad in ({"channel": "mms", "body": "Photo"}, {"channel": "mms", "body": "Photo", "media_url": None},
                {"channel": "sms", "body": "x", "media_url": "https://cdn.test/a.jpg"}):
        answer = api.post(path, as_=employee, json=bad)
        assert answer.status == 400 and [d["field"] for d in answer.json["details"]] == ["media_url"], (bad, answer.json)
    both = api.post(path, as_=employee, json={"channel": "mms", "body": "  "})
    assert both.status == 400 and sorted(d["field"] for d in both.json["details"]) == ["body", "media_url"], both.json
