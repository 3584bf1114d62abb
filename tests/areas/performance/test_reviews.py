"""Reviews at /api/performance/reviews: creation, scoping, the update with ratings and goals, the pass rule,
previous goals, history, my-goals, the annual aggregation and delete."""
from datetime import date

import pytest
from sqlalchemy import select

from chalicelib.areas.performance.models import Review, ReviewGoal
from chalicelib.core.notify import Notification
from tests.areas.performance.factories import make_cycle, make_review, make_template
from tests.factories import make_squad, make_user


def _create(api, caller, cycle, user, **extra):
    return api.post("/api/performance/reviews", as_=caller, json={"cycle_id": cycle.id, "user_id": user.id, **extra})


@pytest.mark.smoke
def test_create_copies_template_items_and_refuses_a_second(api, db, exec_user, employee):
    cycle = make_cycle(db)
    template, items = make_template(db, user_ids=[employee.id])
    reviewer = make_user(db, access_level="manager")
    created = _create(api, exec_user, cycle, employee, reviewer_id=reviewer.id)
    assert created.status == 201, created
    review = created.json["review"]
    assert review["status"] == "draft" and review["reviewer_id"] == reviewer.id
    assert review["user_name"] == employee.name and review["cycle_name"] == cycle.name
    assert review["kpi_total_count"] is None and review["kpi_pass_count"] is None
    detail = api.get(f"/api/performance/reviews/{review['id']}", as_=exec_user).json
    assert [(k["label"], k["template_item_id"], k["rating"]) for k in detail["kpi_ratings"]] == [
        (item.label, item.id, None) for item in items]
    assert detail["previous_reviews"] == [] and detail["kpi_aggregation"] is None and detail["goals"] == []
    assert db.scalar(select(Notification.id).where(Notification.user_id == reviewer.id,
                                                   Notification.type == "review_assigned")) is not None
    again = _create(api, exec_user, cycle, employee)
    assert again.status == 409 and "error" in again.json
    # the reviewer defaults to the caller; no template: no KPIs
    other = make_user(db)
    mine = _create(api, exec_user, cycle, other).json["review"]
    assert mine["reviewer_id"] == exec_user.id
    assert api.get(f"/api/performance/reviews/{mine['id']}", as_=exec_user).json["kpi_ratings"] == []


def test_create_needs_an_open_cycle_and_a_user_in_reach(api, db, exec_user, employee):
    for status in ("draft", "closed"):
        answer = _create(api, exec_user, make_cycle(db, status=status), employee)
        assert answer.status == 400 and answer.json["details"][0]["field"] == "cycle_id"
    cycle = make_cycle(db)
    assert _create(api, exec_user, cycle, employee, reviewer_id="missing").status == 400
    assert api.post("/api/performance/reviews", as_=exec_user, json={"cycle_id": cycle.id, "user_id": "nope"}).status == 400
    # an employee may create their own review only; a manager reaches their team only
    stranger = make_user(db)
    assert _create(api, employee, cycle, stranger).status == 403
    assert _create(api, employee, cycle, employee).status == 201
    manager = make_user(db, access_level="manager")
    report = make_user(db, manager_id=manager.id)
    assert _create(api, manager, cycle, report).status == 201
    assert _create(api, manager, cycle, stranger).status == 403


def test_reviews_are_scoped_by_access_level(api, db, exec_user):
    cycle = make_cycle(db)
    squad = make_squad(db)
    manager = make_user(db, access_level="manager", squad_id=squad.id)
    member = make_user(db, squad_id=squad.id)
    report = make_user(db, manager_id=manager.id)
    outsider = make_user(db)
    other_manager = make_user(db, access_level="manager")
    reviews = {name: make_review(db, cycle=cycle, user=user, reviewer=exec_user)
               for name, user in (("member", member), ("report", report), ("outsider", outsider))}
    reviewed_by_outsider = make_review(db, cycle=make_cycle(db), user=member, reviewer=outsider)

    def seen(user):
        return {r["id"] for r in api.get("/api/performance/reviews", as_=user).json["reviews"]}

    assert seen(exec_user) == {r.id for r in reviews.values()} | {reviewed_by_outsider.id}
    assert seen(manager) == {reviews["member"].id, reviews["report"].id, reviewed_by_outsider.id}
    assert seen(other_manager) == set()
    assert seen(outsider) == {reviews["outsider"].id, reviewed_by_outsider.id}  # own and the one they review
    assert api.get(f"/api/performance/reviews/{reviews['member'].id}", as_=other_manager).status == 404
    assert api.put(f"/api/performance/reviews/{reviews['member'].id}", as_=other_manager,
                   json={"strengths": "x"}).status == 404
    assert api.get(f"/api/performance/reviews/{reviews['outsider'].id}", as_=member).status == 404
    filtered = api.get(f"/api/performance/reviews?cycle_id={cycle.id}&status=draft", as_=exec_user).json["reviews"]
    assert len(filtered) == 3
    assert api.get("/api/performance/reviews?status=bogus", as_=exec_user).status == 400


def _rated_review(api, db, exec_user, ratings, mandatory):
    user = make_user(db)
    items = [(f"Area {i}", f"KPI {i}", m) for i, m in enumerate(mandatory)]
    make_template(db, user_ids=[user.id], items=items)
    review = _create(api, exec_user, make_cycle(db), user).json["review"]
    path = f"/api/performance/reviews/{review['id']}"
    kpis = api.get(path, as_=exec_user).json["kpi_ratings"]
    answer = api.put(path, as_=exec_user, json={"kpi_ratings": [
        {"id": k["id"], "rating": rating, "notes": f"n{i}"} for i, (k, rating) in enumerate(zip(kpis, ratings))]})
    assert answer.status == 200, answer
    for status in ("self_assessment", "in_review", "ready_for_review", "completed"):
        answer = api.put(path, as_=exec_user, json={"status": status})
        assert answer.status == 200, answer
    return answer.json["review"]


@pytest.mark.parametrize("ratings, mandatory, expected", [
    (["achieving", "exceeding", "achieving", "developing"], [False] * 4, (3, 4, 1)),  # exactly 75%
    (["achieving", "exceeding", "developing", "developing"], [False] * 4, (2, 4, 0)),  # 50%
    (["achieving", "achieving", "exceeding", "not_achieving"], [False, False, False, True], (3, 4, 0)),  # mandatory
    (["achieving", "achieving", "exceeding", "exceeding"], [True, True, True, True], (4, 4, 1)),
    (["achieving", "achieving", None, "exceeding"], [False] * 4, (3, 4, 1)),  # unrated fails
    (["achieving", "developing"], [True, False], (1, 2, 0)),
])
def test_pass_rule_on_completion(api, db, exec_user, ratings, mandatory, expected):
    review = _rated_review(api, db, exec_user, ratings, mandatory)
    assert (review["kpi_pass_count"], review["kpi_total_count"], review["kpi_passed"]) == expected
    assert review["status"] == "completed" and review["completed_at"]


def test_update_steps_ratings_goals_and_rights(api, db, exec_user):
    manager = make_user(db, access_level="manager")
    subject = make_user(db, manager_id=manager.id)
    make_template(db, user_ids=[subject.id])
    review = _create(api, manager, make_cycle(db), subject).json["review"]
    path = f"/api/performance/reviews/{review['id']}"
    kpi = api.get(path, as_=manager).json["kpi_ratings"][0]
    assert api.put(path, as_=manager, json={"status": "in_review"}).status == 409  # a jump
    # the subject writes the self-assessment and moves up to in_review, never rates
    moved = api.put(path, as_=subject, json={"status": "self_assessment", "strengths": "Focus", "goals": [
        {"goal": "Lead a release", "success_measures": "shipped"}, {"goal": "Mentor", "sort_order": 5}]})
    assert moved.status == 200 and moved.json["review"]["strengths"] == "Focus", moved
    assert api.put(path, as_=subject, json={"kpi_ratings": [{"id": kpi["id"], "rating": "exceeding"}]}).status == 403
    assert api.put(path, as_=subject, json={"reviewer_notes": "x"}).status == 403
    assert api.put(path, as_=subject, json={"status": "in_review"}).status == 200
    assert api.put(path, as_=subject, json={"status": "ready_for_review"}).status == 403
    assert api.put(path, as_=manager, json={"status": "self_assessment"}).status == 200  # one step back
    assert api.put(path, as_=manager, json={"status": "in_review", "reviewer_notes": "Good",
                                            "kpi_ratings": [{"id": kpi["id"], "rating": "achieving"}]}).status == 200
    bad = api.put(path, as_=manager, json={"kpi_ratings": [{"id": "not-a-kpi", "rating": "achieving"}]})
    assert bad.status == 400 and bad.json["details"][0]["field"] == "kpi_ratings.0.id"
    assert api.put(path, as_=manager, json={"kpi_ratings": [{"id": kpi["id"], "rating": "stellar"}]}).status == 400
    detail = api.get(path, as_=subject).json
    assert [(g["goal"], g["sort_order"]) for g in detail["goals"]] == [("Lead a release", 0), ("Mentor", 5)]
    assert detail["kpi_ratings"][0]["rating"] == "achieving" and detail["review"]["reviewer_notes"] == "Good"
    api.put(path, as_=manager, json={"status": "ready_for_review"})
    done = api.put(path, as_=manager, json={"status": "completed"})
    assert done.status == 200
    assert api.put(path, as_=manager, json={"strengths": "late"}).status == 409
    assert api.put(path, as_=manager, json={"status": "ready_for_review"}).status == 409
    assert api.delete(path, as_=exec_user).status == 400  # only drafts
    assert api.delete(path, as_=manager).status == 403  # manage:performance


def test_delete_a_draft_review(api, db, exec_user, employee):
    review = make_review(db, cycle=make_cycle(db), user=employee)
    assert api.delete(f"/api/performance/reviews/{review.id}", as_=exec_user).json == {"ok": True}
    assert api.get(f"/api/performance/reviews/{review.id}", as_=exec_user).status == 404


def test_previous_goals_history_and_my_goals(api, db, exec_user, employee):
    q1 = make_cycle(db, name="Q1", period_start=date(2026, 1, 1), period_end=date(2026, 3, 31))
    q2 = make_cycle(db, name="Q2", period_start=date(2026, 4, 1), period_end=date(2026, 6, 30))
    assert api.get("/api/performance/my-goals", as_=employee).json == {"goals": [], "cycle_name": ""}
    earlier = make_review(db, cycle=q1, user=employee, reviewer=exec_user, status="completed",
                          goals=[("Ship A", None), ("Learn B", None)], kpi_pass_count=1, kpi_total_count=1,
                          kpi_passed=True, completed_at=date(2026, 4, 2))
    goal_ids = list(db.scalars(select(ReviewGoal.id).where(ReviewGoal.review_id == earlier.id)
                               .order_by(ReviewGoal.sort_order)))
    mine = api.get("/api/performance/my-goals", as_=employee).json
    assert mine["cycle_name"] == "Q1" and [g["goal"] for g in mine["goals"]] == ["Ship A", "Learn B"]
    current = make_review(db, cycle=q2, user=employee, reviewer=exec_user)
    path = f"/api/performance/reviews/{current.id}"
    previous = api.get(path, as_=exec_user).json["previous_reviews"]
    assert [p["review"]["id"] for p in previous] == [earlier.id]
    assert [g["goal"] for g in previous[0]["goals"]] == ["Ship A", "Learn B"]
    recorded = api.put(f"{path}/previous-goals", as_=exec_user, json={"outcomes": [
        {"goal_id": goal_ids[0], "status": "completed"}, {"goal_id": goal_ids[1], "status": "not_completed"}]})
    assert recorded.json == {"ok": True}
    other_goal = make_review(db, cycle=q1, user=make_user(db), goals=[("theirs", None)])
    foreign = db.scalar(select(ReviewGoal.id).where(ReviewGoal.review_id == other_goal.id))
    bad = api.put(f"{path}/previous-goals", as_=exec_user, json={"outcomes": [{"goal_id": foreign, "status": "completed"}]})
    assert bad.status == 400 and bad.json["details"][0]["field"] == "outcomes.0.goal_id"
    assert api.put(f"{path}/previous-goals", as_=exec_user, json={"outcomes": [
        {"goal_id": goal_ids[0], "status": "maybe"}]}).status == 400
    history = api.get(f"/api/performance/reviews/history/{employee.id}", as_=employee).json["history"]
    assert history == [{"review_id": earlier.id, "cycle_id": q1.id, "cycle_name": "Q1", "cycle_type": "quarterly",
                        "period_start": "2026-01-01", "period_end": "2026-03-31",
                        "completed_at": history[0]["completed_at"], "kpi_pass_count": 1, "kpi_total_count": 1,
                        "kpi_passed": 1, "goal_count": 2, "goals_completed": 1, "goals_not_completed": 1}]
    stranger_manager = make_user(db, access_level="manager")
    assert api.get(f"/api/performance/reviews/history/{employee.id}", as_=stranger_manager).status == 404
    assert api.get(f"/api/performance/reviews/history/{employee.id}", as_=exec_user).status == 200


def test_annual_review_aggregates_the_quarters(api, db, exec_user, employee):
    _, items = make_template(db, user_ids=[employee.id])
    first, second = items[0].id, items[1].id
    year = make_cycle(db, type="annual", name="FY26", period_start=date(2026, 1, 1), period_end=date(2026, 12, 31))
    ratings = [("achieving", "developing"), ("exceeding", "developing"), ("exceeding", "achieving")]
    quarters = []
    for index, (a, b) in enumerate(ratings):
        cycle = make_cycle(db, name=f"Q{index + 1}", period_start=date(2026, 1 + 3 * index, 1),
                           period_end=date(2026, 3 + 3 * index, 28))
        quarters.append(make_review(db, cycle=cycle, user=employee, reviewer=exec_user, status="completed",
                                    kpis=[(first, a), (second, b)], completed_at=date(2026, 4 + 3 * index, 1)))
    make_review(db, cycle=make_cycle(db, name="Q4 open", period_start=date(2026, 10, 1), period_end=date(2026, 12, 31)),
                user=employee, kpis=[(first, "not_achieving")])  # not completed: left out
    make_review(db, cycle=make_cycle(db, name="old", period_start=date(2025, 1, 1), period_end=date(2025, 3, 31)),
                user=employee, status="completed", kpis=[(first, "not_achieving")])  # outside the year
    annual = make_review(db, cycle=year, user=employee, reviewer=exec_user)
    detail = api.get(f"/api/performance/reviews/{annual.id}", as_=exec_user).json
    assert [p["review"]["cycle_name"] for p in detail["previous_reviews"]] == ["Q1", "Q2", "Q3"]
    assert detail["previous_reviews"][0]["kpi_ratings"] == [{"template_item_id": first, "rating": "achieving"},
                                                            {"template_item_id": second, "rating": "developing"}]
    assert detail["kpi_aggregation"] == {
        first: {"ratings": {"achieving": 1, "exceeding": 2}, "most_common": "exceeding"},
        second: {"ratings": {"developing": 2, "achieving": 1}, "most_common": "developing"}}


def test_review_list_costs_constant_statements(api, db, exec_user, count_queries):
    cycle = make_cycle(db)
    counts = []
    for n in (10, 490):
        for _ in range(n):
            user = make_user(db)
            make_review(db, cycle=cycle, user=user, reviewer=make_user(db))
        with count_queries() as counter:
            answer = api.get("/api/performance/reviews", as_=exec_user)
        assert answer.status == 200
        counts.append(counter.count)
    assert len(answer.json["reviews"]) == 500
    assert counts[0] == counts[1], counts


def test_review_detail_costs_constant_statements(api, db, exec_user, employee, count_queries):
    _, items = make_template(db, user_ids=[employee.id])
    year = make_cycle(db, type="annual", period_start=date(2026, 1, 1), period_end=date(2026, 12, 31))
    annual = make_review(db, cycle=year, user=employee, reviewer=exec_user)
    counts = []
    for quarters in (1, 3):
        for index in range(quarters):
            make_review(db, cycle=make_cycle(db, period_start=date(2026, 1 + index, 1), period_end=date(2026, 2 + index, 1)),
                        user=employee, status="completed", kpis=[(items[0].id, "achieving")], goals=[("g", None)])
        with count_queries() as counter:
            assert api.get(f"/api/performance/reviews/{annual.id}", as_=exec_user).status == 200
        counts.append(counter.count)
    assert counts[0] == counts[1], counts
    assert db.scalar(select(Review.id).where(Review.id == annual.id))


def test_review_history_answers_at_most_500_rows(api, db, exec_user, employee):
    """decisions.md section 4: a list with no stated limit answers at most 500 rows, newest first."""
    from datetime import UTC, datetime, timedelta

    from chalicelib.areas.performance.models import Review, ReviewCycle
    from chalicelib.core.locks import insert_rows

    cycles = insert_rows(db, ReviewCycle, [{"type": "quarterly", "name": f"C{n}", "period_start": date(2026, 1, 1),
                                            "period_end": date(2026, 3, 31), "status": "closed"} for n in range(501)])
    start = datetime(2000, 1, 1, tzinfo=UTC)
    insert_rows(db, Review, [{"cycle_id": c["id"], "user_id": employee.id, "reviewer_id": exec_user.id,
                              "status": "completed", "completed_at": start + timedelta(days=n)}
                             for n, c in enumerate(cycles)])
    db.flush()
    history = api.get(f"/api/performance/reviews/history/{employee.id}", as_=exec_user).json["history"]
    assert len(history) == 500 and history[0]["cycle_name"] == "C500"


def test_an_annual_review_lists_at_most_500_previous_reviews(api, db, exec_user, employee):
    """decisions.md section 4 caps every list at 500 rows; docs/decisions/performance.md: an annual review's
    `previous_reviews` holds at most 500 quarterly reviews, in the order of their cycles (period start, then review
    id). 501 quarterly cycles inside one year would take years of cycles through the API: the rows are put in the
    database directly (one multi-row INSERT each). `kpi_aggregation` counts the ratings of the reviews listed."""
    from datetime import timedelta

    from chalicelib.areas.performance.models import ReviewCycle, ReviewKpiRating
    from chalicelib.core.locks import insert_rows

    _, items = make_template(db, user_ids=[employee.id])
    year = make_cycle(db, type="annual", name="FY", period_start=date(2024, 1, 1), period_end=date(2025, 12, 31))
    annual = make_review(db, cycle=year, user=employee, reviewer=exec_user)
    # two cycles a day (the review id breaks the tie), made newest first so that creation order is no help
    days = [date(2024, 1, 1) + timedelta(days=n // 2) for n in reversed(range(501))]
    cycles = insert_rows(db, ReviewCycle, [{"type": "quarterly", "name": f"Q{n}", "period_start": day,
                                            "period_end": day + timedelta(days=1), "status": "closed"}
                                           for n, day in enumerate(days)])
    reviews = insert_rows(db, Review, [{"cycle_id": c["id"], "user_id": employee.id, "reviewer_id": exec_user.id,
                                        "status": "completed"} for c in cycles])
    start = {c["id"]: c["period_start"] for c in cycles}
    ordered = sorted(reviews, key=lambda r: (start[r["cycle_id"]], r["id"]))
    newest = ordered[-1]["id"]
    insert_rows(db, ReviewKpiRating, [{"review_id": r["id"], "template_item_id": items[0].id, "area": "A",
                                       "label": "K", "rating": "not_achieving" if r["id"] == newest else "achieving"}
                                      for r in reviews])
    db.flush()

    detail = api.get(f"/api/performance/reviews/{annual.id}", as_=exec_user).json
    previous = detail["previous_reviews"]
    assert len(previous) == 500
    assert [p["review"]["id"] for p in previous] == [r["id"] for r in ordered[:500]]
    assert newest not in {p["review"]["id"] for p in previous}
    assert previous[0]["kpi_ratings"] == [{"template_item_id": items[0].id, "rating": "achieving"}]
    assert detail["kpi_aggregation"] == {items[0].id: {"ratings": {"achieving": 500}, "most_common": "achieving"}}


def test_goal_records_carry_their_review_id(api, db, exec_user, employee):
    """Document 2, Performance, Review goal: `id, review_id, goal, success_measures, support_needed, status,
    sort_order`. The review detail's goals and my-goals (which names no review otherwise) carry review_id."""
    done = make_review(db, cycle=make_cycle(db, name="Q1"), user=employee, reviewer=exec_user, status="completed",
                       goals=[("Ship A", "completed")], completed_at=date(2026, 4, 2))
    current = make_review(db, cycle=make_cycle(db, name="Q2", period_start=date(2026, 4, 1),
                                               period_end=date(2026, 6, 30)), user=employee, reviewer=exec_user)
    path = f"/api/performance/reviews/{current.id}"
    assert api.put(path, as_=employee, json={"goals": [{"goal": "Lead a release"}]}).status == 200
    goals = api.get(path, as_=employee).json["goals"]
    assert [(g["goal"], g["review_id"]) for g in goals] == [("Lead a release", current.id)]
    mine = api.get("/api/performance/my-goals", as_=employee).json
    assert [(g["goal"], g["review_id"], g["status"]) for g in mine["goals"]] == [("Ship A", done.id, "completed")]


def test_a_former_employee_keeps_a_history_and_a_feedback_summary(api, db, exec_user):
    """GET /reviews/history/:userId and GET /feedback/summary/:userId read a person's past records: a user made
    inactive (someone who left) still exists, their reviews still list in GET /reviews, and within reach their
    history and summary answer 200, not 404 "User not found" (docs/decisions/performance.md: reach, not activity)."""
    from chalicelib.areas.performance.models import FeedbackRequest, FeedbackResponse

    manager = make_user(db, access_level="manager")
    former = make_user(db, manager_id=manager.id)
    cycle = make_cycle(db)
    review = make_review(db, cycle=cycle, user=former, reviewer=manager, status="completed", kpi_pass_count=1,
                         kpi_total_count=1, kpi_passed=True, completed_at=date(2026, 4, 2))
    request = FeedbackRequest(cycle_id=cycle.id, subject_id=former.id, reviewer_id=make_user(db).id,
                              status="submitted")
    db.add(request)
    db.flush()
    db.add(FeedbackResponse(request_id=request.id, organisation_rating="achieving"))
    former.is_active = False
    db.flush()
    assert review.id in {r["id"] for r in api.get("/api/performance/reviews", as_=manager).json["reviews"]}
    for caller in (exec_user, manager):
        history = api.get(f"/api/performance/reviews/history/{former.id}", as_=caller)
        assert history.status == 200, history
        assert [h["review_id"] for h in history.json["history"]] == [review.id]
        summary = api.get(f"/api/performance/feedback/summary/{former.id}", as_=caller)
        assert summary.status == 200 and summary.json["response_count"] == 1, summary
    # out of reach stays 404; creating a review or asking feedback still needs an active user (400)
    assert api.get(f"/api/performance/reviews/history/{former.id}",
                   as_=make_user(db, access_level="manager")).status == 404
    assert _create(api, exec_user, make_cycle(db), former).status == 400
    assert api.post("/api/performance/feedback/requests/bulk", as_=exec_user,
                    json={"cycle_id": cycle.id, "subject_id": former.id}).status == 400


def test_a_quarterly_reviews_previous_review_is_one_before_it(api, db, exec_user, employee):
    """docs/decisions/performance.md: a quarterly review's `previous_reviews` is the person's latest completed
    review before it. The year's annual review, completed later, covers the quarter (same start, later end): it is
    not before the quarter and is not its previous review; the year before's annual review is."""
    fy25 = make_review(db, cycle=make_cycle(db, type="annual", name="FY25", period_start=date(2025, 1, 1),
                                            period_end=date(2025, 12, 31)),
                       user=employee, reviewer=exec_user, status="completed", completed_at=date(2026, 1, 10))
    q1 = make_review(db, cycle=make_cycle(db, name="Q1", period_start=date(2026, 1, 1), period_end=date(2026, 3, 31)),
                     user=employee, reviewer=exec_user, status="completed", completed_at=date(2026, 4, 2))
    make_review(db, cycle=make_cycle(db, type="annual", name="FY26", period_start=date(2026, 1, 1),
                                     period_end=date(2026, 12, 31)),
                user=employee, reviewer=exec_user, status="completed", completed_at=date(2027, 1, 10))
    q2 = make_review(db, cycle=make_cycle(db, name="Q2", period_start=date(2026, 4, 1), period_end=date(2026, 6, 30)),
                     user=employee, reviewer=exec_user)

    def previous(review):
        body = api.get(f"/api/performance/reviews/{review.id}", as_=exec_user).json
        return [p["review"]["id"] for p in body["previous_reviews"]]

    assert previous(q2) == [q1.id]
    assert previous(q1) == [fy25.id]
