"""The website fetch's address rules (core.netguard.fetch_public_page), with no network: names resolve through
tests.conftest.RESOLVES and answers come from `responses`."""
import codecs

import pytest
import requests
import responses

from chalicelib.areas.research.service_page import read_page
from chalicelib.core.netguard import FetchFailed, UnsafeURL, check_public_web_url, fetch_public_page
from tests.areas.deals.factories import make_company
from tests.conftest import RESOLVES

PAGE = "<html><head><title>Shop</title></head><body><h1>Hi</h1></body></html>"


@pytest.mark.parametrize("host,addresses", [
    ("loopback.test.com", ["127.0.0.1"]), ("private.test.com", ["10.0.0.1"]), ("private2.test.com", ["192.168.1.4"]),
    ("metadata.test.com", ["169.254.169.254"]), ("v6.test.com", ["::1"]), ("v6ll.test.com", ["fe80::1"]),
    ("v6ula.test.com", ["fd12:3456::1"]), ("mapped.test.com", ["::ffff:169.254.169.254"]),
    ("mixed.test.com", ["93.184.216.34", "10.1.2.3"]),  # one refused address refuses the name
])
def test_every_resolved_address_is_checked(host, addresses):
    RESOLVES[host] = addresses
    with pytest.raises(UnsafeURL):
        check_public_web_url(f"https://{host}/")


def test_schemes_ports_and_literals():
    assert check_public_web_url("http://shop.example.com/") == ["93.184.216.34"]
    assert check_public_web_url("https://shop.example.com:443/x") == ["93.184.216.34"]
    for url in ("file:///etc/passwd", "gopher://shop.example.com/", "ftp://shop.example.com/",
                "http://shop.example.com:22/", "https://shop.example.com:8443/", "http://127.0.0.1/", "http://[::1]/",
                "http://169.254.169.254/", "http://2130706433/", "http://shop.internal/", "https://a b.com/"):
        with pytest.raises(UnsafeURL):
            check_public_web_url(url)


@responses.activate
def test_redirects_are_checked_again_and_capped():
    RESOLVES["evil.test.com"] = ["127.0.0.1"]
    responses.get("https://shop.example.com/", status=302, headers={"Location": "https://evil.test.com/admin"})
    with pytest.raises(UnsafeURL):
        fetch_public_page("https://shop.example.com/")
    assert [c.request.url for c in responses.calls] == ["https://shop.example.com/"]  # never connected to evil

    responses.get("https://a.example.com/", status=301, headers={"Location": "http://169.254.169.254/latest/"})
    with pytest.raises(UnsafeURL):
        fetch_public_page("https://a.example.com/")
    responses.get("https://b.example.com/", status=302, headers={"Location": "file:///etc/passwd"})
    with pytest.raises(UnsafeURL):
        fetch_public_page("https://b.example.com/")

    for i in range(4):
        responses.get(f"https://hop{i}.example.com/", status=302, headers={"Location": f"https://hop{i + 1}.example.com/"})
    responses.get("https://hop4.example.com/", body=PAGE, content_type="text/html")
    with pytest.raises(FetchFailed, match="more than 3 redirects"):
        fetch_public_page("https://hop0.example.com/")
    page = fetch_public_page("https://hop1.example.com/")  # three redirects are fine
    assert (page.url, page.redirects, page.status) == ("https://hop4.example.com/", 3, 200)
    relative = fetch_public_page  # a relative Location is resolved against the current URL
    responses.get("https://rel.example.com/a/b", status=302, headers={"Location": "../c"})
    responses.get("https://rel.example.com/c", body=PAGE)
    assert relative("https://rel.example.com/a/b").url == "https://rel.example.com/c"


@responses.activate
def test_byte_cap_errors_and_timeouts():
    responses.get("https://big.example.com/", body="x" * 5000)
    with pytest.raises(FetchFailed, match="larger than"):
        fetch_public_page("https://big.example.com/", max_bytes=4000)
    responses.get("https://declared.example.com/", body="x", headers={"Content-Length": "999999999"},
                  auto_calculate_content_length=False)
    with pytest.raises(FetchFailed, match="larger than"):
        fetch_public_page("https://declared.example.com/", max_bytes=4000)
    responses.get("https://gone.example.com/", status=404)
    with pytest.raises(FetchFailed, match="HTTP 404"):
        fetch_public_page("https://gone.example.com/")
    responses.get("https://slow.example.com/", body=requests.Timeout("slow"))
    with pytest.raises(FetchFailed, match="in time"):
        fetch_public_page("https://slow.example.com/")
    responses.get("https://ok.example.com/", body=PAGE, content_type="text/html; charset=utf-8")
    assert fetch_public_page("https://ok.example.com/").text == PAGE


@responses.activate
def test_the_text_is_decoded_as_the_page_says_not_as_iso_8859_1():
    """requests reads `text/html` without a charset as ISO-8859-1; a UTF-8 page (most of the web) then came out
    as mojibake. The header's charset wins, else a BOM, else `<meta charset>`, else UTF-8."""
    cafe = "<html><body>Café Zürich</body></html>"
    responses.get("https://plain.example.com/", body=cafe.encode("utf-8"), content_type="text/html")
    assert fetch_public_page("https://plain.example.com/").text == cafe
    latin = '<html><head><meta charset="iso-8859-1"></head><body>Café</body></html>'
    responses.get("https://latin.example.com/", body=latin.encode("latin-1"), content_type="text/html")
    assert fetch_public_page("https://latin.example.com/").text == latin
    responses.get("https://header.example.com/", body="Café".encode("cp1252"),
                  content_type="text/html; charset=windows-1252")
    assert fetch_public_page("https://header.example.com/").text == "Café"
    responses.get("https://bom.example.com/", body=codecs.BOM_UTF8 + "Café".encode("utf-8"), content_type="text/html")
    assert fetch_public_page("https://bom.example.com/").text == "Café"


@responses.activate
def test_a_redirect_without_a_location_and_a_dripping_site_fail(monkeypatch):
    responses.get("https://noloc.example.com/", status=302)
    with pytest.raises(FetchFailed, match="without a Location"):
        fetch_public_page("https://noloc.example.com/")
    import chalicelib.core.netguard as netguard

    ticks = iter(range(0, 1000, 15))  # each look at the clock: 15 s later (a site sending a chunk at a time)
    monkeypatch.setattr(netguard.time, "monotonic", lambda: next(ticks))
    responses.get("https://drip.example.com/", body=b"x" * 300_000)
    with pytest.raises(FetchFailed, match="in time"):
        fetch_public_page("https://drip.example.com/", total_seconds=20)


@responses.activate
def test_proxies_from_the_environment_are_not_used(monkeypatch):
    """With HTTPS_PROXY set, requests would connect to the proxy, and the connected-address check would look at
    the proxy's address, not the site's."""
    monkeypatch.setenv("HTTPS_PROXY", "http://10.0.0.9:3128")
    seen = []
    responses.add_callback(responses.GET, "https://shop.example.com/",
                           callback=lambda request: (seen.append(request.req_kwargs.get("proxies")), (200, {}, PAGE))[1])
    assert fetch_public_page("https://shop.example.com/").text == PAGE
    assert not seen[0]


@responses.activate
def test_live_research_records_a_refused_redirect_and_an_oversized_page(api, db, employee, set_env):
    set_env(WEBSITE_MODE="live")
    RESOLVES["intranet.test.com"] = ["10.0.0.1"]
    responses.get("https://redirecting-shop.com/", status=302, headers={"Location": "https://intranet.test.com/"})
    company = make_company(db, website="https://redirecting-shop.com/")
    brief = api.post("/api/research/run", as_=employee,
                     json={"entity_type": "company", "entity_id": company.id}).json["brief"]
    assert brief["status"] == "failed" and "refused address" in brief["error"]
    responses.get("https://huge-shop.com/", body="<html>" + "x" * 2_100_000)
    big = make_company(db, website="https://huge-shop.com/")
    brief = api.post("/api/research/run", as_=employee, json={"entity_type": "company", "entity_id": big.id}).json["brief"]
    assert brief["status"] == "failed" and "larger than" in brief["error"]
    responses.get("https://woo-shop.com/", body='<html><head><title>Woo</title><link href="/wp-content/plugins/'
                                                'woocommerce/x.css"></head><body><h2>Shoes</h2></body></html>')
    woo = make_company(db, website="https://woo-shop.com/")
    brief = api.post("/api/research/run", as_=employee, json={"entity_type": "company", "entity_id": woo.id}).json["brief"]
    assert (brief["status"], brief["platform"], brief["platform_detected"]) == ("completed", "WooCommerce", 1)
    assert brief["brief_content"]["offering"] == ["Shoes"]


@pytest.mark.parametrize("html,platform", [
    ('<script src="https://cdn.shopify.com/s/x.js"></script>', "Shopify"),
    ('<body class="woocommerce-page">', "WooCommerce"),
    ('<img src="https://cdn11.bigcommerce.com/s-abc/img.png">', "BigCommerce"),
    ('<script type="text/x-magento-init">{"*": {"mage/cookies": {}}}</script>', "Magento"),
    ("<html><body>A plain brochure site</body></html>", None),
])
def test_platform_detection(html, platform):
    assert read_page("https://x.com/", html)["platform"] == platform


def test_page_reading():
    page = read_page("https://x.com/", "<html><head><title> My  Shop </title><meta name='description' content='Good"
                                      " things'><style>p{}</style><script>var a=1</script></head><body><h1>Welcome"
                                      "</h1><p>Buy &amp; enjoy</p></body></html>")
    assert (page["title"], page["description"], page["headings"]) == ("My Shop", "Good things", ["Welcome"])
    assert page["text"] == "Welcome Buy & enjoy"


@responses.activate
def test_live_ai_research_brief_shape():
    import json

    from chalicelib.core.errors import BadGateway
    from chalicelib.providers.ai.live import LiveAI

    ai = LiveAI(base_url="https://ai.example.com/v1", api_key="sk-test", model="gpt-4o-mini", timeout=5)
    answer = {"company_summary": "A shop", "talking_points": ["a", "b"]}
    responses.post("https://ai.example.com/v1/chat/completions",
                   json={"choices": [{"message": {"role": "assistant", "content": json.dumps(answer)}}]})
    assert ai.research_brief({"url": "https://x.com", "title": "X"}) == answer
    sent = json.loads(responses.calls[0].request.body)
    assert sent["response_format"] == {"type": "json_object"} and sent["model"] == "gpt-4o-mini"
    assert responses.calls[0].request.headers["Authorization"] == "Bearer sk-test"
    responses.replace(responses.POST, "https://ai.example.com/v1/chat/completions",
                      json={"choices": [{"message": {"content": "not json"}}]})
    with pytest.raises(BadGateway):
        ai.research_brief({"url": "https://x.com"})


@responses.activate
def test_a_failed_brief_logs_the_site_without_its_query(api, db, employee, set_env, caplog):
    """The log line of a failed brief names the site's address without its query string or fragment, which may
    carry a shared link's token (session 18: the line wrote the whole address)."""
    set_env(WEBSITE_MODE="live")
    responses.get("https://tokened-shop.com/preview", status=500)
    company = make_company(db, website="https://tokened-shop.com/preview?access_token=s3cr3t-preview#x")
    with caplog.at_level("WARNING", logger="wms.research"):
        brief = api.post("/api/research/run", as_=employee,
                         json={"entity_type": "company", "entity_id": company.id}).json["brief"]
    assert brief["status"] == "failed"
    logged = [r.getMessage() for r in caplog.records if "research brief" in r.getMessage()]
    assert logged and "https://tokened-shop.com/preview failed" in logged[0]
    assert "s3cr3t-preview" not in caplog.text
