"""Insights answer organisation-wide salary aggregates to managers (insights:view by default), who may not read
anyone's salary (docs/decisions/admin.md: salary only to admin:manage). The filters (location, gender, to_date)
narrow the people counted to one: then median = min = max = that person's salary. Figures of too few people are
withheld from such callers."""
from datetime import date

from tests.factories import make_user

SECRET_SALARY = 187654
RANGE = "from_date=2025-07-01&to_date=2026-06-30"


def _org(db):
    boss = make_user(db, access_level="executive", start_date=date(2020, 1, 1), salary=250000, location="Sydney")
    manager = make_user(db, access_level="manager", start_date=date(2021, 1, 1), salary=140000, location="Sydney")
    target = make_user(db, name="Tess Target", start_date=date(2022, 1, 1), gender="female", salary=SECRET_SALARY,
                       location="Hobart")
    for i in range(4):
        make_user(db, start_date=date(2023, 1, 1), gender="male", salary=90000 + 1000 * i, location="Sydney")
    return boss, manager, target


def _leaks(body) -> bool:
    return str(SECRET_SALARY) in str(body) or "150k+" in str(
        [band for band in body.get("salary_bands", []) if band["count"]])


def test_a_manager_cannot_isolate_one_persons_salary_with_the_filters(api, db):
    boss, manager, _ = _org(db)
    for query in (f"{RANGE}&location=Hobart", f"{RANGE}&gender=female"):
        for path in ("compensation", "overview"):
            answer = api.get(f"/api/insights/{path}?{query}", as_=manager)
            assert answer.status == 200, answer
            body = answer.json if path == "compensation" else answer.json["compensation"]
            assert body["median_salary"] is None and body["min_salary"] is None and body["max_salary"] is None
            assert not _leaks(body), body
        # the headcount it is not: other figures still answer
        assert api.get(f"/api/insights/overview?{query}", as_=manager).json["headcount"]["total"] == 1
    # an executive (admin:manage) reads salaries anyway: not withheld
    mine = api.get(f"/api/insights/compensation?{RANGE}&location=Hobart", as_=boss).json
    assert mine["median_salary"] == SECRET_SALARY


def test_a_manager_cannot_isolate_the_first_hire_with_to_date(api, db):
    _, manager, _ = _org(db)
    # on 2021-06-30 only the boss (250k) and the manager themselves are employed
    answer = api.get("/api/insights/compensation?from_date=2021-01-01&to_date=2021-06-30", as_=manager)
    assert answer.status == 200 and answer.json["max_salary"] is None and answer.json["salary_bands"] == []


def test_a_large_enough_group_still_answers_the_manager(api, db):
    _, manager, _ = _org(db)
    # 7 people with a salary; today's (session 28: a manager is given salary figures of the whole organisation today)
    body = api.get("/api/insights/compensation", as_=manager).json
    assert body["median_salary"] == 93000.0 and body["min_salary"] == 90000.0
    assert sum(band["count"] for band in body["salary_bands"]) == 7


def test_a_manager_cannot_read_one_persons_age_with_the_filters(api, db):
    """Age in whole years, birthday-exact on to_date: filtered to one person and stepped a day at a time, it
    answered their date of birth, which only admin:view holders read (docs/decisions/admin.md)."""
    _, manager, target = _org(db)
    target.date_of_birth = date(1990, 3, 14)
    db.flush()
    for to_date in ("2026-03-13", "2026-03-14"):
        query = f"from_date=2025-07-01&to_date={to_date}&location=Hobart"
        overview = api.get(f"/api/insights/overview?{query}", as_=manager).json
        assert overview["diversity"]["avg_age"] is None, overview["diversity"]
        diversity = api.get(f"/api/insights/diversity?{query}", as_=manager).json
        assert diversity["age_distribution"] == [], diversity
    # a head (admin:view by default) reads dates of birth anyway
    head = make_user(db, access_level="head")
    shown = api.get("/api/insights/overview?from_date=2025-07-01&to_date=2026-03-14&location=Hobart", as_=head).json
    assert shown["diversity"]["avg_age"] == 36.0
