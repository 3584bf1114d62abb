"""The live web push adapter (pywebpush) with `responses`: a push service's 429 with Retry-After (a short wait
waited and the message sent once more, a long one or a second 429 a failure to retry later), a timeout a 502
the notification worker retries."""
import base64
import json

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


# --- the endpoint checked again at delivery: a refused address is gone, a failed lookup is not (RFC 8030 7.3) ----

def _failed_lookup(host):
    import socket

    raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")


@responses.activate
def test_a_failed_dns_lookup_is_a_failure_to_retry_not_a_gone_subscription(push, subscription, monkeypatch):
    """netguard answers "host name does not resolve" for any error of getaddrinfo, a temporary EAI_AGAIN too: that
    is no answer from the push service about the subscription (only its 404/410, or an endpoint that is not https
    or resolves to a refused address, is), so it is a 502 the worker retries, and the subscription is kept."""
    from chalicelib.core import netguard
    from chalicelib.providers.push.base import SubscriptionGone

    monkeypatch.setattr(netguard, "resolve_host", _failed_lookup)
    with pytest.raises(BadGateway, match="could not be looked up") as raised:
        push.send(subscription=subscription, payload={"title": "Hello"})
    assert not isinstance(raised.value, SubscriptionGone) and len(responses.calls) == 0


@pytest.mark.parametrize("endpoint, resolves", [
    ("http://updates.push.services.mozilla.com/wpush/v2/x", None),   # not https
    ("https://10.0.0.5/wpush/v2/x", None),                             # a private address written
    ("https://push.rebind.test/wpush/v2/x", ["169.254.169.254"]),      # a name resolving to the metadata address
])
@responses.activate
def test_an_endpoint_that_is_not_public_https_is_gone(push, subscription, _no_dns, endpoint, resolves):
    from chalicelib.providers.push.base import SubscriptionGone

    if resolves:
        _no_dns["push.rebind.test"] = resolves
    with pytest.raises(SubscriptionGone, match="push endpoint refused"):
        push.send(subscription={**subscription, "endpoint": endpoint}, payload={"title": "Hello"})
    assert len(responses.calls) == 0


# --- the message's size: UTF-8 JSON, and a 413 is never retried (RFC 8291 section 4, RFC 8030 section 7.2) -------

def _subscriber():
    """A subscription and the private key and auth secret that decrypt what is sent to it."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    auth = b"0123456789abcdef"
    return {"endpoint": ENDPOINT, "keys": {"p256dh": _b64(public), "auth": _b64(auth)}}, key, auth


def decrypt(body: bytes, key, auth: bytes) -> bytes:
    import http_ece

    return http_ece.decrypt(body, private_key=key, auth_secret=auth, version="aes128gcm")


@responses.activate
def test_the_message_is_utf8_json_not_ascii_escapes(push):
    """json.dumps' default escaped each character outside ASCII as \\uXXXX (6 octets for 2 or 3 of UTF-8, 12 for an
    emoji's 4): a notice in a non-Latin script of about 600 characters passed the 4096 octets a push service must
    accept, and failed on every attempt."""
    subscription, key, auth = _subscriber()
    responses.post(ENDPOINT, status=201)
    text = "会議の議事録を確認してください。" * 45  # 720 characters: 2160 octets of UTF-8, 4320 escaped
    push.send(subscription=subscription, payload={"title": "議事録", "body": text})
    body = responses.calls[0].request.body
    plain = decrypt(body, key, auth)
    assert plain == json.dumps({"title": "議事録", "body": text}, ensure_ascii=False, separators=(",", ":")).encode()
    assert len(body) <= 4096  # RFC 8291 section 4: the encrypted message a push service must accept


@responses.activate
def test_a_413_is_a_message_too_large_not_a_failure_to_retry(push, subscription, waits):
    from chalicelib.providers.push.base import MessageTooLarge

    responses.post(ENDPOINT, status=413, json={"code": 413, "errno": 104, "error": "Payload Too Large"})
    with pytest.raises(MessageTooLarge, match="HTTP 413"):
        push.send(subscription=subscription, payload={"title": "Hello"})
    assert len(responses.calls) == 1 and waits == []
