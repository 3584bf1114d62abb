"""Page versions: snapshots, the 50 newest listed, detail, and restore after saving the current state."""
from datetime import timedelta

import pytest

from chalicelib.areas.pages.models import Page
from chalicelib.core.ids import utcnow
from tests.factories import grant, make_user

from .factories import make_page, make_version


@pytest.fixture
def user(db):
    return make_user(db, name="Vera Versioner")


@pytest.mark.smoke
def test_snapshot_then_detail(api, db, user):
    page = make_page(db, title="Plan", content_rich='[{"text":"v1"}]')
    response = api.post(f"/api/pages/{page.id}/versions", as_=user)
    assert response.status == 201
    version = response.json["version"]
    assert set(version) == {"id", "page_id"} and version["page_id"] == page.id
    detail = api.get(f"/api/pages/{page.id}/versions/{version['id']}", as_=user).json["version"]
    assert detail["title"] == "Plan" and detail["content_rich"] == '[{"text":"v1"}]'
    assert detail["user_id"] == user.id and detail["user_name"] == "Vera Versioner"
    listed = api.get(f"/api/pages/{page.id}/versions", as_=user).json["versions"]
    assert [v["id"] for v in listed] == [version["id"]] and "content_rich" not in listed[0]


def test_snapshot_of_missing_page_is_404(api, user):
    assert api.post("/api/pages/missing/versions", as_=user).status == 404
    assert api.get("/api/pages/missing/versions", as_=user).status == 404


def test_missing_version_is_404(api, db, user):
    page = make_page(db)
    other = make_page(db)
    foreign = make_version(db, other, user)
    assert api.get(f"/api/pages/{page.id}/versions/missing", as_=user).status == 404
    assert api.get(f"/api/pages/{page.id}/versions/{foreign.id}", as_=user).status == 404
    assert api.post(f"/api/pages/{page.id}/versions/missing/restore", as_=user).status == 404
    assert api.post(f"/api/pages/{page.id}/versions/{foreign.id}/restore", as_=user).status == 404


def test_list_is_newest_first_and_at_most_50(api, db, user, count_queries):
    page = make_page(db)
    start = utcnow() - timedelta(days=1)
    versions = [make_version(db, page, user, title=f"v{n}", created_at=start + timedelta(minutes=n)) for n in range(55)]
    with count_queries() as counter:
        body = api.get(f"/api/pages/{page.id}/versions", as_=user).json
    listed = body["versions"]
    assert len(listed) == 50
    assert [v["id"] for v in listed] == [v.id for v in reversed(versions)][:50]
    assert (body["total"], body["limit"], body["offset"]) == (55, 50, 0)  # no silent cut: the total says 55
    many = counter.count
    small = make_page(db)
    make_version(db, small, user)
    with count_queries() as counter:
        api.get(f"/api/pages/{small.id}/versions", as_=user)
    assert counter.count == many - 1  # the count statement runs only when the page is cut


def test_versions_page_with_limit_and_offset(api, db, user):
    page = make_page(db)
    start = utcnow() - timedelta(days=1)
    versions = [make_version(db, page, user, title=f"v{n}", created_at=start + timedelta(minutes=n)) for n in range(55)]
    newest_first = [v.id for v in reversed(versions)]
    body = api.get(f"/api/pages/{page.id}/versions?offset=50", as_=user).json
    assert [v["id"] for v in body["versions"]] == newest_first[50:]
    assert (body["total"], body["limit"], body["offset"]) == (55, 50, 50)
    body = api.get(f"/api/pages/{page.id}/versions?limit=2&offset=1", as_=user).json
    assert [v["id"] for v in body["versions"]] == newest_first[1:3] and body["total"] == 55
    for bad in ("limit=51", "limit=0", "offset=-1"):
        response = api.get(f"/api/pages/{page.id}/versions?{bad}", as_=user)
        assert response.status == 400 and response.json["details"][0]["field"] == bad.split("=")[0]


def test_restore_saves_current_state_first(api, db, user):
    page = make_page(db, title="Old", content="old text", content_rich='[{"text":"old"}]',
                     collab_snapshot=b"state")
    old = api.post(f"/api/pages/{page.id}/versions", as_=user).json["version"]["id"]
    api.patch(f"/api/pages/{page.id}", as_=user, json={"title": "New", "content": "new text",
                                                       "content_rich": '[{"text":"new"}]'})
    response = api.post(f"/api/pages/{page.id}/versions/{old}/restore", as_=user)
    assert response.status == 200 and response.json == {"ok": True}
    restored = api.get(f"/api/pages/{page.id}", as_=user).json["page"]
    assert restored["title"] == "Old" and restored["content_rich"] == '[{"text":"old"}]'
    assert restored["content"] == "old text"
    listed = api.get(f"/api/pages/{page.id}/versions", as_=user).json["versions"]
    assert [v["title"] for v in listed] == ["New", "Old"]  # the state before the restore is the newest
    saved = api.get(f"/api/pages/{page.id}/versions/{listed[0]['id']}", as_=user).json["version"]
    assert saved["content_rich"] == '[{"text":"new"}]'
    db.expire_all()
    assert db.get(Page, page.id).collab_snapshot is None


def test_restore_of_locked_page_is_409(api, db, user):
    page = make_page(db, lock_page=True)
    version = make_version(db, page, user, title="Other")
    assert api.post(f"/api/pages/{page.id}/versions/{version.id}/restore", as_=user).status == 409


def test_versions_need_pages_permission(api, db, user):
    page = make_page(db)
    viewer = make_user(db)
    grant(db, viewer, "pages", "view")
    outsider = make_user(db)
    grant(db, outsider, "pages", "none")
    assert api.get(f"/api/pages/{page.id}/versions", as_=outsider).status == 403
    assert api.get(f"/api/pages/{page.id}/versions").status == 401
    assert api.get(f"/api/pages/{page.id}/versions", as_=viewer).status == 200
    assert api.post(f"/api/pages/{page.id}/versions", as_=viewer).status == 403


def test_list_reads_no_version_bodies(api, db, user, count_queries):
    """The list answers no body (decisions/pages.md, Versions), and bodies are unbounded: its SQL selects none."""
    page = make_page(db, content="x" * 50_000, content_rich="y" * 50_000)
    for _ in range(5):
        make_version(db, page, user, content="x" * 50_000, content_rich="y" * 50_000)
    with count_queries() as counter:
        response = api.get(f"/api/pages/{page.id}/versions", as_=user)
    assert response.status == 200 and len(response.json["versions"]) == 5
    assert all(v["user_name"] == "Vera Versioner" and "content_rich" not in v for v in response.json["versions"])
    reads = [s for s in counter.statements if s.lstrip().upper().startswith("SELECT") and "FROM page_versions" in s]
    assert reads, counter.statements
    assert not [s for s in reads if "page_versions.content" in s], reads
