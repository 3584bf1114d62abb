"""Session 30, a request's deadline (docs/decisions/infra.md) in the adapters that do not go through
providers.http.send: SES (boto3, whose timeouts are the client's: 3 s to connect, 10 s to read), the research site
fetch (core.netguard) and the agents' runner. Outside a request they are as before."""
import pytest
import requests
import responses

from chalicelib.core import timeutil
from chalicelib.core.errors import GatewayTimeout
from chalicelib.providers.runner.base import RunnerUnreachable
from chalicelib.providers.runner.live import HttpRunner
from chalicelib.providers.website import live as website_live
from tests.core.test_request_deadline_s30 import slow  # noqa: F401
from tests.providers.test_ses_live import ses  # noqa: F401


def test_ses_is_not_called_with_less_than_its_timeouts_left(ses, slow):  # noqa: F811
    """SES's 13 s (connect and read) with 12 s left would end past the deadline: not called, a 504 (the
    announcement records its e-mail channel failed). Before, SES was called and could answer at 37 s."""
    _, stub = ses
    with timeutil.request_deadline():
        slow.advance(13)
        with pytest.raises(GatewayTimeout, match="E-mail provider was not called"):
            from chalicelib.providers.mail.live import SESMail

            SESMail(from_address="wms@agency.test").send(to=["a@b.test"], subject="Hi", text="Hello")
    stub.assert_no_pending_responses()


def test_a_site_fetch_in_a_request_gets_half_the_time_left(monkeypatch, slow):  # noqa: F811
    """The research brief's fetch, then its AI call: the fetch gets half of what is left (12.5 s of 25), its calls'
    timeouts within that; with less than 4 s left it is not made (FetchFailed, a failed brief). In a job, netguard's
    own 20 s and (3.05, 10)."""
    from chalicelib.core.netguard import FetchFailed

    seen = []
    monkeypatch.setattr(website_live, "fetch_public_page", lambda url, **kwargs: seen.append(kwargs))
    website_live.LiveWebsite().fetch("https://shop.example.com")
    with timeutil.request_deadline():
        website_live.LiveWebsite().fetch("https://shop.example.com")
        slow.advance(21.5)
        with pytest.raises(FetchFailed, match="not fetched"):
            website_live.LiveWebsite().fetch("https://shop.example.com")
    assert [(kwargs["timeout"], kwargs["total_seconds"]) for kwargs in seen] == [((3.05, 10.0), 20.0),
                                                                               ((3.05, 9.45), 12.5)]


@responses.activate
def test_the_runner_is_not_called_when_the_request_has_no_time_left(slow):  # noqa: F811
    responses.add(responses.POST, "https://runner.example.com/run", json={})
    with timeutil.request_deadline():
        slow.advance(24.5)
        with pytest.raises(RunnerUnreachable, match="the runner was not called"):
            HttpRunner().start_run(runner_url="https://runner.example.com/run", secret="s", payload={"run_id": "r"})
    assert not responses.calls
    assert issubclass(website_live.http.OutOfTime, requests.Timeout)
