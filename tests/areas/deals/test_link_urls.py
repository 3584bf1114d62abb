"""Company websites, contact network URLs and deal websites are shown as links to every deals viewer: only
http(s) URLs are stored (docs/decisions/deals.md, session 22). A bare domain ("agency.com", "www.agency.com/x"),
as staff write a website, is stored with `https://` in front; any other scheme (javascript:, data:, vbscript:,
ftp:) is a 400 naming the field, on create and on update."""
import pytest

from tests.areas.deals.factories import make_company, make_contact, make_deal

RECORDS = [  # (path, answer key, base body, link field)
    ("/api/deals/companies", "company", {"name": "Acme"}, "website"),
    ("/api/deals/contacts", "contact", {"first_name": "Al"}, "network_url"),
    ("/api/deals/deals", "deal", {"title": "Big"}, "website"),
]
UNSAFE = ["javascript:alert(document.cookie)", "JavaScript:alert(1)", " javascript:alert(1)",
          "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", "vbscript:msgbox(1)",
          "ftp://files.example.com/x", "javascript://example.com/%0aalert(1)", "//evil.example/x",
          "java\tscript:alert(1)", "https:alert(1)", "https://", "http://exa mple.com"]


@pytest.mark.parametrize("path,key,body,field", RECORDS)
@pytest.mark.parametrize("url", UNSAFE)
def test_a_link_that_is_not_http_is_a_400_naming_the_field(api, exec_user, path, key, body, field, url):
    answer = api.post(path, as_=exec_user, json={**body, field: url})
    assert answer.status == 400, (answer.status, (answer.json or {}).get(key, {}).get(field))
    assert [d["field"] for d in answer.json["details"]] == [field], answer.json


@pytest.mark.parametrize("path,key,body,field", RECORDS)
def test_an_update_to_a_javascript_link_is_a_400_and_keeps_the_link(api, db, exec_user, path, key, body, field):
    made = api.post(path, as_=exec_user, json={**body, field: "https://acme.test/x"})
    assert made.status == 201, made
    item = f"{path}/{made.json[key]['id']}"
    answer = api.put(item, as_=exec_user, json={field: "javascript:alert(document.cookie)"})
    assert answer.status == 400 and [d["field"] for d in answer.json["details"]] == [field], answer
    assert api.get(item, as_=exec_user).json[key][field] == "https://acme.test/x"


@pytest.mark.parametrize("path,key,body,field", RECORDS)
@pytest.mark.parametrize("given,stored", [
    ("https://acme.test/x?y=1#z", "https://acme.test/x?y=1#z"), ("HTTP://Acme.test", "HTTP://Acme.test"),
    ("agency.com", "https://agency.com"), ("  www.agency.com.au/about ", "https://www.agency.com.au/about"),
    ("shop.acme.test:8443/path", "https://shop.acme.test:8443/path"),
    ("linkedin.com/in/ana-lee", "https://linkedin.com/in/ana-lee"), (None, None)])
def test_http_links_are_kept_and_bare_domains_get_https(api, exec_user, path, key, body, field, given, stored):
    made = api.post(path, as_=exec_user, json={**body, field: given})
    assert made.status == 201, made
    assert made.json[key][field] == stored
    updated = api.put(f"{path}/{made.json[key]['id']}", as_=exec_user, json={field: given})
    assert updated.status == 200 and updated.json[key][field] == stored


def test_a_prefixed_domain_past_the_column_is_a_400_not_a_500(api, exec_user):
    long = "a" * 60 + "." + ("b" * 60 + ".") * 6 + "com/" + "p" * 68  # under 500 before, over 500 with https://
    assert 492 < len(long) <= 500
    answer = api.post("/api/deals/companies", as_=exec_user, json={"name": "Acme", "website": long})
    assert answer.status == 400 and answer.json["details"][0]["field"] == "website", answer


def test_links_already_stored_by_enrichment_or_before_still_save_untouched(api, db, exec_user):
    """An update that does not send the link leaves it as it is (whatever was stored before)."""
    company = make_company(db, name="Old", website="agency.com")
    contact = make_contact(db, first_name="Ana", network_url="https://linkedin.com/in/ana-lee")
    deal = make_deal(db, title="Old", website="shop.acme.test")
    for path, key, record, field in (("/api/deals/companies", "company", company, "website"),
                                     ("/api/deals/contacts", "contact", contact, "network_url"),
                                     ("/api/deals/deals", "deal", deal, "website")):
        answer = api.put(f"{path}/{record.id}", as_=exec_user, json={"phone": "1"} if key != "deal" else {"value": 5})
        assert answer.status == 200, answer
        assert answer.json[key][field] == getattr(record, field)
