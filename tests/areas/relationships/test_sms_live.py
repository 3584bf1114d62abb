"""The Twilio live adapter, against Twilio's documented Messages API shapes (no network: `responses`)."""
from urllib.parse import parse_qs

import pytest
import requests
import responses

from chalicelib.core.errors import BadGateway, GatewayTimeout, ServiceUnavailable
from chalicelib.providers.sms import SmsDisabled, SmsNotConfigured, get_sms
from chalicelib.providers.sms.live import TwilioSms

SID = "AC" + "0" * 32
URL = f"https://api.twilio.com/2010-04-01/Accounts/{SID}/Messages.json"


def _adapter():
    return TwilioSms(account_sid=SID, auth_token="secret-token", from_number="+61400000000",
                     msgapp_from="whatsapp:+14155238886")


def _created(status="queued"):
    return {"sid": "SM" + "a" * 32, "status": status, "to": "+61412345678", "from": "+61400000000",
            "body": "Hi", "num_media": "0", "error_code": None, "error_message": None,
            "account_sid": SID, "date_created": "Mon, 23 Nov 2026 10:00:00 +0000"}


@responses.activate
def test_sms_request_shape_and_answer():
    responses.post(URL, json=_created(), status=201)
    assert _adapter().send(channel="sms", to="+61412345678", body="Hi") == {"sid": "SM" + "a" * 32, "status": "queued"}
    call = responses.calls[0].request
    assert call.headers["Authorization"].startswith("Basic ")
    import base64

    assert base64.b64decode(call.headers["Authorization"][6:]).decode() == f"{SID}:secret-token"
    assert parse_qs(call.body) == {"To": ["+61412345678"], "From": ["+61400000000"], "Body": ["Hi"]}


@responses.activate
def test_mms_and_whatsapp_shapes():
    responses.post(URL, json=_created(), status=201)
    responses.post(URL, json=_created(), status=201)
    _adapter().send(channel="mms", to="+61412345678", body="Photo", media_url="https://cdn.test/a.jpg")
    _adapter().send(channel="msgapp", to="+61412345678", body="Hi")
    mms, app = (parse_qs(c.request.body) for c in responses.calls)
    assert mms["MediaUrl"] == ["https://cdn.test/a.jpg"] and mms["To"] == ["+61412345678"]
    assert app["To"] == ["whatsapp:+61412345678"] and app["From"] == ["whatsapp:+14155238886"]


@pytest.mark.parametrize("status,body,headers,error,text", [
    (400, {"code": 21211, "message": "The 'To' number +6100 is not a valid phone number.",
           "more_info": "https://www.twilio.com/docs/errors/21211", "status": 400}, {}, BadGateway, "21211"),
    (400, {"code": 21610, "message": "Attempt to send to unsubscribed recipient", "status": 400}, {}, BadGateway,
     "unsubscribed"),
    (401, {"code": 20003, "message": "Authenticate", "status": 401}, {}, BadGateway, "auth token"),
    (429, {"code": 20429, "message": "Too Many Requests", "status": 429}, {"Retry-After": "30"}, ServiceUnavailable,
     "retry after 30"),
    (500, {"code": 20500, "message": "Internal Server Error", "status": 500}, {}, BadGateway, "HTTP 500"),
    (503, "not json", {}, BadGateway, "HTTP 503"),
])
@responses.activate
def test_errors_are_mapped(status, body, headers, error, text):
    if isinstance(body, dict):
        responses.post(URL, json=body, status=status, headers=headers)
    else:
        responses.post(URL, body=body, status=status, headers=headers)
    with pytest.raises(error) as raised:
        _adapter().send(channel="sms", to="+61412345678", body="Hi")
    assert text in raised.value.message
    assert raised.value.status in (502, 503)


@responses.activate
def test_timeout_and_unreachable():
    responses.post(URL, body=requests.Timeout("slow"))
    with pytest.raises(GatewayTimeout) as raised:
        _adapter().send(channel="sms", to="+61412345678", body="Hi")
    assert raised.value.status == 504
    responses.replace(responses.POST, URL, body=requests.ConnectionError("down"))
    with pytest.raises(BadGateway):
        _adapter().send(channel="sms", to="+61412345678", body="Hi")


def test_modes(set_env):
    set_env(SMS_MODE="live", TWILIO_ACCOUNT_SID=SID, TWILIO_AUTH_TOKEN="t", TWILIO_FROM_NUMBER="+61400000000")
    adapter = get_sms()
    assert isinstance(adapter, TwilioSms) and adapter.msgapp_from == "+61400000000"
    set_env(TWILIO_AUTH_TOKEN=None)
    with pytest.raises(SmsNotConfigured) as raised:
        get_sms()
    assert raised.value.status == 500
    set_env(SMS_MODE="off")
    with pytest.raises(SmsDisabled) as raised:
        get_sms()
    assert raised.value.status == 503
