"""HTTP to a provider through `requests`, with the error mapping of the live adapters (ledger, planner, payroll,
ad platforms): unreachable -> 502, timeout -> 504, 429 -> wait `Retry-After` (when it is at most `max_wait`
seconds) and retry once, else 503 naming when to retry; other answers are the caller's to read. Tokens never go
into a message. An id placed in a URL path goes through `segment` (percent-encoded, one segment).

Within a request (core.timeutil.request_deadline, set by the endpoint decorator) every call's timeout is cut to what
is left of the request's deadline (`call_timeout`), no call is started with less than MIN_CALL_SECONDS left (504,
`OutOfTime`), and a Retry-After wait that would not leave that much is not waited (503 naming when to retry). Jobs
set no deadline: their calls keep their own timeouts and waits (session 30, docs/decisions/infra.md)."""
from __future__ import annotations

import logging
import math
import time
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from urllib.parse import quote

import requests

from chalicelib.core import timeutil
from chalicelib.core.errors import BadGateway, BadRequest, GatewayTimeout, ServiceUnavailable
from chalicelib.core.serialize import clean_text, kept_id  # clean_text: the adapters' one copy (core's too)

sleep = time.sleep  # tests replace it
log = logging.getLogger("wms.providers")


def clean_value(value):
    """A JSON answer (as json.loads made it: its lists and objects are the caller's own) with every string cleaned
    as `clean_text`, in place, keys included (a record stored whole in a JSON column keeps its keys); iterative, so
    an answer as deep as json.loads reads cannot overflow the stack here."""
    if isinstance(value, str):
        return clean_text(value)
    stack = [value] if isinstance(value, (dict, list)) else []
    while stack:
        item = stack.pop()
        if isinstance(item, dict) and any(isinstance(key, str) and clean_text(key) != key for key in item):
            pairs = list(item.items())  # its keys cleaned, in order
            item.clear()
            item.update((clean_text(key) if isinstance(key, str) else key, child) for key, child in pairs)
        for key, child in (item.items() if isinstance(item, dict) else enumerate(item)):
            if isinstance(child, str):
                item[key] = clean_text(child)
            elif isinstance(child, (dict, list)):
                stack.append(child)
    return value


def text(value) -> str | None:
    """A value the provider documents as a string; anything else (a number, an object, a list) is absent (session
    30: `[:n]` of a number raised TypeError, an object bound to a text column failed the write)."""
    return value if isinstance(value, str) else None


def read_id(value, limit: int, problem: str) -> str:
    """A provider's id the service keeps (a non-empty string of at most `limit` characters, its column's:
    core.serialize.kept_id), else the provider's 502 saying `problem` (raised with no cause, as a refusal is)."""
    kept = kept_id(value, limit)
    if kept is None:
        raise BadGateway(problem)
    return kept


def json_id(value, limit: int) -> str | None:
    """A resource's id as a provider's JSON carries it (a string, or a whole number read as its digits) when a column
    of `limit` characters keeps it (core.serialize.kept_id), else None: the planner's people and bookings, the
    ledger's Payroll employees."""
    return kept_id(str(value) if isinstance(value, int) and not isinstance(value, bool) else value, limit)


def whole_seconds(wait: float) -> int:
    """A wait in the whole seconds every adapter names (rounded up; a wait of 0.2 s is 1 s)."""
    return int(wait + 0.999)


def read_json(response):
    """`response.json()` with every string cleaned (`clean_value`): the reader of each adapter's answers, so that no
    provider's text reaches a column or an answer with a NUL or a lone surrogate. Raises what `response.json()`
    raises (ValueError for a body that is not JSON), and ValueError for a body nested deeper than json.loads reads
    (its RecursionError was a 500 wherever the adapter caught only ValueError)."""
    try:
        value = response.json()
    except RecursionError as exc:
        raise ValueError("a body nested too deep to read") from exc
    return clean_value(value)


def segment(value) -> str:
    """A value as one URL path segment, percent-encoded (RFC 3986 section 3.3: `/`, `?`, `#`, `%` and every other
    reserved character escaped): an id typed by a person (a ledger invoice id set by hand, a payroll employee id of a
    user mapping) or answered by a provider must not reach another path of the provider's API (`../Contacts?x=`
    would, with the organisation's token). Audit S3 (ledger), then payroll. An empty value or one of dots alone
    (`.`, `..`) is refused (400): quote leaves dots, requests decodes `%2E` back to a dot and removes dot segments
    (RFC 3986 section 5.2.4), so `Invoices/../Email` reached `/Email` (session 22's injection audit)."""
    text = str(value)
    if text.strip(".") == "":
        raise BadRequest(f"{text!r} is not an id that can be sent to the provider")
    return quote(text, safe="")


def utf16_cut(text: str, limit: int) -> str:
    """The longest start of `text` that is at most `limit` UTF-16 code units: how .NET and Java services (Xero) count
    a field's length, where a character outside the Basic Multilingual Plane (an emoji) is two (session 28)."""
    if len(text) * 2 <= limit:  # short enough whatever its characters
        return text
    units = 0
    for index, char in enumerate(text):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > limit:
            return text[:index]
    return text


def retry_after(response) -> float:
    """Seconds a 429 or 503 asks to wait: `Retry-After` as delay-seconds or as an HTTP-date (RFC 9110 section
    10.2.3); 1 when it is absent or unreadable, a number that is not finite included ("inf", "1e999", "nan":
    session 29, an infinite wait made rate_limited's whole seconds int(inf), an OverflowError answered as a 500)."""
    value = (response.headers.get("Retry-After") or "").strip()
    try:
        seconds = float(value or "1")
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else 1.0
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return 1.0
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def unreachable(name: str, exc: Exception) -> BadGateway:
    """The 502 of a provider that could not be reached, naming only the exception's type: its text (host, port,
    URL) is logged, never answered to the client (session 22's stored-content audit)."""
    log.warning("%s unreachable: %s", name, exc)
    return BadGateway(f"{name} unreachable ({type(exc).__name__})")


def rate_limited(name: str, wait: float) -> ServiceUnavailable:
    """503 naming, in whole seconds, when to retry (`retry_after` in the body too)."""
    seconds = whole_seconds(wait)
    return ServiceUnavailable(f"{name} is rate limiting requests; retry after {seconds} s", extra={"retry_after": seconds})


MIN_CALL_SECONDS = 1.0
"""The least time left of a request's deadline with which a provider call is started (or a Retry-After waited)."""
CONNECT_SECONDS = 3.05
"""A call's connect timeout within a request (requests' advice: a little over a multiple of TCP's 3 s retransmission
window); the read timeout gets the rest of the time left, so that the two together stay within it."""


class OutOfTime(requests.Timeout):
    """No time is left of the request's deadline for another provider call. A requests.Timeout, so that each adapter
    calling `requests` itself answers it as its own timeout (504), as it answers a provider that did not answer."""


def call_timeout(timeout):
    """The `timeout` (seconds, or requests' (connect, read) pair) of a provider call: as it is in a job, and in a
    request whose time left holds it whole (connect and read); else a (connect, read) pair whose sum is the time
    left of the request's deadline (connect at most CONNECT_SECONDS and half of it), each no longer than
    `timeout`'s. OutOfTime when less than MIN_CALL_SECONDS are left. Called inside the adapter's `try` around its
    `requests` call."""
    left = timeutil.time_left()
    if left is None:
        return timeout
    if left < MIN_CALL_SECONDS:
        raise OutOfTime(f"the request's {timeutil.REQUEST_SECONDS:g} s for provider calls are spent")
    connect, read = timeout if isinstance(timeout, tuple) else (timeout, timeout)
    if connect + read <= left:
        return timeout
    connect = min(connect, CONNECT_SECONDS, left / 2)
    return connect, min(read, left - connect)


def wait_fits(wait: float) -> bool:
    """Whether waiting `wait` seconds (a Retry-After) still leaves MIN_CALL_SECONDS of the request's deadline for
    the call that follows; always in a job."""
    left = timeutil.time_left()
    return left is None or left - wait >= MIN_CALL_SECONDS


def timed_out(name: str, exc: requests.Timeout) -> GatewayTimeout:
    """The 504 of a call that timed out, or that was not made because the request's deadline left no time."""
    if isinstance(exc, OutOfTime):
        return GatewayTimeout(f"{name} was not called: {exc}")
    return GatewayTimeout(f"{name} did not answer in time")


def send(method: str, url: str, *, name: str, max_wait: float, timeout: float = 20.0, wait_of=None, **kwargs):
    """The response of the request (any status but 429); 429 handled as the module docstring says. `wait_of`
    (default `retry_after`) gives the seconds a 429 asks to wait, or None when that 429 is no rate limit (a
    provider's quota refusal), which is then returned as it is."""
    wait_of = wait_of or retry_after
    for attempt in (1, 2):
        try:
            response = requests.request(method, url, timeout=call_timeout(timeout), **kwargs)
        except requests.Timeout as exc:
            raise timed_out(name, exc) from exc
        except requests.RequestException as exc:
            raise unreachable(name, exc) from exc
        wait = wait_of(response) if response.status_code == 429 else None
        if wait is None:
            return response
        if attempt == 2 or wait > max_wait or not wait_fits(wait):
            raise rate_limited(name, wait)
        sleep(wait)
    raise AssertionError("unreachable")


def json_body(response, name: str):
    """The response's JSON, its strings cleaned (`read_json`); a body that is not JSON is a 502."""
    try:
        return read_json(response)
    except ValueError as exc:
        raise BadGateway(f"{name} answered a body that is not JSON (HTTP {response.status_code})") from exc


def json_object(response, name: str) -> dict:
    """The response's JSON object; a body that is not JSON, or JSON that is not an object (a list, a string, a
    number), is a 502 (session 29: `.get` on a list was an AttributeError, a 500)."""
    body = json_body(response, name)
    if not isinstance(body, dict):
        raise BadGateway(f"{name} answered a body that is not a JSON object (HTTP {response.status_code})")
    return body


def one_object(value, problem: str) -> dict:
    """`value` (a field the provider documents as an object; None is an empty one) as an object, else the provider's
    502 saying `problem` (session 30: `.get` on anything else raised AttributeError)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadGateway(problem)
    return value


def objects(value, name: str, what: str) -> list[dict]:
    """`value` (an answer's list of records; None is none) as a list of objects, else a 502 naming `what`."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise BadGateway(f"{name} answered {what} that are not a list of objects")
    return value
