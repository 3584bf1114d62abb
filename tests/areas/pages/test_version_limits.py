"""Versions are bounded (session 22 audit): at most 500 per page (409 beyond), and a snapshot identical to the
page's newest version is not written again (the newest version is answered)."""
import os
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from chalicelib.areas.pages.models import Page, PageVersion
from chalicelib.core.ids import utcnow
from tests.factories import make_user

from .factories import make_page, make_version


@pytest.fixture
def user(db):
    return make_user(db, name="Vera Versioner")


def _count(db, page_id):
    return db.scalar(select(func.count()).where(PageVersion.page_id == page_id))


def _fill(db, page, user, n=500):
    start = utcnow() - timedelta(days=1)
    db.add_all([PageVersion(page_id=page.id, user_id=user.id, title=f"v{i}", content=f"c{i}",
                            created_at=start + timedelta(seconds=i)) for i in range(n)])
    db.flush()


def test_empty_snapshots_of_an_unchanged_page_write_one_version(api, db, user):
    body = "x" * 200_000
    page = api.post("/api/pages", as_=user, json={"title": "Big", "content": body,
                                                   "content_rich": f'[{{"text":"{body}"}}]'}).json["page"]
    path = f"/api/pages/{page['id']}/versions"
    answers = [api.post(path, as_=user) for _ in range(5)]
    assert [a.status for a in answers] == [201] * 5
    ids = {a.json["version"]["id"] for a in answers}
    assert len(ids) == 1 and _count(db, page["id"]) == 1  # the newest version is answered, not copied again
    assert answers[0].json["version"] == {"id": ids.pop(), "page_id": page["id"]}


def test_a_changed_page_gets_a_new_version(api, db, user):
    page = make_page(db, title="Plan", content="one", content_rich='[{"text":"one"}]')
    path = f"/api/pages/{page.id}/versions"
    first = api.post(path, as_=user).json["version"]["id"]
    for change in ({"content": "two"}, {"content_rich": '[{"text":"two"}]'}, {"title": "Plan 2"}):
        assert api.patch(f"/api/pages/{page.id}", as_=user, json=change).status == 200
        made = api.post(path, as_=user)
        assert made.status == 201 and made.json["version"]["id"] != first
        first = made.json["version"]["id"]
    assert _count(db, page.id) == 4


def test_an_older_identical_version_does_not_stop_a_snapshot(api, db, user):
    """Only the newest version is compared: back to an earlier state after an edit is a new version."""
    page = make_page(db, title="Plan", content="one", content_rich='[{"text":"one"}]')
    path = f"/api/pages/{page.id}/versions"
    api.post(path, as_=user)
    api.patch(f"/api/pages/{page.id}", as_=user, json={"content": "two"})
    api.post(path, as_=user)
    api.patch(f"/api/pages/{page.id}", as_=user, json={"content": "one"})
    assert api.post(path, as_=user).status == 201 and _count(db, page.id) == 3


def test_a_page_holds_at_most_500_versions(api, db, user):
    page = make_page(db, title="Full", content="now")
    _fill(db, page, user)
    response = api.post(f"/api/pages/{page.id}/versions", as_=user)
    assert response.status == 409 and "500" in response.json["error"], response
    assert _count(db, page.id) == 500


def test_at_the_cap_an_unchanged_page_still_answers_its_newest_version(api, db, user):
    page = make_page(db, title="Full", content="now")
    _fill(db, page, user, 499)
    newest = make_version(db, page, user, title="Full", content="now", content_rich=None)
    response = api.post(f"/api/pages/{page.id}/versions", as_=user)
    assert response.status == 201 and response.json["version"]["id"] == newest.id
    assert _count(db, page.id) == 500


def test_restore_at_the_cap_is_409_and_changes_nothing(api, db, user):
    """The restore's snapshot of the current state is a version like any other: past the cap it is refused rather
    than the current state lost."""
    page = make_page(db, title="Now", content="current")
    _fill(db, page, user)
    target = db.scalar(select(PageVersion.id).where(PageVersion.page_id == page.id, PageVersion.title == "v3"))
    response = api.post(f"/api/pages/{page.id}/versions/{target}/restore", as_=user)
    assert response.status == 409 and "500" in response.json["error"], response
    db.expire_all()
    assert db.get(Page, page.id).title == "Now" and _count(db, page.id) == 500


def test_restore_of_a_page_equal_to_its_newest_version_writes_no_snapshot(api, db, user):
    page = make_page(db, title="Old", content="old", content_rich='[{"text":"old"}]')
    path = f"/api/pages/{page.id}/versions"
    old = api.post(path, as_=user).json["version"]["id"]
    api.patch(f"/api/pages/{page.id}", as_=user, json={"title": "New", "content": "new"})
    new = api.post(path, as_=user).json["version"]["id"]
    # the current state is the newest version already: restoring keeps it recoverable without a copy
    assert api.post(f"{path}/{old}/restore", as_=user).status == 200
    assert _count(db, page.id) == 2
    assert [v["id"] for v in api.get(path, as_=user).json["versions"]] == [new, old]
    db.expire_all()
    assert db.get(Page, page.id).title == "Old"


def test_restore_at_the_cap_of_an_unchanged_page_is_allowed(api, db, user):
    page = make_page(db, title="Now", content="current")
    _fill(db, page, user, 499)
    make_version(db, page, user, title="Now", content="current", content_rich=None)
    target = db.scalar(select(PageVersion.id).where(PageVersion.page_id == page.id, PageVersion.title == "v3"))
    assert api.post(f"/api/pages/{page.id}/versions/{target}/restore", as_=user).status == 200
    db.expire_all()
    assert db.get(Page, page.id).title == "v3" and _count(db, page.id) == 500


@pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite", reason="row locks (FOR UPDATE): Postgres")
def test_a_snapshot_locks_the_page_before_it_counts_and_compares(api, db, user, count_queries):
    """Concurrent snapshots serialise on the page's row (as a restore does): they cannot pass the cap together or
    copy an unchanged page twice. The comparison is made by the database: no version body is read."""
    page = make_page(db, title="Plan", content="x" * 1000)
    with count_queries() as counter:
        assert api.post(f"/api/pages/{page.id}/versions", as_=user).status == 201
    statements = [s for s in counter.statements if "page_versions" in s or "FOR UPDATE" in s]
    lock = next(i for i, s in enumerate(statements) if "FOR UPDATE" in s and "FROM pages" in s)
    check = next(i for i, s in enumerate(statements) if s.lstrip().upper().startswith("SELECT") and "page_versions" in s)
    assert lock < check, statements
    assert "page_versions.content" not in statements[check].split("FROM")[0], statements[check]
