"""Session 29, code no test ran in chalicelib/providers/http.py, the transport every live adapter shares:
a Retry-After HTTP-date written without a zone, one that Python reads as a non-finite number, and a body that
is not JSON. Through the live Shopify adapter (RFC 9110 section 10.2.3 for Retry-After)."""
from datetime import datetime, timedelta, timezone

import pytest
import requests
import responses

from chalicelib.core.errors import BadGateway
from chalicelib.providers import http
from tests.areas.portal.test_connections_live import shopify
from tests.providers.test_adplatforms_wire import SHOP


def _answer(value):
    response = requests.Response()
    response.headers["Retry-After"] = value
    return response


def test_an_http_date_with_a_zone_of_minus_zero_is_read_as_utc():
    """RFC 5322's "-0000" (no zone information) makes parsedate_to_datetime a naive datetime: read as UTC."""
    later = (datetime.now(timezone.utc) + timedelta(seconds=90)).strftime("%a, %d %b %Y %H:%M:%S -0000")
    assert 85 <= http.retry_after(_answer(later)) <= 90


@pytest.mark.parametrize("value", ["inf", "Infinity", "1e999", "nan", "-inf"])
def test_a_retry_after_that_is_no_finite_number_is_unreadable(value):
    assert http.retry_after(_answer(value)) == 1.0


@responses.activate
def test_an_infinite_retry_after_waits_a_second_and_retries_never_a_500(waits):
    """Session 29: `Retry-After: 1e999` (float reads it as inf) made send raise rate_limited(inf), whose whole
    seconds int(inf) raised OverflowError: a 500 from any live adapter. It is an unreadable header (1 s)."""
    responses.get(f"{SHOP}/shop.json", status=429, headers={"Retry-After": "1e999"})
    responses.get(f"{SHOP}/shop.json", json={"shop": {"name": "Acme", "currency": "AUD"}})
    assert shopify().verify() == {"account_name": "Acme", "currency": "AUD"}
    assert waits == [1.0]


@responses.activate
def test_a_body_that_is_not_json_is_502():
    responses.get(f"{SHOP}/shop.json", body="<html>maintenance</html>")
    with pytest.raises(BadGateway, match=r"Shopify answered a body that is not JSON \(HTTP 200\)"):
        shopify().verify()


def test_utf16_cut_counts_a_character_outside_the_bmp_as_two():
    assert http.utf16_cut("ab\U0001F600cd", 3) == "ab"
    assert http.utf16_cut("ab\U0001F600cd", 4) == "ab\U0001F600"
    assert http.utf16_cut("abc", 3) == "abc"
