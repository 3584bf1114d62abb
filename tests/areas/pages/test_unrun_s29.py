"""Session 29, "code no test runs": the pages area's lines the coverage run left unexecuted, run through the API."""
import json

import pytest

from tests.areas.proposals.factories import create
from tests.factories import make_user

from .factories import make_page


@pytest.fixture
def user(db):
    return make_user(db, name="Una Run")


def ask(api, user, *, texts, children=None, selection=None):
    return api.post("/api/pages/ai/command", as_=user, json={
        "ctx": {"children": children or [], "selection": selection},
        "messages": [{"role": "user", "parts": [{"type": "text", "text": t} for t in texts]}]})


def test_a_locked_page_sent_its_own_settings_back_is_no_change_and_other_settings_are_409(api, db, user):
    """pages.md, Lock: a locked page refuses a change of its icon, cover, style and layout flags; a field sent back as
    stored is no change (queries.same_stored's last branch, the fields besides the text)."""
    page = make_page(db, icon="rocket", text_style="serif", full_width=True, lock_page=True)
    same = api.patch(f"/api/pages/{page.id}", as_=user,
                     json={"icon": "rocket", "text_style": "serif", "full_width": 1, "is_published": 1})
    assert same.status == 200, same.json
    assert same.json["page"]["is_published"] == 1
    changed = api.patch(f"/api/pages/{page.id}", as_=user, json={"icon": "star", "full_width": 0})
    assert changed.status == 409 and "icon" in changed.json["error"] and "full_width" in changed.json["error"]
    assert api.get(f"/api/pages/{page.id}", as_=user).json["page"]["icon"] == "rocket"


def test_a_locked_page_with_rich_text_stored_before_the_json_check_refuses_a_new_document(api, db, user):
    """Rich content stored before session 22's check may not be JSON (`_document` keeps such text as it is): a
    document sent over it is a change, refused while the page is locked; the stored text stays."""
    page = make_page(db, content_rich="<p>old html</p>", lock_page=True)
    answer = api.patch(f"/api/pages/{page.id}", as_=user,
                       json={"content_rich": [{"type": "p", "children": [{"text": "old html"}]}], "is_published": 1})
    assert answer.status == 409 and "content_rich" in answer.json["error"]
    assert api.get(f"/api/pages/{page.id}", as_=user).json["page"]["content_rich"] == "<p>old html</p>"


@pytest.mark.parametrize("value", [5, True, 1.5])
def test_rich_content_that_is_neither_text_a_document_nor_null_is_400(api, db, user, value):
    page = make_page(db)
    answer = api.patch(f"/api/pages/{page.id}", as_=user, json={"content_rich": value})
    assert answer.status == 400, answer.json
    assert answer.json["details"][0]["field"] == "content_rich"


def test_a_position_past_the_largest_number_is_400(api, db, user):
    """1e999 reads as infinity: a position must be a finite number."""
    page = make_page(db)
    answer = api.patch(f"/api/pages/{page.id}", as_=user, body='{"position": 1e999}',
                       headers={"Content-Type": "application/json"})
    assert answer.status == 400, answer.json
    assert answer.json["details"][0]["field"] == "position"


def test_deleting_a_page_without_children_archives_it_alone(api, db, user):
    root = make_page(db)
    leaf = make_page(db, parent_id=root.id)
    manager = make_user(db, access_level="executive")
    assert api.delete(f"/api/pages/{leaf.id}", as_=manager).status == 200
    assert api.get(f"/api/pages/{leaf.id}", as_=user).json["page"]["is_archived"] == 1
    assert api.get(f"/api/pages/{leaf.id}", as_=user).json["page"]["parent_id"] == root.id


def test_a_listed_approver_may_not_delete_the_proposals_page(api, db):
    owner = make_user(db, access_level="employee", name="Owner")
    approver = make_user(db, access_level="employee", name="Approver")
    pid = create(api, owner, title="Pitch", approver_ids=[approver.id])
    page_id = api.get(f"/api/proposals/{pid}", as_=owner).json["proposal"]["page_id"]
    from tests.factories import grant

    grant(db, approver, "pages", "manage")
    assert api.get(f"/api/pages/{page_id}", as_=approver).status == 200
    assert api.delete(f"/api/pages/{page_id}", as_=approver).status == 403
    assert api.get(f"/api/pages/{page_id}", as_=owner).json["page"]["is_archived"] == 0


def test_an_instruction_past_the_limit_over_several_parts_is_400(api, user):
    answer = ask(api, user, texts=["a" * 15_000, "b" * 15_000])
    assert answer.status == 400 and answer.json["details"][0]["field"] == "messages"


@pytest.mark.parametrize("selection", [
    "not a selection",
    {"anchor": "x", "focus": {"path": [0, 0], "offset": 1}},
    {"anchor": {"path": ["0"], "offset": 0}, "focus": {"path": [0, 0], "offset": 1}},
    {"anchor": {"path": [0, 0], "offset": 0}},
])
def test_a_malformed_selection_covers_nothing_so_the_command_generates(api, user, selection):
    children = [{"type": "p", "children": [{"text": "Hello there"}]}]
    answer = ask(api, user, texts=["write more"], children=children, selection=selection)
    if not isinstance(selection, dict):
        assert answer.status == 400  # a selection is an object
        return
    assert answer.status == 200, answer.json
    assert '"data":"generate"' in answer.body.decode()


def test_nodes_that_are_not_objects_are_skipped_in_the_document(api, user):
    children = ["stray", 7, {"type": "p", "children": [{"text": "Hello there"}]}]
    whole = {"anchor": {"path": [2, 0], "offset": 0}, "focus": {"path": [2, 0], "offset": 5}}
    answer = ask(api, user, texts=["upper case"], children=children, selection=whole)
    assert answer.status == 200, answer.json
    assert '"data":"generate"' in answer.body.decode()  # a rewrite (no toolName) is named generate


@pytest.mark.parametrize("header", ["-5", "nan", "NaN"])
def test_copilot_client_timeout_that_is_negative_or_not_a_number_is_400(api, user, header):
    answer = api.post("/api/pages/ai/copilot", as_=user, json={"prompt": "Hi"},
                      headers={"X-Request-Timeout-Ms": header})
    assert answer.status == 400, answer.json


def _put(aws, key, body, user):
    aws["s3"].put_object(Bucket=aws["bucket"], Key=key, Body=body, ContentType="image/png",
                         Metadata={"uploader": str(user.id)})


def _presigned_key(api, user):
    out = api.post("/api/pages/upload/presign", as_=user,
                   json={"file_name": "a.png", "content_type": "image/png", "size": 100})
    assert out.status == 200, out
    return out.json["key"]


def _stored(aws, key) -> int:
    return aws["s3"].list_objects_v2(Bucket=aws["bucket"], Prefix=key).get("KeyCount", 0)


def test_confirm_of_an_object_past_10_mb_is_413_and_removes_it(api, db, aws, user):
    key = _presigned_key(api, user)
    _put(aws, key, b"\x89PNG\r\n\x1a\n" + b"\0" * (10 * 1024 * 1024), user)
    answer = api.post("/api/pages/upload/confirm", as_=user, json={"key": key})
    assert answer.status == 413, answer.json
    assert _stored(aws, key) == 0


def test_a_missing_file_in_the_local_folder_is_404(api):
    answer = api.get("/api/pages/uploads/pages/general/00000000-0000-0000-0000-000000000000.png")
    assert answer.status == 404 and answer.json == {"error": "File not found"}


def test_restoring_a_version_of_a_missing_page_is_404(api, db, user):
    answer = api.post("/api/pages/00000000-0000-0000-0000-000000000000/versions/"
                      "00000000-0000-0000-0000-000000000000/restore", as_=user, json={})
    assert answer.status == 404 and answer.json == {"error": "Page not found"}


def test_confirm_of_an_empty_object_is_400_and_removes_it(api, db, aws, user):
    """Session 29: an empty object (put straight into the bucket: the presigned POST refuses one) made the range read
    fail with InvalidRange, which storage.head took for a missing object: 404 "File not found", the object left."""
    key = _presigned_key(api, user)
    _put(aws, key, b"", user)
    answer = api.post("/api/pages/upload/confirm", as_=user, json={"key": key})
    assert answer.status == 400 and answer.json["error"] == "The file is empty", answer.json
    assert _stored(aws, key) == 0
