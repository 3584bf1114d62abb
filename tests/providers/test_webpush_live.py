"""The live web push adapter (pywebpush) with `responses`: a push service's 429 with Retry-After (a short wait
waited and the message sent once more, a long one or a second 429 a failure to retry later), a timeout a 502
the notification worker retries."""
import base64

import pytest
import requests
import responses

from chalicelib.core.errors import BadGateway
from chalicelib.providers.push.live import WebPush

ENDPOINT = "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk-subscription"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _keys():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return _b64(key.private_numbers().private_value.to_bytes(32, "big")), _b64(public)


@pytest.fixture
def push():
    private, public = _keys()
    return WebPush(public_key=public, private_key=private, subject="mailto:ops@agency.test")


@pytest.fixture
def subscription():
    _, p256dh = _keys()
    return {"endpoint": ENDPOINT, "keys": {"p256dh": p256dh, "auth": _b64(b"0123456789abcdef")}}


@responses.activate
def test_a_short_retry_after_is_waited_and_the_message_sent_once_more(push, subscription, waits):
    responses.post(ENDPOINT, status=429, headers={"Retry-After": "2"}, json={
        "code": 429, "errno": 999, "error": "Too Many Requests", "message": "Too many messages"})
    responses.post(ENDPOINT, status=201)
    push.send(subscription=subscription, payload={"title": "Hello"})
    assert waits == [2.0] and len(responses.calls) == 2
    assert responses.calls[1].request.headers["Content-Encoding"] == "aes128gcm"


@responses.activate
def test_a_long_retry_after_or_a_second_429_is_a_failure_to_retry_later(push, subscription, waits):
    responses.post(ENDPOINT, status=429, headers={"Retry-After": "600"})
    with pytest.raises(BadGateway, match="rate limited.*retry after 600 s"):
        push.send(subscription=subscription, payload={"title": "Hello"})
    assert waits == [] and len(responses.calls) == 1
    responses.replace(responses.POST, ENDPOINT, status=429, headers={"Retry-After": "1"})
    with pytest.raises(BadGateway, match="rate limited"):
        push.send(subscription=subscription, payload={"title": "Hello"})
    assert waits == [1.0] and len(responses.calls) == 3


@responses.activate
def test_a_timeout_is_a_failure_the_worker_retries(push, subscription):
    responses.post(ENDPOINT, body=requests.ReadTimeout("slow"))
    with pytest.raises(BadGateway, match="did not answer in time"):
        push.send(subscription=subscription, payload={"title": "Hello"})
