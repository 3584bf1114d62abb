"""Session 29, Twilio's 429 (error 20429, https://www.twilio.com/docs/errors/20429) names when to retry in whole
seconds, as every other adapter does (providers.http.retry_after, then rate_limited's rounding up): the raw
Retry-After header went into the 503's `retry_after` as it came ("30", an HTTP-date, "soon")."""
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
import responses

from chalicelib.core.errors import ServiceUnavailable
from tests.areas.relationships.test_sms_live import URL, _adapter

BUSY = {"code": 20429, "message": "Too Many Requests", "more_info": "https://www.twilio.com/docs/errors/20429",
        "status": 429}


def _busy(headers):
    responses.post(URL, status=429, json=BUSY, headers=headers)
    with pytest.raises(ServiceUnavailable) as raised:
        _adapter().send(channel="sms", to="+61412345678", body="Hi")
    return raised.value


@pytest.mark.parametrize("header, seconds", [("30", 30), ("2.5", 3), ("soon", 1), ("1e999", 1), ("-5", 0)])
@responses.activate
def test_a_retry_after_is_whole_seconds(header, seconds):
    busy = _busy({"Retry-After": header})
    assert busy.status == 503
    assert busy.extra == {"retry_after": seconds}
    assert busy.message == f"SMS provider busy: Twilio rate limit reached (retry after {seconds} s)"


@responses.activate
def test_a_retry_after_as_an_http_date_is_the_seconds_until_it():
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=40), usegmt=True)
    busy = _busy({"Retry-After": later})
    assert isinstance(busy.extra["retry_after"], int) and 35 <= busy.extra["retry_after"] <= 41


@responses.activate
def test_a_429_without_retry_after_names_no_wait():
    busy = _busy({})
    assert busy.status == 503 and not busy.extra
    assert busy.message == "SMS provider busy: Twilio rate limit reached"
