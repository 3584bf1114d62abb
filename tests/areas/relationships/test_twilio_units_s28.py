"""A message body is at most 1600 characters as Twilio counts a Body, in UTF-16 code units (session 28's provider-limits
audit; Twilio error 21617, https://www.twilio.com/docs/api/errors/21617: characters outside GSM-7 such as emoji use
more space): a body of 1,600 code points with emoji was answered `queued` here, then refused by Twilio."""
from urllib.parse import parse_qs

import responses

from tests.areas.deals.factories import make_contact

BASE = "/api/relationships"
SID = "AC" + "2" * 32
TWILIO_URL = f"https://api.twilio.com/2010-04-01/Accounts/{SID}/Messages.json"


def _utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@responses.activate
def test_a_message_accepted_by_the_api_fits_twilios_1600_characters(api, db, employee, set_env):
    set_env(SMS_MODE="live", TWILIO_ACCOUNT_SID=SID, TWILIO_AUTH_TOKEN="secret-token",
            TWILIO_FROM_NUMBER="+61400000000")
    responses.post(TWILIO_URL, json={"sid": "SM" + "c" * 32, "status": "queued"}, status=201)
    contact = make_contact(db, phone="+61412345678")
    assert api.patch(f"{BASE}/contacts/{contact.id}/relationship", as_=employee,
                     json={"sms_opt_in": True}).status == 200
    # a long birthday text with a few emoji: 1,600 characters as the API counts them
    body = ("Happy birthday! " * 100)[:1590] + "🎉🎂🎈🥳🎁🎉🎂🎈🥳🎁"
    assert len(body) == 1600
    sent = api.post(f"{BASE}/contacts/{contact.id}/messages", as_=employee, json={"channel": "sms", "body": body})
    assert sent.status == 400, sent
    assert sent.json["details"][0]["field"] == "body"
    assert "emoji counts as two" in sent.json["details"][0]["message"]
    assert len(responses.calls) == 0  # nothing sent, nothing billed
    # 1,600 units exactly is sent whole
    fits = ("Happy birthday! " * 100)[:1580] + "🎉🎂🎈🥳🎁🎉🎂🎈🥳🎁"
    assert _utf16_units(fits) == 1600
    sent = api.post(f"{BASE}/contacts/{contact.id}/messages", as_=employee, json={"channel": "sms", "body": fits})
    assert sent.status == 201, sent
    assert parse_qs(responses.calls[0].request.body)["Body"][0] == fits


def test_an_action_s_message_body_is_held_to_the_same_count(api, db, employee):
    contact = make_contact(db, phone="+61412345678")
    made = api.post(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee,
                    json={"title": "Birthday", "action_type": "birthday", "message_body": "a" * 1595 + "🎉" * 3})
    assert made.status == 400, made
    assert made.json["details"][0]["field"] == "message_body"
