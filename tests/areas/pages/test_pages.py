"""Pages: create, read, list filters, update rules, archive on delete, favourites, permissions."""
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from chalicelib.areas.pages.models import Page
from chalicelib.core.ids import utcnow
from tests.factories import grant, make_user

from .factories import favourite, make_page


@pytest.fixture
def user(db):
    return make_user(db, name="Ada Author")


@pytest.fixture
def manager(db):
    return make_user(db, name="Mona Manager", access_level="head")


@pytest.mark.smoke
def test_create_page_defaults_to_untitled_at_next_position(api, user):
    first = api.post("/api/pages", json={}, as_=user)
    assert first.status == 201
    page = first.json["page"]
    assert page["title"] == "Untitled"
    assert page["created_by"] == user.id and page["created_by_name"] == "Ada Author"
    assert page["updated_by_name"] == "Ada Author"
    assert page["content"] == "" and page["content_rich"] is None
    assert page["is_archived"] == 0 and page["is_published"] == 0 and page["published_at"] is None
    assert page["children_count"] == 0 and page["is_favourited"] is False
    second = api.post("/api/pages", json={"title": "   "}, as_=user).json["page"]
    assert second["title"] == "Untitled"
    assert second["position"] == page["position"] + 1
    assert api.get(f"/api/pages/{page['id']}", as_=user).json["page"]["id"] == page["id"]


def test_create_child_positions_count_under_its_parent(api, db, user):
    parent = make_page(db, position=7)
    make_page(db, parent_id=parent.id, position=3)
    child = api.post("/api/pages", json={"title": "Child", "parent_id": parent.id, "content": "hello",
                                         "content_rich": [{"type": "p", "children": [{"text": "hello"}]}]},
                     as_=user).json["page"]
    assert child["parent_id"] == parent.id and child["position"] == 4
    assert child["content_rich"] == '[{"type":"p","children":[{"text":"hello"}]}]'
    listed = api.get(f"/api/pages/{parent.id}", as_=user).json["page"]
    assert listed["children_count"] == 2


def test_create_with_unknown_parent_is_400(api, user):
    response = api.post("/api/pages", json={"parent_id": "00000000-0000-0000-0000-000000000000"}, as_=user)
    assert response.status == 400


def test_create_with_half_an_entity_link_is_400(api, user):
    assert api.post("/api/pages", json={"entity_type": "project"}, as_=user).status == 400


def test_missing_page_is_404(api, user):
    assert api.get("/api/pages/00000000-0000-0000-0000-000000000000", as_=user).status == 404
    assert api.patch("/api/pages/nope", json={"title": "x"}, as_=user).status == 404


def test_default_list_is_standalone_unarchived_in_tree_order(api, db, user):
    root_b = make_page(db, title="B root", position=1)
    root_a = make_page(db, title="A root", position=1)
    root_c = make_page(db, title="C root", position=0)
    child = make_page(db, title="child", parent_id=root_b.id, position=0)
    make_page(db, title="archived", is_archived=True)
    make_page(db, title="linked", entity_type="project", entity_id="p-1")
    response = api.get("/api/pages", as_=user)
    assert response.status == 200
    titles = [p["title"] for p in response.json["pages"]]
    assert titles == ["C root", "A root", "B root", "child"]
    by_title = {p["title"]: p for p in response.json["pages"]}
    assert by_title["B root"]["children_count"] == 1
    assert "content" not in by_title["B root"] and "content_rich" not in by_title["B root"]
    assert "content_preview" not in by_title["B root"]
    assert by_title["child"]["parent_id"] == root_b.id
    assert {root_a.id, root_c.id, child.id} <= {p["id"] for p in response.json["pages"]}


def test_list_filters_by_entity_and_archived(api, db, user):
    linked = make_page(db, title="linked", entity_type="project", entity_id="p-1")
    make_page(db, title="other", entity_type="project", entity_id="p-2")
    archived = make_page(db, title="gone", is_archived=True)
    response = api.get("/api/pages?entity_type=project&entity_id=p-1", as_=user)
    assert [p["id"] for p in response.json["pages"]] == [linked.id]
    response = api.get("/api/pages?archived=true", as_=user)
    assert [p["id"] for p in response.json["pages"]] == [archived.id]
    assert response.json["pages"][0]["is_archived"] == 1
    assert api.get("/api/pages?entity_type=project", as_=user).status == 400


def test_search_matches_title_and_content_with_preview_and_limit(api, db, user):
    long_text = "Needle " + "x" * 400
    by_content = make_page(db, title="Plain", content=long_text)
    by_title = make_page(db, title="The needle page", content="nothing")
    make_page(db, title="unrelated", content="hay")
    make_page(db, title="archived needle", is_archived=True)
    response = api.get("/api/pages?search=NEEDLE", as_=user)
    pages = response.json["pages"]
    assert [p["id"] for p in pages] == [by_title.id, by_content.id]  # title matches first
    assert pages[1]["content_preview"] == long_text[:200]
    assert pages[0]["content_preview"] == "nothing"
    for n in range(55):
        make_page(db, title=f"needle {n}")
    assert len(api.get("/api/pages?search=needle", as_=user).json["pages"]) == 50


def test_search_treats_wildcards_literally(api, db, user):
    make_page(db, title="100% done")
    make_page(db, title="100 done")
    titles = [p["title"] for p in api.get("/api/pages?search=100%25", as_=user).json["pages"]]
    assert titles == ["100% done"]


def test_favourites_toggle_per_user(api, db, user):
    other = make_user(db)
    page = make_page(db)
    make_page(db, title="not favourite")
    response = api.post(f"/api/pages/{page.id}/favourite", as_=user)
    assert response.status == 200 and response.json == {"is_favourited": True}
    mine = api.get("/api/pages?favourites=true", as_=user).json["pages"]
    assert [p["id"] for p in mine] == [page.id] and mine[0]["is_favourited"] is True
    assert api.get("/api/pages?favourites=true", as_=other).json["pages"] == []
    assert api.get(f"/api/pages/{page.id}", as_=other).json["page"]["is_favourited"] is False
    assert api.post(f"/api/pages/{page.id}/favourite", as_=user).json == {"is_favourited": False}
    assert api.get("/api/pages?favourites=true", as_=user).json["pages"] == []
    assert api.post("/api/pages/missing/favourite", as_=user).status == 404


def test_update_fields_flags_and_untitled(api, db, user):
    page = make_page(db, created_by=user.id)
    other = make_user(db, name="Eve Editor")
    response = api.patch(f"/api/pages/{page.id}", as_=other, json={
        "title": "", "icon": "📄", "cover_image": "/api/pages/uploads/pages/general/x.png",
        "full_width": True, "small_text": 1, "toc": True, "text_style": "serif", "content": "plain",
        "created_by": other.id, "unknown": "ignored"})
    assert response.status == 200
    out = response.json["page"]
    assert out["title"] == "Untitled" and out["icon"] == "📄" and out["text_style"] == "serif"
    assert (out["full_width"], out["small_text"], out["toc"], out["lock_page"]) == (1, 1, 1, 0)
    assert out["content"] == "plain"
    assert out["created_by"] == user.id  # read-only fields are ignored
    assert out["updated_by_name"] == "Eve Editor"
    assert api.patch(f"/api/pages/{page.id}", as_=user, json={"full_width": None}).status == 400
    assert api.patch(f"/api/pages/{page.id}", as_=user, json={"position": "first"}).status == 400


def test_content_rich_clears_the_collaborative_snapshot(api, db, user):
    page = make_page(db, collab_snapshot=b"\x01\x02yjs-state")
    api.patch(f"/api/pages/{page.id}", as_=user, json={"title": "kept"})
    db.expire_all()
    assert db.get(Page, page.id).collab_snapshot == b"\x01\x02yjs-state"
    response = api.patch(f"/api/pages/{page.id}", as_=user, json={"content_rich": '[{"text":"new"}]'})
    assert response.json["page"]["content_rich"] == '[{"text":"new"}]'
    db.expire_all()
    assert db.get(Page, page.id).collab_snapshot is None


def test_publish_sets_and_unpublish_clears_published_at(api, db, user):
    page = make_page(db)
    published = api.patch(f"/api/pages/{page.id}", as_=user, json={"is_published": True}).json["page"]
    assert published["is_published"] == 1 and published["published_at"].endswith("Z")
    again = api.patch(f"/api/pages/{page.id}", as_=user, json={"is_published": 1}).json["page"]
    assert again["published_at"] == published["published_at"]
    unpublished = api.patch(f"/api/pages/{page.id}", as_=user, json={"is_published": False}).json["page"]
    assert unpublished["is_published"] == 0 and unpublished["published_at"] is None


def test_archive_and_restore_through_update(api, db, user):
    page = make_page(db)
    assert api.patch(f"/api/pages/{page.id}", as_=user, json={"is_archived": True}).json["page"]["is_archived"] == 1
    assert page.id not in [p["id"] for p in api.get("/api/pages", as_=user).json["pages"]]
    assert api.patch(f"/api/pages/{page.id}", as_=user, json={"is_archived": 0}).json["page"]["is_archived"] == 0
    assert page.id in [p["id"] for p in api.get("/api/pages", as_=user).json["pages"]]


def test_locked_page_refuses_content_changes_until_unlocked(api, db, user):
    page = make_page(db, title="Fixed")
    assert api.patch(f"/api/pages/{page.id}", as_=user, json={"lock_page": True}).json["page"]["lock_page"] == 1
    refused = api.patch(f"/api/pages/{page.id}", as_=user, json={"title": "Changed"})
    assert refused.status == 409 and "locked" in refused.json["error"]
    assert api.patch(f"/api/pages/{page.id}", as_=user, json={"is_published": True}).status == 200
    unlocked = api.patch(f"/api/pages/{page.id}", as_=user, json={"lock_page": False, "title": "Changed"})
    assert unlocked.status == 200 and unlocked.json["page"]["title"] == "Changed"
    assert unlocked.json["page"]["lock_page"] == 0


def test_move_under_parent_and_refuse_cycles(api, db, user):
    parent = make_page(db)
    child = make_page(db, parent_id=parent.id)
    grandchild = make_page(db, parent_id=child.id)
    other = make_page(db)
    moved = api.patch(f"/api/pages/{other.id}", as_=user, json={"parent_id": parent.id}).json["page"]
    assert moved["parent_id"] == parent.id and moved["position"] == child.position + 1
    assert api.patch(f"/api/pages/{parent.id}", as_=user, json={"parent_id": grandchild.id}).status == 400
    assert api.patch(f"/api/pages/{parent.id}", as_=user, json={"parent_id": parent.id}).status == 400
    assert api.patch(f"/api/pages/{other.id}", as_=user, json={"parent_id": "missing"}).status == 400
    root = api.patch(f"/api/pages/{other.id}", as_=user, json={"parent_id": None, "position": 2.5}).json["page"]
    assert root["parent_id"] is None and root["position"] == 2.5


def test_delete_archives_and_moves_children_to_root(api, db, manager):
    make_page(db, position=10)
    parent = make_page(db, position=1)
    first = make_page(db, parent_id=parent.id, position=0, title="first")
    second = make_page(db, parent_id=parent.id, position=1, title="second")
    response = api.delete(f"/api/pages/{parent.id}", as_=manager)
    assert response.status == 200 and response.json == {"ok": True}
    db.expire_all()
    assert db.get(Page, parent.id).is_archived is True
    assert db.get(Page, first.id).parent_id is None and db.get(Page, second.id).parent_id is None
    assert (db.get(Page, first.id).position, db.get(Page, second.id).position) == (11, 12)
    listed = {p["id"] for p in api.get("/api/pages", as_=manager).json["pages"]}
    assert {first.id, second.id} <= listed and parent.id not in listed
    assert api.delete("/api/pages/missing", as_=manager).status == 404


def test_delete_needs_pages_manage(api, db, user):
    page = make_page(db)
    assert api.delete(f"/api/pages/{page.id}", as_=user).status == 403


def test_no_pages_permission_is_403_and_no_token_401(api, db):
    outsider = make_user(db)
    grant(db, outsider, "pages", "none")
    viewer = make_user(db)
    grant(db, viewer, "pages", "view")
    page = make_page(db)
    assert api.get("/api/pages", as_=outsider).status == 403
    assert api.get(f"/api/pages/{page.id}", as_=outsider).status == 403
    assert api.get("/api/pages").status == 401
    assert api.post("/api/pages", json={}).status == 401
    assert api.get("/api/pages", as_=viewer).status == 200
    assert api.post("/api/pages", json={}, as_=viewer).status == 403
    assert api.patch(f"/api/pages/{page.id}", json={"title": "x"}, as_=viewer).status == 403
    assert api.post(f"/api/pages/{page.id}/favourite", as_=viewer).status == 200


def test_list_costs_the_same_queries_for_5_and_60_pages(api, db, user, count_queries):
    def measure():
        with count_queries() as counter:
            assert api.get("/api/pages", as_=user).status == 200
        return counter.count

    parent = make_page(db)
    for _ in range(4):
        favourite(db, make_page(db, parent_id=parent.id, created_by=user.id), user)
    few = measure()
    for _ in range(55):
        favourite(db, make_page(db, parent_id=parent.id, created_by=user.id, updated_by=user.id), user)
    assert measure() == few
    # the caller; the page of records; the children counts and the caller's favourites (one statement on
    # Postgres, one each on SQLite)
    assert few == (3 if db.get_bind().dialect.name == "postgresql" else 4)


def test_updated_at_moves_on_update(api, db, user):
    page = make_page(db, updated_at=utcnow() - timedelta(days=2))
    before = api.get(f"/api/pages/{page.id}", as_=user).json["page"]["updated_at"]
    after = api.patch(f"/api/pages/{page.id}", as_=user, json={"toc": True}).json["page"]["updated_at"]
    assert after > before
    assert db.scalar(select(Page.toc).where(Page.id == page.id)) is True


def test_list_pages_with_limit_and_offset(api, db, user):
    pages = [make_page(db, title=f"paged {n}", position=float(n)) for n in range(5)]
    body = api.get("/api/pages", as_=user).json
    assert [p["id"] for p in body["pages"]] == [p.id for p in pages]
    assert (body["total"], body["limit"], body["offset"]) == (5, 500, 0)
    body = api.get("/api/pages?limit=2&offset=2", as_=user).json
    assert [p["id"] for p in body["pages"]] == [p.id for p in pages[2:4]]
    assert (body["total"], body["limit"], body["offset"]) == (5, 2, 2)
    for bad in ("limit=0", "limit=501", "offset=-1"):
        response = api.get(f"/api/pages?{bad}", as_=user)
        assert response.status == 400 and response.json["details"][0]["field"] == bad.split("=")[0]


def test_search_answers_at_most_50_per_request_and_the_total(api, db, user):
    for n in range(57):
        make_page(db, title=f"needle {n:02d}")
    body = api.get("/api/pages?search=needle", as_=user).json
    assert len(body["pages"]) == 50 and (body["total"], body["limit"], body["offset"]) == (57, 50, 0)
    rest = api.get("/api/pages?search=needle&offset=50", as_=user).json
    assert len(rest["pages"]) == 7 and rest["total"] == 57
    assert not {p["id"] for p in body["pages"]} & {p["id"] for p in rest["pages"]}
    assert api.get("/api/pages?search=needle&limit=5", as_=user).json["limit"] == 5


@pytest.mark.parametrize("query", ["favourites=yes", "favourites=on", "archived=banana", "archived=yes"])
def test_list_flags_are_true_false_1_or_0(api, db, user, query):
    response = api.get(f"/api/pages?{query}", as_=user)
    assert response.status == 400 and response.json["details"][0]["field"] == query.split("=")[0]


@pytest.mark.parametrize("value", ["yes", "on", "true"])
def test_update_flags_refuse_strings(api, db, user, value):
    page = make_page(db)
    response = api.patch(f"/api/pages/{page.id}", as_=user, json={"full_width": value})
    assert response.status == 400 and response.json["details"][0]["field"] == "full_width"


def _children_read(statements):
    """The statements that read a page's children (WHERE pages.parent_id = ...)."""
    return [s for s in statements if s.lstrip().upper().startswith("SELECT") and "WHERE pages.parent_id =" in s]


def test_delete_moves_children_without_reading_their_bodies(api, db, manager, count_queries):
    make_page(db, position=40)
    parent = make_page(db, position=1)
    children = [make_page(db, parent_id=parent.id, position=float(3 - n), title=f"child {n}", content="x" * 10_000,
                          content_rich="y" * 10_000, collab_snapshot=b"z" * 10_000) for n in range(3)]
    with count_queries() as counter:
        assert api.delete(f"/api/pages/{parent.id}", as_=manager).status == 200
    reads = _children_read(counter.statements)
    assert reads, counter.statements
    # the children's ids only: their bodies are unbounded (each child was loaded whole)
    assert not [s for s in reads if "pages.content" in s or "pages.collab_snapshot" in s], reads
    db.expire_all()
    moved = [db.get(Page, child.id) for child in reversed(children)]  # their order: by position
    assert [(p.parent_id, p.position) for p in moved] == [(None, 41), (None, 42), (None, 43)]


def test_delete_costs_the_same_statements_for_5_and_50_children(api, db, manager, driver_statements):
    """pg8000 sends an executemany row by row (docs/decisions.md, "Bulk writes"): the children move in one UPDATE."""
    counts, expected = [], {}
    for size in (5, 50):
        parent = make_page(db, title=f"Parent {size}")
        children = [make_page(db, title=f"Child {n:02}", parent_id=parent.id, position=0.0) for n in range(size)]
        top = db.scalar(select(func.max(Page.position)).where(Page.parent_id.is_(None)))
        statements, response = driver_statements(lambda: api.delete(f"/api/pages/{parent.id}", as_=manager))
        assert response.status == 200, response
        counts.append(len(statements))
        expected[parent.id] = [(child.id, top + n) for n, child in enumerate(children, start=1)]  # equal positions: by title
    assert counts[0] == counts[1], counts
    db.expire_all()
    for parent_id, moved in expected.items():
        assert db.get(Page, parent_id).is_archived is True
        assert [(db.get(Page, child_id).parent_id, db.get(Page, child_id).position) for child_id, _ in moved] == [
            (None, position) for _, position in moved]
