"""Twilio Programmable Messaging wire format (`responses`, no network): a sender configured as a Messaging
Service SID goes in `MessagingServiceSid`, not `From`.

https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource: `From` is "required if
MessagingServiceSid is not passed" and is a phone number, alphanumeric sender id or channel address;
`MessagingServiceSid` (`MG` + 32 hex digits) selects the service's sender pool; Twilio answers 201 with the
Message resource, `status: accepted` when a Messaging Service was used."""
from urllib.parse import parse_qs

import responses

from chalicelib.providers.sms.live import TwilioSms

SID = "AC" + "0" * 32
SERVICE = "MG" + "9f" * 16
URL = f"https://api.twilio.com/2010-04-01/Accounts/{SID}/Messages.json"


def _accepted(to: str) -> dict:
    return {"sid": "SM" + "b" * 32, "account_sid": SID, "messaging_service_sid": SERVICE, "to": to, "from": None,
            "body": "Hi", "status": "accepted", "num_segments": "0", "num_media": "0", "direction": "outbound-api",
            "api_version": "2010-04-01", "error_code": None, "error_message": None, "price": None,
            "date_created": "Fri, 27 Nov 2026 10:00:00 +0000", "date_sent": None,
            "uri": f"/2010-04-01/Accounts/{SID}/Messages/SM{'b' * 32}.json"}


@responses.activate
def test_a_messaging_service_sender_is_sent_as_messaging_service_sid():
    responses.post(URL, json=_accepted("+61412345678"), status=201)
    responses.post(URL, json=_accepted("whatsapp:+61412345678"), status=201)
    sms = TwilioSms(account_sid=SID, auth_token="secret-token", from_number=SERVICE, msgapp_from=SERVICE)
    assert sms.send(channel="sms", to="+61412345678", body="Hi") == {"sid": "SM" + "b" * 32, "status": "accepted"}
    sms.send(channel="msgapp", to="+61412345678", body="Hi")
    text, app = (parse_qs(call.request.body) for call in responses.calls)
    assert text == {"To": ["+61412345678"], "MessagingServiceSid": [SERVICE], "Body": ["Hi"]}
    assert app == {"To": ["whatsapp:+61412345678"], "MessagingServiceSid": [SERVICE], "Body": ["Hi"]}


@responses.activate
def test_a_phone_number_sender_stays_from():
    responses.post(URL, json={**_accepted("+61412345678"), "status": "queued", "from": "+61400000000"}, status=201)
    TwilioSms(account_sid=SID, auth_token="t", from_number="+61400000000").send(channel="sms", to="+61412345678",
                                                                              body="Hi")
    assert parse_qs(responses.calls[0].request.body)["From"] == ["+61400000000"]
