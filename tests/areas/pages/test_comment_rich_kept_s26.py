"""Session 26 (audit "clearing optional fields"): a comment's PATCH that leaves content_rich out cleared the
formatting and marked the comment edited, though the text was sent back unchanged."""
import json

RICH = json.dumps({"type": "doc", "content": [{"type": "paragraph", "content": [
    {"type": "text", "text": "hi", "marks": [{"type": "bold"}]}]}]})


def _comment(api, user):
    page = api.post("/api/pages", as_=user, json={"title": "Pg"}).json["page"]["id"]
    made = api.post(f"/api/pages/{page}/discussions", as_=user, json={"comment": "hi", "comment_rich": RICH})
    assert made.status == 201, made
    discussion = api.get(f"/api/pages/{page}/discussions", as_=user).json["discussions"][0]
    return page, discussion["id"], discussion["comments"][0]


def _read(api, user, page):
    return api.get(f"/api/pages/{page}/discussions", as_=user).json["discussions"][0]["comments"][0]


def test_the_same_text_without_content_rich_keeps_the_formatting_and_is_no_edit(api, exec_user):
    page, discussion, comment = _comment(api, exec_user)
    assert json.loads(comment["content_rich"]) == json.loads(RICH)
    path = f"/api/pages/{page}/discussions/{discussion}/comments/{comment['id']}"
    assert api.patch(path, as_=exec_user, json={"content": "hi"}).status == 200
    after = _read(api, exec_user, page)
    assert after["content_rich"] == comment["content_rich"]
    assert not after["is_edited"]
    # the same document differently spaced is no edit either
    spaced = json.dumps(json.loads(RICH), indent=2)
    assert api.patch(path, as_=exec_user, json={"content": "hi", "content_rich": spaced}).status == 200
    assert not _read(api, exec_user, page)["is_edited"]


def test_new_text_without_content_rich_clears_the_old_formatting(api, exec_user):
    page, discussion, comment = _comment(api, exec_user)
    path = f"/api/pages/{page}/discussions/{discussion}/comments/{comment['id']}"
    assert api.patch(path, as_=exec_user, json={"content": "hello"}).status == 200
    after = _read(api, exec_user, page)
    assert after["content"] == "hello" and after["content_rich"] is None and after["is_edited"]


def test_content_rich_null_clears_it(api, exec_user):
    page, discussion, comment = _comment(api, exec_user)
    path = f"/api/pages/{page}/discussions/{discussion}/comments/{comment['id']}"
    assert api.patch(path, as_=exec_user, json={"content": "hi", "content_rich": None}).status == 200
    after = _read(api, exec_user, page)
    assert after["content_rich"] is None and after["is_edited"]
