"""An announcement's attachment_url is shown as a link to every reader: an http(s) URL or a path on this site
(docs/decisions/announcements.md, session 22). A path that a browser reads as another site's address (`//host`,
`/\\host`, or one with a tab or line break, which browsers drop before reading it) is a 400 naming the field."""
import pytest

from tests.areas.announcements.factories import make_announcement
from tests.factories import make_user

BODY = {"title": "Plan", "content": "See the plan", "category": "client"}
OTHER_SITE = ["//evil.example/plan.pdf", "/\\evil.example/plan.pdf", "  //evil.example/plan.pdf",
              "/\t/evil.example/plan.pdf", "/\n/evil.example/plan.pdf", "\\\\evil.example/plan.pdf",
              "https://files.example.com/pl\nan.pdf"]


@pytest.fixture
def head(db):
    return make_user(db, access_level="head")


@pytest.mark.parametrize("url", OTHER_SITE)
def test_an_attachment_url_naming_another_site_as_a_path_is_a_400(api, db, head, url):
    created = api.post("/api/announcements", as_=head, json={**BODY, "attachment_url": url})
    assert created.status == 400, (created.status, (created.json or {}).get("announcement", {}).get("attachment_url"))
    assert [d["field"] for d in created.json["details"]] == ["attachment_url"], created.json
    existing = make_announcement(db, author_id=head.id, attachment_url="/api/files/plan.pdf")
    updated = api.put(f"/api/announcements/{existing.id}", as_=head, json={"attachment_url": url})
    assert updated.status == 400 and [d["field"] for d in updated.json["details"]] == ["attachment_url"], updated


@pytest.mark.parametrize("url,stored", [
    ("/api/files/uploads/plan.pdf", "/api/files/uploads/plan.pdf"), ("/", "/"),
    (" /files/a%2F%2Fb.pdf ", "/files/a%2F%2Fb.pdf"), ("https://files.example.com/plan.pdf", None),
    ("HTTP://files.example.com/plan.pdf", None), ("", None), (None, None)])
def test_http_urls_and_paths_on_this_site_are_kept(api, head, url, stored):
    created = api.post("/api/announcements", as_=head, json={**BODY, "attachment_url": url})
    assert created.status == 201, created
    expected = stored if stored is not None or not (url or "").strip() else url
    assert created.json["announcement"]["attachment_url"] == expected
