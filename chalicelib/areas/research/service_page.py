"""Reading a fetched page: title, description, headings, visible text, and the storefront platform."""
from __future__ import annotations

import re
from html.parser import HTMLParser

TEXT_LIMIT = 6000  # characters of visible text handed to the AI provider
# markers of the storefront platforms a brief names, checked in the page's HTML (lower case)
PLATFORM_MARKERS = (
    ("Shopify", ("cdn.shopify.com", "window.shopify", "shopify.theme", "myshopify.com")),
    ("WooCommerce", ("woocommerce", "wc-ajax", "wp-content/plugins/woocommerce")),
    ("BigCommerce", ("cdn11.bigcommerce.com", "bigcommerce.com/s-", "data-bc-", "stencil-utils")),
    ("Magento", ("mage/cookies", "magento_", "/static/version", "data-mage-init", "mage-init")),
)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title: list[str] = []
        self.description: str | None = None
        self.headings: list[str] = []
        self.text: list[str] = []
        self._skip = 0
        self._in: str | None = None
        self._heading: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "noscript", "template"):
            self._skip += 1
        elif tag == "title":
            self._in = "title"
        elif tag in ("h1", "h2", "h3"):
            self._in, self._heading = "heading", []
        elif tag == "meta":
            values = {k.lower(): (v or "") for k, v in attrs}
            if values.get("name", "").lower() in ("description", "og:description") or \
                    values.get("property", "").lower() == "og:description":
                self.description = self.description or values.get("content", "").strip() or None

    def handle_endtag(self, tag):
        if tag in ("script", "style", "noscript", "template"):
            self._skip = max(0, self._skip - 1)
        elif tag == "title":
            self._in = None
        elif tag in ("h1", "h2", "h3") and self._in == "heading":
            heading = " ".join("".join(self._heading).split())
            if heading and len(self.headings) < 20:
                self.headings.append(heading[:200])
            self._in = None

    def handle_data(self, data):
        if self._skip:
            return
        if self._in == "title":
            self.title.append(data)
            return
        if self._in == "heading":
            self._heading.append(data)
        self.text.append(data)


def detect_platform(html: str) -> str | None:
    lowered = html.lower()
    for name, markers in PLATFORM_MARKERS:
        if any(marker in lowered for marker in markers):
            return name
    return None


def read_page(url: str, html: str) -> dict:
    """`{url, title, description, headings, text, platform}` of a page's HTML."""
    reader = _Reader()
    try:
        reader.feed(html)
        reader.close()
    except Exception:  # noqa: BLE001 - a malformed page still gives what was read before the fault
        pass
    text = re.sub(r"\s+", " ", " ".join(reader.text)).strip()
    title = " ".join("".join(reader.title).split()) or None
    return {"url": url, "title": title[:300] if title else None, "description": (reader.description or "")[:1000] or None,
            "headings": reader.headings, "text": text[:TEXT_LIMIT], "platform": detect_platform(html)}
