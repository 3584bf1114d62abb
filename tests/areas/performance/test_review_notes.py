"""Notes on a review (document 2, Notes: resource type `review`): the review must be one the caller sees."""
from tests.areas.performance.factories import make_cycle, make_review
from tests.factories import make_user


def test_notes_on_a_review_follow_its_scope(api, db, exec_user, employee):
    mine = make_review(db, cycle=make_cycle(db), user=employee, reviewer=exec_user)
    hidden = make_review(db, cycle=make_cycle(db), user=make_user(db), reviewer=exec_user)
    made = api.post(f"/api/notes/review/{mine.id}", as_=employee, json={"content": "Ready for the chat"})
    assert made.status == 201, made
    assert [n["content"] for n in api.get(f"/api/notes/review/{mine.id}", as_=exec_user).json["notes"]] == [
        "Ready for the chat"]
    assert api.post(f"/api/notes/review/{hidden.id}", as_=employee, json={"content": "x"}).status == 404
    assert api.get(f"/api/notes/review/{hidden.id}", as_=employee).status == 404
    assert api.post("/api/notes/review/missing", as_=exec_user, json={"content": "x"}).status == 404
