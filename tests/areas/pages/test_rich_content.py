"""Rich editor content must be editor JSON (session 22 audit): a non-empty string is JSON text of an object or an
array; anything else (HTML, a bare number or string) is a 400 naming the field."""
import pytest

from tests.factories import make_user

from .factories import make_discussion, make_page

HTML = '<img src=x onerror="alert(document.cookie)">'
NOT_EDITOR_JSON = [HTML, "plain words", "42", '"a string"', "null", "true", "[1,", '{"a": NaN}', '[{"a": Infinity}]']


@pytest.fixture
def user(db):
    return make_user(db, name="Rita Rich")


@pytest.mark.parametrize("value", NOT_EDITOR_JSON)
def test_create_page_refuses_rich_content_that_is_not_editor_json(api, db, user, value):
    response = api.post("/api/pages", as_=user, json={"title": "P", "content_rich": value})
    assert response.status == 400, (response.status, response.json)
    assert response.json["details"][0]["field"] == "content_rich"


def test_update_page_refuses_html_rich_content(api, db, user):
    page = make_page(db, content_rich='[{"text":"kept"}]')
    response = api.patch(f"/api/pages/{page.id}", as_=user, json={"content_rich": HTML})
    assert response.status == 400 and response.json["details"][0]["field"] == "content_rich"
    assert api.get(f"/api/pages/{page.id}", as_=user).json["page"]["content_rich"] == '[{"text":"kept"}]'


@pytest.mark.parametrize("value,stored", [
    (None, None),
    ("", ""),
    ('[{"type":"p","children":[{"text":"hi"}]}]', '[{"type":"p","children":[{"text":"hi"}]}]'),
    (' {"type": "doc"} ', ' {"type": "doc"} '),
    ([{"type": "p", "children": [{"text": "hi"}]}], '[{"type":"p","children":[{"text":"hi"}]}]'),
    ({"type": "doc"}, '{"type":"doc"}'),
])
def test_editor_json_null_and_empty_are_accepted(api, user, value, stored):
    response = api.post("/api/pages", as_=user, json={"title": "P", "content_rich": value})
    assert response.status == 201, response.json
    assert response.json["page"]["content_rich"] == stored


def test_discussion_and_comment_rich_content_must_be_editor_json(api, db, user):
    page = make_page(db)
    for field in ("document_content_rich", "comment_rich"):
        response = api.post(f"/api/pages/{page.id}/discussions", as_=user, json={"comment": "x", field: HTML})
        assert response.status == 400 and response.json["details"][0]["field"] == field, response.json
    discussion = make_discussion(db, page, user)
    path = f"/api/pages/{page.id}/discussions/{discussion.id}/comments"
    response = api.post(path, as_=user, json={"content": "x", "content_rich": HTML})
    assert response.status == 400 and response.json["details"][0]["field"] == "content_rich"
    made = api.post(path, as_=user, json={"content": "x", "content_rich": '[{"text":"x"}]'})
    assert made.status == 201, made.json
    response = api.patch(f"{path}/{made.json['comment']['id']}", as_=user, json={"content": "y", "content_rich": HTML})
    assert response.status == 400 and response.json["details"][0]["field"] == "content_rich"


def test_comment_rich_json_over_100000_characters_is_still_400(api, db, user):
    """test_discussions' length check sends non-JSON text (now refused as such): the cap holds for valid JSON too."""
    page = make_page(db)
    too_long = '["' + "x" * 100_000 + '"]'
    response = api.post(f"/api/pages/{page.id}/discussions", as_=user, json={"comment": "ok", "comment_rich": too_long})
    assert response.status == 400 and response.json["details"][0]["field"] == "comment_rich", response.json
