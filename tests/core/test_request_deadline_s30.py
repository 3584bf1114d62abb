"""Session 30, a request's deadline (docs/decisions/infra.md, "A request's deadline"): the endpoint decorator sets one
25 s after the request starts (core.timeutil.request_deadline); providers.http cuts each provider call's timeout to
what is left of it, starts no call with less than a second left, and waits no Retry-After that would not leave a
second. Jobs set none: their calls keep their timeouts. The fake clock (`slow`) and the hung provider (`hung`) are
the other s30 tests' too: time passes only when a provider call or a wait makes it pass, as long as they would."""
import pytest
import requests
import responses

from chalicelib.core import timeutil
from chalicelib.core.errors import GatewayTimeout, ServiceUnavailable
from chalicelib.providers import http

URL = "https://provider.example.test/thing"
DEADLINE = 25.0  # by when a request calling providers answers (core.timeutil.REQUEST_SECONDS)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def slow(monkeypatch):
    """timeutil's clock and providers.http's sleep on a fake clock."""
    clock = FakeClock()
    monkeypatch.setattr(timeutil, "clock", clock)
    monkeypatch.setattr(http, "sleep", clock.advance)
    return clock


def call_seconds(request) -> float:
    """The longest a call may take with the timeout it was sent with (connect + read)."""
    timeout = request.req_kwargs.get("timeout")
    return sum(timeout) if isinstance(timeout, tuple) else float(timeout)


def hung(clock):
    """A `responses` callback of a provider that answers nothing: the call's whole timeout passes, then requests'
    ReadTimeout."""
    def callback(request):
        clock.advance(call_seconds(request))
        raise requests.ReadTimeout("read timed out")
    return callback


def answers_after(clock, seconds: float, status: int = 200, headers: dict | None = None, body: str = "{}"):
    """A `responses` callback of a provider answering after `seconds` (or when the call times out, if sooner)."""
    def callback(request):
        if seconds > call_seconds(request):
            clock.advance(call_seconds(request))
            raise requests.ReadTimeout("read timed out")
        clock.advance(seconds)
        return status, headers or {}, body
    return callback


# ---------------------------------------------------------------- the arithmetic

def test_no_deadline_outside_a_request(slow):
    assert timeutil.time_left() is None
    assert http.call_timeout(20.0) == 20.0
    assert http.call_timeout((3.05, 10.0)) == (3.05, 10.0)
    assert http.wait_fits(3600)


def test_the_deadline_counts_down_and_is_gone_after_the_request(slow):
    with timeutil.request_deadline():
        assert timeutil.time_left() == timeutil.REQUEST_SECONDS == DEADLINE
        slow.advance(10)
        assert timeutil.time_left() == 15.0
        slow.advance(20)
        assert timeutil.time_left() == -5.0
    assert timeutil.time_left() is None


def test_a_call_timeout_is_cut_to_what_is_left(slow):
    with timeutil.request_deadline(25):
        assert http.call_timeout(5.0) == 5.0  # 5 s to connect and 5 to read fit: as it is
        assert http.call_timeout(20.0) == (3.05, 20.0)  # 20 + 20 do not: connect capped, read as asked
        slow.advance(15)  # 10 left
        assert http.call_timeout(20.0) == (3.05, pytest.approx(6.95))  # connect + read == what is left
        assert http.call_timeout((1.0, 5.0)) == (1.0, 5.0)  # a shorter timeout kept
        slow.advance(8)  # 2 left
        assert http.call_timeout(20.0) == (1.0, 1.0)  # connect at most half
        slow.advance(1.5)  # 0.5 left: no call
        with pytest.raises(http.OutOfTime) as raised:
            http.call_timeout(20.0)
        assert isinstance(raised.value, requests.Timeout)  # each adapter answers it as its own timeout


def test_a_wait_fits_when_it_leaves_a_second(slow):
    with timeutil.request_deadline(10):
        assert http.wait_fits(9)
        assert not http.wait_fits(9.5)


def test_the_endpoint_decorator_sets_the_deadline_and_clears_it(api, db, slow, monkeypatch):
    """Every route runs within a deadline of 25 s from its start: the time left when its unit of work is made."""
    from chalicelib.core import http as core_http

    seen = []
    real = core_http.UnitOfWork

    def spy():
        seen.append(timeutil.time_left())
        return real()

    monkeypatch.setattr(core_http, "UnitOfWork", spy)
    from tests.factories import make_user

    user = make_user(db, access_level="executive")
    assert api.get("/api/tasks", as_=user).status == 200
    assert seen == [25.0]
    assert timeutil.time_left() is None


# ---------------------------------------------------------------- providers.http.send

@responses.activate
def test_send_outside_a_request_keeps_its_timeout_and_waits(slow):
    """A job: the call's own timeout, the Retry-After waited, however long the whole takes."""
    responses.add_callback(responses.POST, URL, callback=answers_after(slow, 19, 429, {"Retry-After": "5"}))
    responses.add_callback(responses.POST, URL, callback=hung(slow))
    with pytest.raises(GatewayTimeout):
        http.send("POST", URL, name="P", max_wait=5, timeout=20)
    assert slow.now - 1000 == 19 + 5 + 20
    assert [call.request.req_kwargs["timeout"] for call in responses.calls] == [20, 20]


@responses.activate
def test_send_in_a_request_stops_at_the_deadline(slow):
    """19 s for a 429, its 5 s wait would leave 1 s: waited; the retry gets that second, then 504 at 25 s
    (44 s before: 19 + 5 + 20)."""
    responses.add_callback(responses.POST, URL, callback=answers_after(slow, 19, 429, {"Retry-After": "5"}))
    responses.add_callback(responses.POST, URL, callback=hung(slow))
    with timeutil.request_deadline(), pytest.raises(GatewayTimeout):
        http.send("POST", URL, name="P", max_wait=5, timeout=20)
    assert slow.now - 1000 == pytest.approx(25)


@responses.activate
def test_send_in_a_request_waits_no_retry_after_that_would_not_fit(slow):
    """A Retry-After that would leave less than a second is not waited: 503 naming it, at once."""
    responses.add_callback(responses.POST, URL, callback=answers_after(slow, 21, 429, {"Retry-After": "4"}))
    with timeutil.request_deadline(), pytest.raises(ServiceUnavailable) as raised:
        http.send("POST", URL, name="P", max_wait=5, timeout=20)
    assert raised.value.extra == {"retry_after": 4}
    assert slow.now - 1000 == 21
    assert len(responses.calls) == 1


@responses.activate
def test_send_with_no_time_left_calls_nothing(slow):
    with timeutil.request_deadline():
        slow.advance(24.5)
        with pytest.raises(GatewayTimeout) as raised:
            http.send("GET", URL, name="The thing", max_wait=5)
    assert raised.value.message == "The thing was not called: the request's 25 s for provider calls are spent"
    assert not responses.calls


def test_work_after_the_commit_has_no_deadline(slow):
    """A request's after-commit work (a meetings sync-now, a portal sync, the leave integrations) keeps its calls' own
    timeouts, as a job's: bounded by the request's deadline, its provider calls failed once the time was spent and
    those failures were recorded as the work's own (session 30's review). The deadline is back after it."""
    from chalicelib.core.db import UnitOfWork

    seen = []
    with timeutil.request_deadline():
        slow.advance(30)  # the request's time spent
        uow = UnitOfWork()
        uow.after_commit(lambda: seen.append((timeutil.time_left(), http.call_timeout(20.0))))
        uow.commit()
        uow.close()
        assert timeutil.time_left() == -5.0
    assert seen == [(None, 20.0)]


def test_the_deadline_counts_the_settings_first_load(api, db, slow, monkeypatch):
    """The deadline starts before the settings' first load (on a cold start a secret is read), not after it."""
    from chalicelib.core import http as core_http

    real = core_http._settings_problem
    seen = []

    def slow_settings():
        seen.append(timeutil.time_left())
        slow.advance(3)
        return real()

    monkeypatch.setattr(core_http, "_settings_problem", slow_settings)
    real_uow = core_http.UnitOfWork

    def spy():
        seen.append(timeutil.time_left())
        return real_uow()

    monkeypatch.setattr(core_http, "UnitOfWork", spy)
    from tests.factories import make_user

    assert api.get("/api/tasks", as_=make_user(db, access_level="executive")).status == 200
    assert seen == [25.0, 22.0]
