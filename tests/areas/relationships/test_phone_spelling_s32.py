"""A contact's international number written with the national trunk prefix in brackets (session 32, "the same thing
written two ways" audit).

"+61 (0)412 345 678" and "+44 (0)7700 900123" are how many people write "+61412345678" and "+447700900123": the
"(0)" is dialled at home only. Removing the spaces and brackets kept its 0, and "+610412345678" passed the E.164
check, so the message went to a number that is not the contact's. The "(0)" after the country code is now dropped."""
from chalicelib.core.notify_outbox import messages as outbox
from tests.areas.deals.factories import make_contact

BASE = "/api/relationships"


def _opted_in(api, db, user, phone, **profile):
    contact = make_contact(db, phone=phone)
    answer = api.patch(f"{BASE}/contacts/{contact.id}/relationship", as_=user, json={"sms_opt_in": True, **profile})
    assert answer.status == 200, answer
    return contact


def test_the_bracketed_trunk_zero_is_not_sent(api, db, employee):
    contact = _opted_in(api, db, employee, "+61 (0)412 345 678", msgapp_number="+44 (0) 7700-900-123")
    path = f"{BASE}/contacts/{contact.id}/messages"
    sms = api.post(path, as_=employee, json={"channel": "sms", "body": "Hello"})
    assert sms.status == 201, sms.json
    assert sms.json["message"]["to_number"] == "+61412345678"
    app = api.post(path, as_=employee, json={"channel": "msgapp", "body": "Hi"})
    assert app.status == 201, app.json
    assert app.json["message"]["to_number"] == "+447700900123"
    assert [m.target for m in outbox(db, provider="sms")] == ["+61412345678", "whatsapp:+447700900123"]


def test_a_national_number_is_still_refused(api, db, employee):
    contact = _opted_in(api, db, employee, "(0)412 345 678")
    refused = api.post(f"{BASE}/contacts/{contact.id}/messages", as_=employee, json={"channel": "sms", "body": "x"})
    assert refused.status == 400 and "E.164" in refused.json["error"]
