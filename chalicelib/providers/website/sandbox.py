"""Sandbox website fetch: the address checks of the live fetch, then a deterministic storefront page for any
public URL (a Shopify store named after the host), so research briefs work offline."""
from __future__ import annotations

import html
from urllib.parse import urlsplit

from chalicelib.core.netguard import FetchedPage, check_public_web_url


class SandboxWebsite:
    def fetch(self, url: str) -> FetchedPage:
        check_public_web_url(url)
        host = urlsplit(url).hostname or "example.com"
        name = html.escape(host.removeprefix("www.").split(".")[0].replace("-", " ").title())
        page = f"""<!doctype html><html><head><title>{name} | Official Store</title>
<meta name="description" content="{name} sells handmade homewares and gifts, shipped Australia-wide.">
<link rel="stylesheet" href="https://cdn.shopify.com/s/files/1/0000/0001/t/1/assets/theme.css">
<script>window.Shopify = {{"shop": "{host}", "theme": {{"name": "Dawn"}}}};</script></head>
<body><header><nav>Home Shop About Contact</nav></header>
<main><h1>{name}</h1><p>Handmade homewares and gifts. Free shipping on orders over $100.</p>
<section><h2>Best sellers</h2><ul><li>Linen throw</li><li>Ceramic mug set</li><li>Soy candle</li></ul></section>
<section><h2>Our story</h2><p>Started in 2015 in a Melbourne garage, {name} now ships to customers nationwide.</p>
</section></main><footer>Powered by Shopify</footer></body></html>"""
        return FetchedPage(url=url, status=200, content_type="text/html; charset=utf-8", text=page, redirects=0)
