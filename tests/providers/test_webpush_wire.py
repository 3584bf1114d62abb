"""Web Push wire format through pywebpush (`responses`, no network).

RFC 8292 section 2 (https://www.rfc-editor.org/rfc/rfc8292#section-2): the VAPID JWT carries `aud` (the push
resource's origin), `exp` (at most 24 hours ahead) and `sub`, "a contact URI for the application server as either a
`mailto:` (email) or an `https:` URI"; section 3: `Authorization: vapid t=<JWT>, k=<public key>`. RFC 8030
section 5.3 (https://www.rfc-editor.org/rfc/rfc8030#section-5.3): 429 may carry `Retry-After`, which RFC 9110
section 10.2.3 allows as an HTTP-date as well as delay-seconds. A push service answers 201 Created."""
import base64
import json
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
import responses

from chalicelib.core.errors import BadGateway
from chalicelib.providers.push.live import WebPush
from tests.providers.test_webpush_live import _b64, _keys

ENDPOINT = "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk-subscription"


def _subscription():
    _, p256dh = _keys()
    return {"endpoint": ENDPOINT, "keys": {"p256dh": p256dh, "auth": _b64(b"0123456789abcdef")}}


def _claims(authorization: str) -> dict:
    scheme, params = authorization.split(" ", 1)
    assert scheme == "vapid"
    token = dict(part.strip().split("=", 1) for part in params.split(","))["t"]
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


@responses.activate
def test_a_bare_email_subject_is_sent_as_a_mailto_uri():
    private, public = _keys()
    responses.post(ENDPOINT, status=201)
    WebPush(public_key=public, private_key=private, subject="ops@agency.test").send(
        subscription=_subscription(), payload={"title": "Hello"}, ttl=600)
    request = responses.calls[0].request
    claims = _claims(request.headers["Authorization"])
    assert claims["sub"] == "mailto:ops@agency.test"
    assert claims["aud"] == "https://updates.push.services.mozilla.com"
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600
    assert dict(part.strip().split("=", 1) for part in request.headers["Authorization"][6:].split(","))["k"] == public
    assert request.headers["TTL"] == "600" and request.headers["Content-Encoding"] == "aes128gcm"


@responses.activate
def test_a_subject_vapid_refuses_is_a_502_not_an_unhandled_error():
    private, public = _keys()
    with pytest.raises(BadGateway, match="could not be encrypted or signed"):
        WebPush(public_key=public, private_key=private, subject="the ops team").send(
            subscription=_subscription(), payload={"title": "Hello"})
    assert len(responses.calls) == 0


@responses.activate
def test_a_retry_after_http_date_is_read_as_a_date(waits):
    private, public = _keys()
    later = format_datetime(datetime.now(timezone.utc) + timedelta(minutes=10), usegmt=True)
    responses.post(ENDPOINT, status=429, headers={"Retry-After": later})
    with pytest.raises(BadGateway, match=r"retry after (599|600) s"):
        WebPush(public_key=public, private_key=private, subject="mailto:ops@agency.test").send(
            subscription=_subscription(), payload={"title": "Hello"})
    assert waits == [] and len(responses.calls) == 1
