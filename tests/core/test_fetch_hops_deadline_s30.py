"""Session 30: the website fetch's `total_seconds` bounds the whole fetch, redirects included. It was checked only
while a body was read, so each of up to four redirect hops had its own full connect and read timeouts: a site
redirecting slowly held a research request past its share of the request's deadline (and past API Gateway's 29 s).
Now no hop starts once the time is spent, and each hop's timeouts are cut to what is left."""
import pytest
import responses

import chalicelib.core.netguard as netguard
from chalicelib.core.netguard import FetchFailed, fetch_public_page

PAGE = "<html><head><title>Shop</title></head><body>Hi</body></html>"


@responses.activate
def test_no_redirect_hop_starts_once_the_fetch_s_time_is_spent(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(netguard.time, "monotonic", lambda: now[0])

    def slow_redirect(request):
        now[0] += 8  # each hop answers after 8 s
        return 302, {"Location": "https://hop-next.example.com/"}, ""
    responses.add_callback(responses.GET, "https://slow.example.com/", callback=slow_redirect)
    responses.add_callback(responses.GET, "https://hop-next.example.com/", callback=slow_redirect)
    with pytest.raises(FetchFailed, match="in time"):
        fetch_public_page("https://slow.example.com/", total_seconds=10, max_redirects=3)
    assert len(responses.calls) == 2  # the third hop (16 s in, past the 10 s) was never started


@responses.activate
def test_each_hop_s_timeouts_are_cut_to_what_is_left(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(netguard.time, "monotonic", lambda: now[0])
    timeouts = []

    def redirect(request):
        timeouts.append(request.req_kwargs["timeout"])
        now[0] += 7
        return 302, {"Location": "https://end.example.com/"}, ""

    def page(request):
        timeouts.append(request.req_kwargs["timeout"])
        return 200, {"Content-Type": "text/html"}, PAGE
    responses.add_callback(responses.GET, "https://start.example.com/", callback=redirect)
    responses.add_callback(responses.GET, "https://end.example.com/", callback=page)
    fetched = fetch_public_page("https://start.example.com/", timeout=(3.05, 10.0), total_seconds=12)
    assert fetched.text == PAGE
    assert timeouts[0] == (3.05, 10.0)  # 12 s left: the hop's own timeouts
    assert timeouts[1] == (3.05, 5.0)  # 5 s left: the read cut to them
