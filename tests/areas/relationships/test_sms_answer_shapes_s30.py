"""Session 30, a Twilio Message resource outside its documented shape (https://www.twilio.com/docs/messaging/api/
message-resource: `sid` a 34-character string, `status` one of Twilio's message statuses): the sid and status are
written to `relationship_messages.provider_message_id` (100 characters) and `status` (20), after the message was
sent; a sid that is no string or past its column, or a status that is no short string, failed that write and left
the message `queued` for good. Twilio took the message (201): a sid that cannot be read is no id, and a status that
cannot be read is `queued`, as an absent one; the message is recorded as Twilio answered, never left behind."""
import pytest
import responses

from tests.areas.relationships.test_sms_live import URL, _adapter, _created


@pytest.mark.parametrize("sid", [{"sid": "SM1"}, ["SM1"], 12345, "SM" + "a" * 120, ""])
@responses.activate
def test_a_sid_that_cannot_be_read_is_no_id(sid):
    responses.post(URL, json={**_created(), "sid": sid}, status=201)
    assert _adapter().send(channel="sms", to="+61412345678", body="Hi") == {"sid": None, "status": "queued"}


@pytest.mark.parametrize("status", [{"s": 1}, 7, "x" * 21, ["sent"]])
@responses.activate
def test_a_status_that_cannot_be_read_is_queued(status):
    responses.post(URL, json={**_created(), "status": status}, status=201)
    assert _adapter().send(channel="sms", to="+61412345678", body="Hi") == {"sid": "SM" + "a" * 32, "status": "queued"}


@responses.activate
def test_a_message_taken_whose_sid_is_past_its_column_is_recorded_as_answered_not_left_queued(api, db, employee, set_env):
    from chalicelib.areas.relationships.models import RelationshipMessage
    from tests.areas.deals.factories import make_contact
    from tests.areas.relationships.test_twilio_units_s28 import BASE, SID, TWILIO_URL

    set_env(SMS_MODE="live", TWILIO_ACCOUNT_SID=SID, TWILIO_AUTH_TOKEN="secret-token", TWILIO_FROM_NUMBER="+61400000000")
    responses.post(TWILIO_URL, json={"sid": "SM" + "c" * 120, "status": "sent"}, status=201)
    contact = make_contact(db, phone="+61412345678")
    assert api.patch(f"{BASE}/contacts/{contact.id}/relationship", as_=employee, json={"sms_opt_in": True}).status == 200
    sent = api.post(f"{BASE}/contacts/{contact.id}/messages", as_=employee, json={"channel": "sms", "body": "Hi"})
    assert sent.status == 201, sent
    db.expire_all()
    message = db.get(RelationshipMessage, sent.json["message"]["id"])
    assert (message.status, message.provider_message_id) == ("sent", None)
