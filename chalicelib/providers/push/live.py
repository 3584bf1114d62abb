"""Web push through pywebpush: aes128gcm payload encryption (RFC 8291) and a VAPID JWT (RFC 8292)
signed with `VAPID_PRIVATE_KEY` (base64url raw or DER key, or a PEM file path), `sub` from
`VAPID_SUBJECT`. Wire format (RFC 8030, 8291, 8292): a POST to the subscription's endpoint with `TTL`,
`Content-Encoding: aes128gcm` and `Authorization: vapid t=<JWT>,k=<public key>`; the JWT's claims are `aud` (the
endpoint's origin, filled by pywebpush), `exp` (12 hours ahead; RFC 8292 allows at most 24) and `sub`, which RFC
8292 section 2.1 makes a `mailto:` or `https:` URI: a bare e-mail address in `VAPID_SUBJECT` is sent as
`mailto:<address>`, and a subject py_vapid still refuses is a 502, not an unhandled error. A push service answers
201; its 404 and 410 mean the subscription is gone (RFC 8030 section 7.3), and 413 that the message is too large
for it (section 7.2; MessageTooLarge: never retried). The message is `base.encode_payload` (UTF-8 JSON, not
`\\uXXXX` escapes, which made a notice in a non-Latin script three to four times its size and past the 4096
octets a push service must accept). The endpoint is checked again before sending (`core.netguard`): an endpoint
that is not https, or whose host resolves to a refused (private, loopback, link-local...) address, is gone; a
host name whose lookup failed (a temporary DNS failure, EAI_AGAIN: netguard's UnsafeURL then chains the
OSError of getaddrinfo) is a 502, and the subscription is kept for the retry; one DNS hiccup deleted every
subscription it touched. `Retry-After` is read as delay-seconds or an HTTP-date (RFC 9110 section 10.2.3). A 429
with a `Retry-After` of at most MAX_RETRY_WAIT seconds is waited and the message sent once more; a longer one, a
second 429, another refusal, a timeout or an unreachable service is 502 (BadGateway: the notification worker
keeps that delivery `failed` for its retry, and the other subscriptions' outcome, only for BadGateway).
Redirects are not followed (a push service never redirects; followed, a redirect would take the POST past the
endpoint's address check to any host, the internal network included): a 3xx is a refusal like any other status."""
from __future__ import annotations

import logging

import requests

from chalicelib.core.errors import BadGateway
from chalicelib.providers import http

from .base import MessageTooLarge, SubscriptionGone, encode_payload

log = logging.getLogger("wms.push")
MAX_RETRY_WAIT = 5.0  # seconds of a 429's Retry-After waited before the one retry


def vapid_subject(subject: str) -> str:
    """RFC 8292 section 2.1: `sub` is a `mailto:` or `https:` URI; a bare e-mail address becomes `mailto:`."""
    subject = (subject or "").strip()
    if "@" in subject and not subject.lower().startswith(("mailto:", "https:")):
        return f"mailto:{subject}"
    return subject


class _NoRedirects(requests.Session):
    """The session pywebpush posts through: a redirect is answered as it came, never followed."""

    def request(self, method, url, *args, **kwargs):
        kwargs["allow_redirects"] = False
        return super().request(method, url, *args, **kwargs)


class WebPush:
    def __init__(self, *, public_key: str, private_key: str, subject: str, timeout: float = 10.0) -> None:
        self.public_key = public_key
        self.private_key = private_key
        self.subject = vapid_subject(subject)
        self.timeout = timeout

    def send(self, *, subscription: dict, payload: dict, ttl: int = 86400) -> None:
        from py_vapid import VapidException
        from pywebpush import WebPushException, webpush

        from chalicelib.core.netguard import UnsafeURL, check_public_https_url

        try:  # checked again at delivery: the host may resolve elsewhere than when it subscribed
            check_public_https_url(subscription.get("endpoint") or "")
        except UnsafeURL as exc:
            if isinstance(exc.__cause__, OSError):  # netguard's lookup failed (getaddrinfo's error, chained)
                raise BadGateway("Push service's host name could not be looked up "
                                 f"({type(exc.__cause__).__name__}); the message is retried later") from exc
            raise SubscriptionGone(f"push endpoint refused: {exc}") from exc
        data = encode_payload(payload)
        session = _NoRedirects()
        try:
            for attempt in (1, 2):
                try:
                    webpush(subscription_info=subscription, data=data,
                            vapid_private_key=self.private_key, vapid_claims={"sub": self.subject},
                            ttl=ttl, timeout=self.timeout, requests_session=session)
                    return
                except WebPushException as exc:
                    status = getattr(exc.response, "status_code", None)
                    if status in (404, 410):
                        raise SubscriptionGone(f"push subscription gone (HTTP {status})") from exc
                    if status == 413:
                        raise MessageTooLarge(f"Push service refused the message as too large (HTTP 413, "
                                              f"{len(data)} octets before encryption)") from exc
                    if status == 429:
                        wait = http.retry_after(exc.response)
                        if attempt == 1 and wait <= MAX_RETRY_WAIT:
                            http.sleep(wait)
                            continue
                        raise BadGateway("Push service rate limited the message (retry after "
                                         f"{http.whole_seconds(wait)} s)") from exc
                    raise BadGateway(f"Push service refused the message (HTTP {status}): {exc.message}") from exc
        except requests.Timeout as exc:
            raise BadGateway("Push service did not answer in time") from exc
        except requests.RequestException as exc:  # its text (host, port, URL) is the log's, never the caller's
            raise http.unreachable("Push service", exc) from exc
        except (ValueError, TypeError, VapidException) as exc:  # malformed keys or VAPID claims (subject)
            log.warning("push message could not be encrypted or signed: %s", exc)
            raise BadGateway(f"Push message could not be encrypted or signed ({type(exc).__name__})") from exc
        finally:
            session.close()
