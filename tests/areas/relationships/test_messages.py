"""Messages to contacts by SMS, MMS and the message app (the sms provider: sandbox by default)."""
import pytest
from sqlalchemy import select

from chalicelib.areas.action_items.models import ActionItem
from chalicelib.areas.relationships.models import RelationshipAction
from chalicelib.core.notify_outbox import messages as outbox
from tests.areas.deals.factories import make_contact

BASE = "/api/relationships"


def _opted_in(api, db, user, phone="+61412345678", **profile):
    contact = make_contact(db, phone=phone)
    answer = api.patch(f"{BASE}/contacts/{contact.id}/relationship", as_=user, json={"sms_opt_in": True, **profile})
    assert answer.status == 200, answer
    return contact


@pytest.mark.smoke
def test_send_sms_mms_and_message_app(api, db, employee):
    contact = _opted_in(api, db, employee, phone="+61 412 345 678", msgapp_number="+61400000001")
    path = f"{BASE}/contacts/{contact.id}/messages"
    sms = api.post(path, as_=employee, json={"channel": "sms", "body": "Hello Ana"})
    assert sms.status == 201, sms
    message = sms.json["message"]
    assert (message["channel"], message["to_number"], message["status"], message["sent_by"]) == (
        "sms", "+61412345678", "queued", employee.id)
    mms = api.post(path, as_=employee, json={"channel": "mms", "body": "Photo", "media_url": "https://cdn.test/a.jpg"})
    app = api.post(path, as_=employee, json={"channel": "msgapp", "body": "Hi on WhatsApp"})
    assert mms.status == 201 and app.status == 201
    listed = api.get(path, as_=employee).json["messages"]
    assert [m["id"] for m in listed] == [app.json["message"]["id"], mms.json["message"]["id"], message["id"]]
    # after commit the provider took them: Twilio-like sids, the message app through whatsapp:
    assert all(m["provider_message_id"].startswith("SM") and m["status"] == "queued" for m in listed)
    sent = outbox(db, provider="sms")
    assert [(m.target, m.subject, m.body) for m in sent] == [
        ("+61412345678", "sms", "Hello Ana"), ("+61412345678", "mms", "Photo"),
        ("whatsapp:+61400000001", "msgapp", "Hi on WhatsApp")]
    assert sent[1].payload == {"media_url": ["https://cdn.test/a.jpg"]}


def test_message_rules(api, db, employee, set_env):
    no_phone = _opted_in(api, db, employee, phone=None)
    assert api.post(f"{BASE}/contacts/{no_phone.id}/messages", as_=employee,
                    json={"channel": "sms", "body": "x"}).status == 400
    bad_phone = _opted_in(api, db, employee, phone="0412 345 678")
    refused = api.post(f"{BASE}/contacts/{bad_phone.id}/messages", as_=employee, json={"channel": "sms", "body": "x"})
    assert refused.status == 400 and "E.164" in refused.json["error"]
    not_opted = make_contact(db, phone="+61412345678")
    assert api.post(f"{BASE}/contacts/{not_opted.id}/messages", as_=employee,
                    json={"channel": "sms", "body": "x"}).status == 403
    contact = _opted_in(api, db, employee)
    path = f"{BASE}/contacts/{contact.id}/messages"
    for bad in ({"channel": "fax", "body": "x"}, {"channel": "sms"}, {"channel": "sms", "body": "  "},
                {"channel": "mms", "body": "x"}, {"channel": "sms", "body": "x", "media_url": "https://cdn.test/a"},
                {"channel": "mms", "body": "x", "media_url": "ftp://cdn.test/a"}, {"channel": "sms", "body": "x" * 1601}):
        assert api.post(path, as_=employee, json=bad).status == 400, bad
    assert api.post(f"{BASE}/contacts/missing/messages", as_=employee, json={"channel": "sms", "body": "x"}).status == 404
    set_env(SMS_MODE="off")
    disabled = api.post(path, as_=employee, json={"channel": "sms", "body": "x"})
    assert disabled.status == 503 and disabled.json["error"]
    assert api.get(f"{BASE}/contacts/{contact.id}/relationship", as_=employee).json["sms_connected"] == 0
    set_env(SMS_MODE="live", TWILIO_ACCOUNT_SID=None, TWILIO_AUTH_TOKEN=None, TWILIO_FROM_NUMBER=None)
    unconfigured = api.post(path, as_=employee, json={"channel": "sms", "body": "x"})
    assert unconfigured.status == 500 and "not configured" in unconfigured.json["error"]
    assert api.get(path, as_=employee).json["messages"] == []  # nothing was written


def test_provider_refusal_is_recorded_on_the_message(api, db, employee):
    contact = _opted_in(api, db, employee, phone="+15005550001")  # Twilio's invalid number
    made = api.post(f"{BASE}/contacts/{contact.id}/messages", as_=employee, json={"channel": "sms", "body": "x"})
    assert made.status == 201
    message = api.get(f"{BASE}/contacts/{contact.id}/messages", as_=employee).json["messages"][0]
    assert message["status"] == "failed" and "21211" in message["error"]


def test_auto_action_id_marks_that_action_done(api, db, employee):
    contact = _opted_in(api, db, employee)
    action = api.post(f"{BASE}/contacts/{contact.id}/relationship-actions", as_=employee,
                      json={"title": "Birthday text", "action_type": "sms"}).json["action"]
    sent = api.post(f"{BASE}/contacts/{contact.id}/messages", as_=employee,
                    json={"channel": "sms", "body": "Happy birthday!", "auto_action_id": action["id"]})
    assert sent.status == 201 and sent.json["message"]["auto_action_id"] == action["id"]
    assert db.get(RelationshipAction, action["id"]).status == "done"
    assert db.scalar(select(ActionItem.is_completed).where(ActionItem.source_id == action["id"])) is True
    other = make_contact(db)
    foreign = RelationshipAction(contact_id=other.id, title="x", action_type="call", status="pending", is_auto=False,
                                 assigned_to_user_id=employee.id)
    db.add(foreign)
    db.flush()
    refused = api.post(f"{BASE}/contacts/{contact.id}/messages", as_=employee,
                       json={"channel": "sms", "body": "x", "auto_action_id": foreign.id})
    assert refused.status == 400 and refused.json["details"][0]["field"] == "auto_action_id"
