"""Page discussions and comments: nesting, client ids, edits, resolve toggle, hard deletes."""
import uuid

import pytest
from sqlalchemy import func, select

from chalicelib.areas.pages.models import PageComment, PageDiscussion
from tests.factories import grant, make_user

from .factories import make_comment, make_discussion, make_page


@pytest.fixture
def user(db):
    return make_user(db, name="Dora Discusser", picture="https://img.test/dora.png")


@pytest.fixture
def manager(db):
    return make_user(db, name="Max Manager", access_level="head")


@pytest.mark.smoke
def test_create_discussion_with_first_comment_and_list_it(api, db, user):
    page = make_page(db)
    client_id = str(uuid.uuid4())
    response = api.post(f"/api/pages/{page.id}/discussions", as_=user, json={
        "id": client_id, "document_content": "the quoted passage", "document_content_rich": [{"text": "q"}],
        "comment": "Is this right?", "comment_rich": '[{"text":"Is this right?"}]'})
    assert response.status == 201
    assert response.json == {"discussion": {"id": client_id, "page_id": page.id}}
    listed = api.get(f"/api/pages/{page.id}/discussions", as_=user).json["discussions"]
    assert len(listed) == 1
    discussion = listed[0]
    assert discussion["document_content"] == "the quoted passage"
    assert discussion["document_content_rich"] == '[{"text":"q"}]'
    assert discussion["is_resolved"] is False
    assert discussion["user_name"] == "Dora Discusser" and discussion["user_avatar"] == "https://img.test/dora.png"
    [comment] = discussion["comments"]
    assert comment["content"] == "Is this right?" and comment["is_edited"] == 0
    assert comment["discussion_id"] == client_id and comment["user_id"] == user.id
    assert comment["user_name"] == "Dora Discusser"


def test_discussion_without_comment_has_none(api, db, user):
    page = make_page(db)
    created = api.post(f"/api/pages/{page.id}/discussions", as_=user, json={"document_content": "x"}).json
    assert uuid.UUID(created["discussion"]["id"])
    assert api.get(f"/api/pages/{page.id}/discussions", as_=user).json["discussions"][0]["comments"] == []


def test_first_comment_given_only_as_rich_content_is_created(api, db, user):
    """docs/decisions/pages.md: the first comment is created when `comment` is non-blank or `comment_rich` is
    given (a comment holding only an image or a mention has no plain text)."""
    page = make_page(db)
    response = api.post(f"/api/pages/{page.id}/discussions", as_=user, json={
        "document_content": "x", "comment_rich": [{"type": "p", "children": [{"type": "mention", "value": "Ada"}]}]})
    assert response.status == 201
    [comment] = api.get(f"/api/pages/{page.id}/discussions", as_=user).json["discussions"][0]["comments"]
    assert comment["content"] == "" and comment["content_rich"] == '[{"type":"p","children":[{"type":"mention","value":"Ada"}]}]'
    # neither given, or a blank comment without rich content: no comment
    for body in ({"document_content": "y"}, {"comment": "  "}, {"comment": "  ", "comment_rich": None}):
        created = api.post(f"/api/pages/{page.id}/discussions", as_=user, json=body).json["discussion"]
        listed = {d["id"]: d for d in api.get(f"/api/pages/{page.id}/discussions", as_=user).json["discussions"]}
        assert listed[created["id"]]["comments"] == []


def test_discussion_id_must_be_a_uuid_and_unique(api, db, user):
    page = make_page(db)
    assert api.post(f"/api/pages/{page.id}/discussions", as_=user, json={"id": "not-a-uuid"}).status == 400
    client_id = str(uuid.uuid4())
    assert api.post(f"/api/pages/{page.id}/discussions", as_=user, json={"id": client_id}).status == 201
    assert api.post(f"/api/pages/{page.id}/discussions", as_=user, json={"id": client_id}).status == 409


def test_discussions_of_missing_page_are_404(api, user):
    assert api.get("/api/pages/missing/discussions", as_=user).status == 404
    assert api.post("/api/pages/missing/discussions", as_=user, json={}).status == 404


def test_add_comment_requires_content(api, db, user):
    page = make_page(db)
    discussion = make_discussion(db, page, user)
    response = api.post(f"/api/pages/{page.id}/discussions/{discussion.id}/comments", as_=user,
                        json={"content": "Reply", "content_rich": None})
    assert response.status == 201 and set(response.json["comment"]) == {"id"}
    assert api.post(f"/api/pages/{page.id}/discussions/{discussion.id}/comments", as_=user, json={}).status == 400
    assert api.post(f"/api/pages/{page.id}/discussions/{discussion.id}/comments", as_=user,
                    json={"content": ""}).status == 400
    other_page = make_page(db)
    assert api.post(f"/api/pages/{other_page.id}/discussions/{discussion.id}/comments", as_=user,
                    json={"content": "x"}).status == 404
    comments = api.get(f"/api/pages/{page.id}/discussions", as_=user).json["discussions"][0]["comments"]
    assert [c["content"] for c in comments] == ["Reply"]


def test_edit_comment_sets_is_edited_for_author_only(api, db, user, manager):
    page = make_page(db)
    discussion = make_discussion(db, page, user)
    comment = make_comment(db, discussion, user, content="first")
    path = f"/api/pages/{page.id}/discussions/{discussion.id}/comments/{comment.id}"
    response = api.patch(path, as_=user, json={"content": "second", "content_rich": '[{"text":"second"}]'})
    assert response.status == 200 and response.json == {"ok": True}
    [out] = api.get(f"/api/pages/{page.id}/discussions", as_=user).json["discussions"][0]["comments"]
    assert out["content"] == "second" and out["is_edited"] == 1 and out["content_rich"] == '[{"text":"second"}]'
    stranger = make_user(db)
    assert api.patch(path, as_=stranger, json={"content": "hijack"}).status == 403
    assert api.patch(path, as_=manager, json={"content": "moderated"}).status == 200
    assert api.patch(path, as_=user, json={}).status == 400
    assert api.patch(f"/api/pages/{page.id}/discussions/{discussion.id}/comments/missing", as_=user,
                     json={"content": "x"}).status == 404


def test_resolve_toggles(api, db, user):
    page = make_page(db)
    discussion = make_discussion(db, page, user)
    path = f"/api/pages/{page.id}/discussions/{discussion.id}/resolve"
    assert api.post(path, as_=user).json == {"is_resolved": True}
    assert api.get(f"/api/pages/{page.id}/discussions", as_=user).json["discussions"][0]["is_resolved"] is True
    assert api.post(path, as_=user).json == {"is_resolved": False}
    assert api.post(f"/api/pages/{page.id}/discussions/missing/resolve", as_=user).status == 404


def test_delete_comment_is_hard_and_needs_manage(api, db, user, manager):
    page = make_page(db)
    discussion = make_discussion(db, page, user)
    comment = make_comment(db, discussion, user)
    kept = make_comment(db, discussion, user)
    path = f"/api/pages/{page.id}/discussions/{discussion.id}/comments/{comment.id}"
    assert api.delete(path, as_=user).status == 403
    assert api.delete(path, as_=manager).json == {"ok": True}
    ids = set(db.scalars(select(PageComment.id).where(PageComment.discussion_id == discussion.id)))
    assert ids == {kept.id}
    assert api.delete(path, as_=manager).status == 404


def test_delete_discussion_removes_its_comments(api, db, user, manager):
    page = make_page(db)
    discussion = make_discussion(db, page, user)
    make_comment(db, discussion, user)
    make_comment(db, discussion, user)
    other = make_discussion(db, page, user)
    make_comment(db, other, user)
    path = f"/api/pages/{page.id}/discussions/{discussion.id}"
    assert api.delete(path, as_=user).status == 403
    assert api.delete(path, as_=manager).json == {"ok": True}
    assert db.scalar(select(PageDiscussion.id).where(PageDiscussion.id == discussion.id)) is None
    assert db.scalar(select(func.count()).select_from(PageComment)
                     .where(PageComment.discussion_id == discussion.id)) == 0
    assert [d["id"] for d in api.get(f"/api/pages/{page.id}/discussions", as_=user).json["discussions"]] == [other.id]
    assert api.delete(path, as_=manager).status == 404


def test_discussions_need_pages_permission(api, db, user):
    page = make_page(db)
    outsider = make_user(db)
    grant(db, outsider, "pages", "none")
    viewer = make_user(db)
    grant(db, viewer, "pages", "view")
    assert api.get(f"/api/pages/{page.id}/discussions", as_=outsider).status == 403
    assert api.get(f"/api/pages/{page.id}/discussions").status == 401
    assert api.get(f"/api/pages/{page.id}/discussions", as_=viewer).status == 200
    assert api.post(f"/api/pages/{page.id}/discussions", as_=viewer, json={}).status == 403


def test_discussion_list_costs_constant_queries(api, db, user, count_queries):
    page = make_page(db)

    def add(n):
        for _ in range(n):
            discussion = make_discussion(db, page, make_user(db))
            make_comment(db, discussion, make_user(db))
            make_comment(db, discussion, user)

    def measure():
        with count_queries() as counter:
            assert api.get(f"/api/pages/{page.id}/discussions", as_=user).status == 200
        return counter.count

    add(2)
    few = measure()
    add(30)
    assert measure() == few


def test_a_page_holds_at_most_500_discussions(api, db, user):
    page = make_page(db)
    db.add_all([PageDiscussion(page_id=page.id, user_id=user.id, document_content=f"d{n}") for n in range(500)])
    db.flush()
    response = api.post(f"/api/pages/{page.id}/discussions", as_=user, json={"document_content": "one too many"})
    assert response.status == 409 and "500" in response.json["error"]
    assert len(api.get(f"/api/pages/{page.id}/discussions", as_=user).json["discussions"]) == 500


def test_a_discussion_holds_at_most_500_comments(api, db, user):
    page = make_page(db)
    discussion = make_discussion(db, page, user)
    db.add_all([PageComment(discussion_id=discussion.id, user_id=user.id, content=f"c{n}") for n in range(500)])
    db.flush()
    response = api.post(f"/api/pages/{page.id}/discussions/{discussion.id}/comments", as_=user,
                        json={"content": "one too many"})
    assert response.status == 409 and "500" in response.json["error"]
    assert db.scalar(select(func.count()).where(PageComment.discussion_id == discussion.id)) == 500


def test_discussion_and_comment_text_is_bounded(api, db, user):
    """A quoted passage and a comment hold at most 20,000 characters, their rich forms 100,000, on create and edit
    (limits audit: two comments of 3.5 MB made the page's discussions an answer no function could return). A refused
    write keeps nothing."""
    page = make_page(db)
    path = f"/api/pages/{page.id}/discussions"
    for field in ("document_content", "comment"):
        refused = api.post(path, as_=user, json={field: "x" * 20_001})
        assert refused.status == 400 and refused.json["details"][0]["field"] == field, refused
    refused = api.post(path, as_=user, json={"comment": "ok", "comment_rich": "x" * 100_001})
    assert refused.status == 400 and refused.json["details"][0]["field"] == "comment_rich", refused
    assert db.scalar(select(func.count()).select_from(PageDiscussion).where(PageDiscussion.page_id == page.id)) == 0
    made = api.post(path, as_=user, json={"document_content": "x" * 20_000, "comment": "y" * 20_000})
    assert made.status == 201, made
    discussion_id = made.json["discussion"]["id"]
    comments = f"{path}/{discussion_id}/comments"
    assert api.post(comments, as_=user, json={"content": "z" * 20_001}).status == 400
    comment = api.post(comments, as_=user, json={"content": "z" * 20_000})
    assert comment.status == 201, comment
    edited = api.patch(f"{comments}/{comment.json['comment']['id']}", as_=user, json={"content": "w" * 20_001})
    assert edited.status == 400, edited
