"""Session 29: docs/decisions/pages.md claim by claim against the code (decisions-versus-code audit)."""
import json

import pytest

from tests.factories import make_user

from .factories import make_page


@pytest.fixture
def user(db):
    return make_user(db, name="Lou Locker")


RICH = [{"type": "p", "children": [{"text": "signed off"}]}]


def test_locked_page_sent_back_as_read_is_no_change_of_its_text(api, db, user):
    """pages.md, Lock: "while a page is locked, a PATCH that changes its title, content, content_rich ... answers 409";
    "Archive, publish, parent and position stay changeable". What counts as a change is what would be stored (Session
    23's review; `same_stored`), as the proposal freeze and the save-back rule compare it. The lock compared the raw
    values: rich content sent as the JSON value over stored text spelled otherwise, `content: null` on an empty page
    and `title: null` on an "Untitled" one were 409 on a publish that changed none of them."""
    stored_rich = json.dumps(RICH, indent=2)  # the editor's text as some client stored it (spaces, new lines)
    page = make_page(db, title="Untitled", content="", content_rich=stored_rich, lock_page=True)
    read = api.get(f"/api/pages/{page.id}", as_=user).json["page"]
    sent_back = {"title": None, "content": None, "content_rich": json.loads(read["content_rich"]), "is_published": 1}
    answer = api.patch(f"/api/pages/{page.id}", as_=user, json=sent_back)
    assert answer.status == 200, answer.json
    assert answer.json["page"]["is_published"] == 1 and answer.json["page"]["lock_page"] == 1
    assert answer.json["page"]["title"] == "Untitled" and answer.json["page"]["content"] == ""
    assert json.loads(answer.json["page"]["content_rich"]) == RICH
    # a real change of the text is still refused while locked
    changed = api.patch(f"/api/pages/{page.id}", as_=user,
                        json={"content_rich": [{"type": "p", "children": [{"text": "rewritten"}]}]})
    assert changed.status == 409 and "content_rich" in changed.json["error"]
    assert api.patch(f"/api/pages/{page.id}", as_=user, json={"title": "  "}).status == 200  # blank: Untitled
    assert api.patch(f"/api/pages/{page.id}", as_=user, json={"title": "Renamed"}).status == 409
