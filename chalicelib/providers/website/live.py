"""Live website fetch: core.netguard.fetch_public_page (requests, every address checked, capped).

What it does with requests (checked against requests' documented behaviour, https://requests.readthedocs.io/):
- `GET` with `allow_redirects=False`: each 301, 302, 303, 307 or 308 with a `Location` is followed by hand
  (relative targets joined to the current URL), each target checked again, at most MAX_REDIRECTS of them;
- `stream=True` and `iter_content`: the byte cap MAX_BYTES applies to the decoded body (a gzip or deflate
  `Content-Encoding` is undone first, so a small compressed body cannot unpack past the cap); a declared
  `Content-Length` over the cap is refused before reading;
- `timeout=TIMEOUT` is (connect, read) and, as requests documents, the read timeout bounds each wait for
  data, not the whole download;
- the text is decoded with `response.encoding`, which requests takes from the `Content-Type` charset only:
  a `text/*` type without a charset is ISO-8859-1 (RFC 2616's default), whatever the page's `<meta charset>`
  says; another type without a charset is UTF-8; undecodable bytes are replaced;
- `User-Agent: WMS-research/1.0`, `Accept: text/html,*/*;q=0.5`; a 4xx or 5xx is FetchFailed.
"""
from __future__ import annotations

from chalicelib.core.netguard import FetchedPage, fetch_public_page

from .base import MAX_BYTES, MAX_REDIRECTS, TIMEOUT


class LiveWebsite:
    def fetch(self, url: str) -> FetchedPage:
        return fetch_public_page(url, max_bytes=MAX_BYTES, timeout=TIMEOUT, max_redirects=MAX_REDIRECTS)
