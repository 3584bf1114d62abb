"""Session 30 (limits audit): an announcement's stated limits at their boundary (docs/decisions/announcements.md,
Validation): title 1 to 500 characters (trimmed), content 1 to 100 000, `attachment_url` 2000 and `attachment_name`
500 (the columns' lengths). Exactly the limit is taken; one more is a 400 naming the field, on create and update."""
import pytest

from tests.areas.announcements.factories import make_announcement
from tests.factories import make_user

BODY = {"title": "Office move", "content": "We move on Monday.", "category": "company"}


def _url(length: int) -> str:
    prefix = "https://files.example.com/"
    return prefix + "f" * (length - len(prefix))


@pytest.fixture
def head(db):
    return make_user(db, access_level="head")


@pytest.mark.parametrize("field, at_most, one_more", [
    ("title", "t" * 500, "t" * 501),
    ("content", "c" * 100_000, "c" * 100_001),
    ("attachment_url", _url(2000), _url(2001)),
    ("attachment_name", "n" * 500, "n" * 501),
])
def test_an_announcement_takes_exactly_its_limit_and_refuses_one_more(api, db, head, field, at_most, one_more):
    path = f"/api/announcements/{make_announcement(db, author_id=head.id).id}"
    made = api.post("/api/announcements", as_=head, json={**BODY, field: at_most})
    assert made.status == 201, made
    edited = api.put(path, as_=head, json={field: at_most})
    assert edited.status == 200, edited
    assert made.json["announcement"][field] == edited.json["announcement"][field] == at_most
    for answer in (api.post("/api/announcements", as_=head, json={**BODY, field: one_more}),
                   api.put(path, as_=head, json={field: one_more})):
        assert answer.status == 400, answer
        assert [d["field"] for d in answer.json["details"]] == [field]


def test_the_title_is_counted_once_trimmed(api, head):
    made = api.post("/api/announcements", as_=head, json={**BODY, "title": f"  {'t' * 500}  "})
    assert made.status == 201, made
    assert made.json["announcement"]["title"] == "t" * 500
