"""Session 28 (dates audit): GET /api/performance/my-goals answers the goals "from the user's most recent completed
review" (document 2): the review of the latest period, the one whose goals the next review's `previous_reviews`
names, not the review completed last (docs/decisions/performance.md, session 28)."""
from datetime import date

from tests.areas.performance.factories import make_cycle, make_review


def _completed(db, cycle, user, reviewer, goal: str, completed_at: date):
    return make_review(db, cycle=cycle, user=user, reviewer=reviewer, status="completed", goals=[(goal, None)],
                       kpi_pass_count=0, kpi_total_count=0, kpi_passed=True, completed_at=completed_at)


def _my_goals(api, user) -> tuple[str, list[str]]:
    answer = api.get("/api/performance/my-goals", as_=user)
    assert answer.status == 200, answer
    return answer.json["cycle_name"], [g["goal"] for g in answer.json["goals"]]


def test_my_goals_are_those_of_the_latest_period_not_the_latest_completion(api, db, exec_user, employee):
    q1 = make_cycle(db, name="Q1", period_start=date(2026, 1, 1), period_end=date(2026, 3, 31))
    q2 = make_cycle(db, name="Q2", period_start=date(2026, 4, 1), period_end=date(2026, 6, 30))
    _completed(db, q2, employee, exec_user, "Q2 goal", date(2026, 7, 5))
    _completed(db, q1, employee, exec_user, "Q1 goal", date(2026, 7, 10))  # the older quarter completed late
    assert _my_goals(api, employee) == ("Q2", ["Q2 goal"])


def test_my_goals_are_the_goals_the_next_review_records_outcomes_of(api, db, exec_user, employee):
    q1 = make_cycle(db, name="Q1", period_start=date(2026, 1, 1), period_end=date(2026, 3, 31))
    q2 = make_cycle(db, name="Q2", period_start=date(2026, 4, 1), period_end=date(2026, 6, 30))
    q3 = make_cycle(db, name="Q3", period_start=date(2026, 7, 1), period_end=date(2026, 9, 30))
    _completed(db, q2, employee, exec_user, "Q2 goal", date(2026, 7, 5))
    _completed(db, q1, employee, exec_user, "Q1 goal", date(2026, 7, 10))
    current = make_review(db, cycle=q3, user=employee, reviewer=exec_user)
    previous = api.get(f"/api/performance/reviews/{current.id}", as_=exec_user).json["previous_reviews"]
    assert [p["review"]["cycle_name"] for p in previous] == [_my_goals(api, employee)[0]]


def test_of_periods_ending_the_same_day_my_goals_are_those_completed_last(api, db, exec_user, employee):
    q4 = make_cycle(db, name="Q4", period_start=date(2026, 10, 1), period_end=date(2026, 12, 31))
    year = make_cycle(db, name="2026", type="annual", period_start=date(2026, 1, 1), period_end=date(2026, 12, 31))
    _completed(db, q4, employee, exec_user, "Q4 goal", date(2027, 1, 5))
    _completed(db, year, employee, exec_user, "Year goal", date(2027, 1, 20))
    assert _my_goals(api, employee) == ("2026", ["Year goal"])
