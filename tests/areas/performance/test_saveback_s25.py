"""Save-back of a review (session 25, save-back audit): the reviewed person reads their review, edits their part
and PUTs the whole of it back. Reviewer fields and KPI ratings sent back unchanged are not a rating (200); only a
changed one is refused (403, nobody judges themselves). Goals sent back unchanged are left as they are (their
ids kept, nothing rewritten)."""
from sqlalchemy import select

from chalicelib.areas.performance.models import Review, ReviewGoal, ReviewKpiRating
from tests.areas.performance.factories import make_cycle, make_review, make_template
from tests.factories import make_user

FIELDS = ("status", "strengths", "growth_areas", "discussion_topics", "reviewer_notes", "action_items")


def _saveback(detail, **change):
    """The body a client sends back: the review's fields, its ratings and goals, as read, with these changes."""
    body = {key: detail["review"][key] for key in FIELDS}
    body["kpi_ratings"] = [{"id": k["id"], "rating": k["rating"], "notes": k["notes"]} for k in detail["kpi_ratings"]]
    body["goals"] = [{"goal": g["goal"], "success_measures": g["success_measures"],
                      "support_needed": g["support_needed"], "sort_order": g["sort_order"]} for g in detail["goals"]]
    body.update(change)
    return body


def _review(db, employee, **overrides):
    reviewer = make_user(db, access_level="manager")
    _, items = make_template(db)
    review = make_review(db, cycle=make_cycle(db), user=employee, reviewer=reviewer, status="in_review",
                         kpis=[(items[0].id, "achieving"), (items[1].id, None)],
                         goals=[("Lead a release", None), ("Mentor", None)], **overrides)
    db.execute(ReviewKpiRating.__table__.update().where(ReviewKpiRating.review_id == review.id,
                                                         ReviewKpiRating.rating.is_not(None)).values(notes="On time"))
    return reviewer, review


def _stored(db, review_id):
    db.expire_all()
    review = db.get(Review, review_id)
    kpis = db.execute(select(ReviewKpiRating.id, ReviewKpiRating.rating, ReviewKpiRating.notes)
                      .where(ReviewKpiRating.review_id == review_id).order_by(ReviewKpiRating.sort_order)).all()
    goals = db.execute(select(ReviewGoal.id, ReviewGoal.goal, ReviewGoal.sort_order)
                       .where(ReviewGoal.review_id == review_id).order_by(ReviewGoal.sort_order)).all()
    return ({key: getattr(review, key) for key in FIELDS + ("updated_at",)}, kpis, goals)


def test_reviewee_saves_back_unchanged_reviewer_fields_and_ratings(api, db, employee):
    _, review = _review(db, employee, reviewer_notes="Good quarter", action_items=None)
    path = f"/api/performance/reviews/{review.id}"
    detail = api.get(path, as_=employee)
    assert detail.status == 200, detail
    before = _stored(db, review.id)
    # the whole record back, unchanged: reviewer notes, a null action_items and both ratings carried
    answer = api.put(path, as_=employee, json=_saveback(detail.json))
    assert answer.status == 200, answer
    assert _stored(db, review.id) == before  # nothing written: no updated_at, goal ids or rating change
    assert api.get(path, as_=employee).json == detail.json
    # the reviewed person's own part changes; the reviewer's part carried unchanged stays
    answer = api.put(path, as_=employee, json=_saveback(detail.json, strengths="I shipped X"))
    assert answer.status == 200, answer
    review_now, kpis, goals = _stored(db, review.id)
    assert review_now["strengths"] == "I shipped X" and review_now["reviewer_notes"] == "Good quarter"
    assert (kpis, goals) == before[1:]


def test_reviewee_changing_reviewer_fields_or_ratings_is_refused(api, db, employee):
    _, review = _review(db, employee, reviewer_notes="Good quarter")
    path = f"/api/performance/reviews/{review.id}"
    detail = api.get(path, as_=employee).json
    before = _stored(db, review.id)
    assert api.put(path, as_=employee, json=_saveback(detail, reviewer_notes="Great quarter")).status == 403
    assert api.put(path, as_=employee, json=_saveback(detail, action_items="Promote me")).status == 403
    assert api.put(path, as_=employee, json={"reviewer_notes": None}).status == 403  # clearing is a change
    for index, change in ((0, {"rating": "exceeding"}), (0, {"notes": "Always on time"}), (1, {"rating": "achieving"}),
                          (0, {"rating": None})):
        body = _saveback(detail, strengths="I shipped X")
        body["kpi_ratings"][index].update(change)
        answer = api.put(path, as_=employee, json=body)
        assert answer.status == 403, (change, answer)
    # only the changed entry counts: one unchanged entry alone is fine, another review's KPI is a 400
    assert api.put(path, as_=employee, json={"kpi_ratings": [{"id": detail["kpi_ratings"][0]["id"],
                                                              "rating": "achieving"}]}).status == 200
    bad = api.put(path, as_=employee, json={"kpi_ratings": [{"id": "not-a-kpi", "rating": None}]})
    assert bad.status == 400 and bad.json["details"][0]["field"] == "kpi_ratings.0.id"
    assert _stored(db, review.id) == before


def test_goal_ids_kept_on_an_unchanged_saveback(api, db, employee):
    reviewer, review = _review(db, employee)
    path = f"/api/performance/reviews/{review.id}"
    detail = api.get(path, as_=employee).json
    ids = [g["id"] for g in detail["goals"]]
    for caller in (reviewer, employee):
        answer = api.put(path, as_=caller, json=_saveback(detail, strengths=f"by {caller.id}"))
        assert answer.status == 200, answer
        assert [g["id"] for g in api.get(path, as_=caller).json["goals"]] == ids
    # goals sent without sort_order take their place in the list: the same goals, kept
    body = {"goals": [{"goal": g["goal"]} for g in detail["goals"]]}
    assert api.put(path, as_=employee, json=body).status == 200
    assert [g["id"] for g in api.get(path, as_=employee).json["goals"]] == ids
    # a changed goal list is written as sent
    body = _saveback(detail)
    body["goals"] = list(reversed(body["goals"]))
    body["goals"][0]["sort_order"], body["goals"][1]["sort_order"] = 0, 1
    assert api.put(path, as_=employee, json=body).status == 200
    goals = api.get(path, as_=employee).json["goals"]
    assert [(g["goal"], g["sort_order"]) for g in goals] == [("Mentor", 0), ("Lead a release", 1)]
    assert not set(g["id"] for g in goals) & set(ids)
