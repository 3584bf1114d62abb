"""Session 29, code no test ran in the agent-runner adapters: the host check's other readings (a name of hex
letters that is no legacy IPv4 form, a URL that cannot be split or has no host, a name that does not resolve, a
resolver answer that is no address), an accepted run answered without JSON, and the sandbox's callback for a run
it was never asked for."""
import pytest
import responses

from chalicelib.core import netguard
from chalicelib.providers.runner.base import REFUSED_RUNNER_HOST, runner_host_problem
from chalicelib.providers.runner.live import HttpRunner
from chalicelib.providers.runner.sandbox import callback_for


def test_a_name_of_hex_letters_is_resolved_not_read_as_an_address(_no_dns):
    """`bad.cafe` matches the legacy-IPv4 alphabet but inet_aton refuses it: it is a name, checked by what it
    resolves to (here the metadata service: refused)."""
    _no_dns["bad.cafe"] = ["169.254.169.254"]
    assert runner_host_problem("https://bad.cafe/run") == REFUSED_RUNNER_HOST
    _no_dns["bad.cafe"] = ["10.0.0.7"]
    assert runner_host_problem("https://bad.cafe/run") is None


def test_a_url_without_a_host_or_that_cannot_be_split_is_left_to_the_call():
    assert runner_host_problem("https://[::1/run") is None  # urlsplit: Invalid IPv6 URL
    assert runner_host_problem("file:///etc/passwd") is None
    assert runner_host_problem(None) is None


def test_a_name_that_does_not_resolve_or_an_answer_that_is_no_address(monkeypatch):
    def fails(host):
        raise OSError("Name or service not known")

    monkeypatch.setattr(netguard, "resolve_host", fails)
    assert runner_host_problem("https://runner.invalid/run") is None
    monkeypatch.setattr(netguard, "resolve_host", lambda host: ["not-an-address", "169.254.169.254"])
    assert runner_host_problem("https://runner.example/run") == REFUSED_RUNNER_HOST


@responses.activate
def test_an_accepted_run_answered_without_json_is_an_empty_answer():
    responses.post("https://runner.example/run", status=202, body="accepted")
    assert HttpRunner().start_run(runner_url="https://runner.example/run", secret="s",
                                  payload={"run_id": "r1"}) == {}


def test_the_sandbox_has_no_callback_for_a_run_it_was_never_asked_for(db):
    with pytest.raises(KeyError, match="never asked for run nope"):
        callback_for(db, "nope")
