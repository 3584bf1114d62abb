"""Live website fetch: core.netguard.fetch_public_page (requests, every address checked, capped).

What it does with requests (checked against requests' documented behaviour, https://requests.readthedocs.io/):
- `GET` with `allow_redirects=False`: each 301, 302, 303, 307 or 308 with a `Location` is followed by hand
  (relative targets joined to the current URL), each target checked again, at most MAX_REDIRECTS of them;
- `stream=True` and `iter_content`: the byte cap MAX_BYTES applies to the decoded body (a gzip or deflate
  `Content-Encoding` is undone first, so a small compressed body cannot unpack past the cap); a declared
  `Content-Length` over the cap is refused before reading;
- `timeout=TIMEOUT` is (connect, read) and, as requests documents, the read timeout bounds each wait for
  data, not the whole download: the whole fetch is bounded too (`total_seconds`, 20 s), checked as the body
  is read;
- the text is decoded by `netguard.page_encoding`: the `Content-Type` charset when given, else a BOM, else a
  `<meta charset>` in the first 1024 bytes, else UTF-8 (not requests' `response.encoding`, which reads a
  `text/*` type without a charset as ISO-8859-1); undecodable bytes are replaced;
- a session with `trust_env=False`: no proxy from the environment (the address checked is the one connected);
  a 3xx without a `Location` is FetchFailed;
- `User-Agent: WMS-research/1.0`, `Accept: text/html,*/*;q=0.5`; a 4xx or 5xx is FetchFailed.

Within a request (core.timeutil.request_deadline) the fetch gets at most half of the time left, so that the AI
provider's brief (research) has the rest: the whole fetch's `total_seconds` and each call's timeout are cut to it,
and with too little left the site is not fetched (FetchFailed). Session 30, docs/decisions/infra.md.
"""
from __future__ import annotations

from chalicelib.core import timeutil
from chalicelib.core.netguard import FetchedPage, FetchFailed, fetch_public_page
from chalicelib.providers import http

from .base import MAX_BYTES, MAX_REDIRECTS, TIMEOUT

TOTAL_SECONDS = 20.0  # the whole fetch at most (netguard's default)
MIN_FETCH_SECONDS = 2.0  # the least a fetch is started with, within a request


class LiveWebsite:
    def fetch(self, url: str) -> FetchedPage:
        left = timeutil.time_left()
        if left is None:  # a job: no request deadline
            return fetch_public_page(url, max_bytes=MAX_BYTES, timeout=TIMEOUT, max_redirects=MAX_REDIRECTS,
                                     total_seconds=TOTAL_SECONDS)
        share = left / 2
        if share < MIN_FETCH_SECONDS:
            raise FetchFailed("the site was not fetched: the request's time for provider calls is spent")
        connect = min(TIMEOUT[0], http.CONNECT_SECONDS, share / 2)
        return fetch_public_page(url, max_bytes=MAX_BYTES, timeout=(connect, min(TIMEOUT[1], share - connect)),
                                 max_redirects=MAX_REDIRECTS, total_seconds=min(TOTAL_SECONDS, share))
