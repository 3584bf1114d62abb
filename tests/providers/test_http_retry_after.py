"""providers.http.retry_after reads `Retry-After` as delay-seconds or as an HTTP-date (RFC 9110 section 10.2.3):
every live adapter that waits or names a wait goes through it (an HTTP-date was read as 1 second)."""
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import requests

from chalicelib.providers import http


def _answer(value):
    response = requests.Response()
    if value is not None:
        response.headers["Retry-After"] = value
    return response


def test_delay_seconds_an_http_date_and_the_fallback():
    assert http.retry_after(_answer("30")) == 30.0
    assert http.retry_after(_answer("2.5")) == 2.5
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=120), usegmt=True)
    assert 115 <= http.retry_after(_answer(later)) <= 120
    past = format_datetime(datetime.now(timezone.utc) - timedelta(seconds=60), usegmt=True)
    assert http.retry_after(_answer(past)) == 0.0
    assert http.retry_after(_answer(None)) == 1.0
    assert http.retry_after(_answer("soon")) == 1.0
