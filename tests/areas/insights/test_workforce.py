"""Workforce insights at /api/insights against a hand-computed fixture (docs/decisions/insights.md)."""
from datetime import date, timedelta

import pytest

from chalicelib.core.timeutil import org_today
from tests.factories import make_squad, make_user

RANGE = "from_date=2025-07-01&to_date=2026-06-30"


@pytest.fixture
def org(db):
    """Seven people; five employed on 2026-06-30 (boss, mgr, e1, e2, e6), five on 2025-07-01 (boss, mgr, e1, e3,
    e6); e2 started and e3 left inside the range; e4 starts after it; e5 is deactivated without an end date."""
    alpha, beta = make_squad(db, name="Alpha"), make_squad(db, name="Beta")
    boss = make_user(db, name="Boss", access_level="executive", start_date=date(2020, 1, 15),
                     date_of_birth=date(1975, 8, 20), gender="female", salary=250000, location="Sydney",
                     employment_basis="full_time")
    mgr = make_user(db, name="Mgr", access_level="manager", start_date=date(2022, 3, 1), date_of_birth=date(1985, 7, 1),
                    gender="male", salary=140000, location="Sydney", employment_basis="full_time",
                    manager_id=boss.id, squad_id=alpha.id)
    alpha.manager_id = mgr.id
    people = {"boss": boss, "mgr": mgr, "alpha": alpha, "beta": beta}
    people["e1"] = make_user(db, name="E1", start_date=date(2024, 9, 10), date_of_birth=date(1995, 12, 31),
                             gender="female", salary=90000, location="Sydney", employment_basis="full_time",
                             manager_id=mgr.id, squad_id=alpha.id)
    people["e2"] = make_user(db, name="E2", start_date=date(2025, 8, 1), date_of_birth=date(2002, 6, 30),
                             gender="male", salary=60000, location="Melbourne", employment_basis="part_time",
                             manager_id=mgr.id, squad_id=alpha.id)
    people["e3"] = make_user(db, name="E3", start_date=date(2023, 1, 1), end_date=date(2026, 2, 15), is_active=False,
                             gender="female", salary=80000, location="Melbourne", employment_basis="full_time",
                             manager_id=mgr.id, squad_id=alpha.id)
    people["e4"] = make_user(db, name="E4", start_date=date(2026, 7, 15), gender="male", location="Sydney")
    people["e5"] = make_user(db, name="E5", start_date=date(2021, 1, 1), is_active=False, gender="male",
                             location="Sydney")
    people["e6"] = make_user(db, name="E6", start_date=date(2018, 5, 1), manager_id=boss.id, squad_id=beta.id)
    db.flush()
    return people


def _get(api, user, path, query=RANGE):
    answer = api.get(f"/api/insights/{path}?{query}", as_=user)
    assert answer.status == 200, answer
    return answer.json


@pytest.mark.smoke
def test_overview(api, org):
    assert _get(api, org["boss"], "overview") == {
        "headcount": {"total": 5, "growth": 0.0, "starters": 1, "leavers": 1},
        "retention": {"turnover_rate": 20.0, "avg_tenure_months": 51.2},
        "diversity": {"gender": {"female": 2, "male": 2, "unspecified": 1}, "avg_age": 36.0},
        "compensation": {"median_salary": 115000.0, "min_salary": 60000.0, "max_salary": 250000.0},
        "structure": {"avg_span": 2.0, "largest_team": 3, "smallest_team": 1, "emp_to_mgr_ratio": "1.5:1"},
        "location": {"breakdown": [{"name": "Sydney", "count": 3}, {"name": "Melbourne", "count": 1},
                                   {"name": "Unspecified", "count": 1}]},
    }


def test_headcount_series(api, org):
    series = _get(api, org["boss"], "headcount")["series"]
    assert [p["label"] for p in series] == ["2025-07", "2025-08", "2025-09", "2025-10", "2025-11", "2025-12",
                                            "2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "2026-06"]
    by = {p["label"]: (p["headcount"], p["starters"], p["leavers"]) for p in series}
    assert by["2025-07"] == (5, 0, 0) and by["2025-08"] == (6, 1, 0) and by["2026-01"] == (6, 0, 0)
    assert by["2026-02"] == (5, 0, 1) and by["2026-06"] == (5, 0, 0)
    assert sum(p["starters"] for p in series) == 1 and sum(p["leavers"] for p in series) == 1


def test_retention(api, org):
    body = _get(api, org["boss"], "retention")
    assert body["tenure_distribution"] == [{"bucket": "< 1 year", "count": 1}, {"bucket": "1-2 years", "count": 1},
                                           {"bucket": "2-5 years", "count": 1}, {"bucket": "5+ years", "count": 2}]
    by = {p["label"]: p for p in body["turnover_series"]}
    assert by["2026-02"] == {"label": "2026-02", "turnover_rate": 18.2, "leavers": 1, "headcount": 5}  # 1 / 5.5
    assert by["2025-09"] == {"label": "2025-09", "turnover_rate": 0.0, "leavers": 0, "headcount": 6}


def test_diversity(api, org):
    assert _get(api, org["boss"], "diversity") == {
        "gender": [{"gender": "female", "count": 2}, {"gender": "male", "count": 2}, {"gender": "unspecified", "count": 1}],
        "manager_gender": [{"gender": "female", "count": 1}, {"gender": "male", "count": 1}],
        "age_distribution": [{"bucket": "under 25", "count": 1}, {"bucket": "25-34", "count": 1},
                             {"bucket": "35-44", "count": 1}, {"bucket": "45-54", "count": 1},
                             {"bucket": "55+", "count": 0}]}


def test_compensation(api, org):
    assert _get(api, org["boss"], "compensation") == {
        "median_salary": 115000.0, "min_salary": 60000.0, "max_salary": 250000.0,
        "salary_bands": [{"band": "under 50k", "count": 0}, {"band": "50k-75k", "count": 1},
                         {"band": "75k-100k", "count": 1}, {"band": "100k-150k", "count": 1},
                         {"band": "150k+", "count": 1}],
        "employment_basis": [{"basis": "full_time", "count": 3}, {"basis": "part_time", "count": 1},
                             {"basis": "unspecified", "count": 1}]}


def test_structure(api, org):
    assert _get(api, org["boss"], "structure") == {
        "avg_span": 2.0,
        "span_distribution": [{"bucket": "1-3", "count": 2}, {"bucket": "4-6", "count": 0},
                              {"bucket": "7-10", "count": 0}, {"bucket": "11+", "count": 0}],
        "team_sizes": [{"squad_name": "Alpha", "size": 3}, {"squad_name": "Beta", "size": 1}],
        "managers": [{"manager_name": "Boss", "reports": 2}, {"manager_name": "Mgr", "reports": 2}]}


def test_location(api, org):
    assert _get(api, org["boss"], "location") == {
        "breakdown": [{"name": "Sydney", "count": 3, "percentage": 60.0},
                      {"name": "Melbourne", "count": 1, "percentage": 20.0},
                      {"name": "Unspecified", "count": 1, "percentage": 20.0}], "total": 5}


def test_filters(api, org):
    sydney = _get(api, org["boss"], "overview", f"{RANGE}&location=sydney")
    assert sydney["headcount"] == {"total": 3, "growth": 0.0, "starters": 0, "leavers": 0}
    assert sydney["location"]["breakdown"] == [{"name": "Sydney", "count": 3}]
    women = _get(api, org["boss"], "overview", f"{RANGE}&gender=Female")
    assert women["headcount"] == {"total": 2, "growth": -33.3, "starters": 0, "leavers": 1}
    assert women["compensation"]["median_salary"] == 170000.0  # 90k and 250k
    assert _get(api, org["boss"], "location", f"{RANGE}&location=Perth") == {"breakdown": [], "total": 0}


def test_default_range_and_bad_input(api, org):
    series = _get(api, org["boss"], "headcount", "")["series"]
    today = org_today()
    assert series[-1]["label"] == today.strftime("%Y-%m") and len(series) == 13
    assert api.get("/api/insights/overview?from_date=2026-07-01&to_date=2026-06-30", as_=org["boss"]).status == 400
    assert api.get("/api/insights/overview?from_date=2026-13-01", as_=org["boss"]).status == 400
    assert api.get("/api/insights/overview?from_date=1990-01-01&to_date=2026-01-01", as_=org["boss"]).status == 400
    one_day = _get(api, org["boss"], "headcount", "from_date=2026-06-30&to_date=2026-06-30")["series"]
    assert one_day == [{"label": "2026-06", "headcount": 5, "starters": 0, "leavers": 0}]
    assert (today - timedelta(days=400)) < today


@pytest.mark.parametrize("from_date, to_date, months", [
    ("2006-01-15", "2026-01-15", 241),  # exactly 20 years
    ("2006-01-31", "2026-01-01", 241),  # 19 years, 11 months and a day
    ("2004-02-29", "2024-02-29", 241),  # 29 February 20 years before 29 February
    ("2005-02-28", "2025-02-28", 241),
    ("0001-01-01", "0020-12-31", 240),  # no year 20 years before: from the earliest date
])
def test_a_range_of_at_most_20_years_is_accepted(api, org, from_date, to_date, months):
    """docs/decisions/insights.md: a range is 400 when from_date is more than 20 years before to_date; a range of
    exactly 20 years, or a shorter one, touches up to 241 calendar months and was refused (the rule counted them)."""
    answer = api.get(f"/api/insights/headcount?from_date={from_date}&to_date={to_date}", as_=org["boss"])
    assert answer.status == 200, answer
    labels = [point["label"] for point in answer.json["series"]]
    assert len(labels) == months and (labels[0], labels[-1]) == (from_date[:7], to_date[:7])
    assert api.get(f"/api/insights/overview?from_date={from_date}&to_date={to_date}", as_=org["boss"]).status == 200


@pytest.mark.parametrize("from_date, to_date", [
    ("2006-01-14", "2026-01-15"),  # 20 years and a day
    ("2004-02-28", "2024-02-29"),
    ("2005-02-27", "2025-02-28"),
])
@pytest.mark.parametrize("path", ["overview", "headcount", "retention"])
def test_a_range_longer_than_20_years_is_400(api, org, from_date, to_date, path):
    answer = api.get(f"/api/insights/{path}?from_date={from_date}&to_date={to_date}", as_=org["boss"])
    assert answer.status == 400, answer
    assert answer.json == {"error": "The date range may cover at most 20 years",
                           "details": [{"field": "from_date", "message": "at most 20 years before to_date"}]}


def test_access(api, db, org):
    assert api.get("/api/insights/overview", as_=org["mgr"]).status == 200  # view:insights by default
    assert api.get("/api/insights/overview", as_=org["e1"]).status == 403  # employee
    assert api.get("/api/insights/structure", as_=make_user(db, access_level="lead")).status == 403
    assert api.get("/api/insights/location", as_=make_user(db, access_level="head")).status == 200


@pytest.mark.parametrize("path", ["overview", "headcount", "retention", "diversity", "compensation", "structure",
                                  "location"])
def test_statements_do_not_grow_with_users(api, db, org, count_queries, path):
    squad = make_squad(db)
    counts = []
    for n in (10, 490):
        for i in range(n):
            make_user(db, start_date=date(2020 + i % 6, 1 + i % 12, 1 + i % 28), gender=("female", "male")[i % 2],
                      salary=40000 + 1000 * (i % 150), location=("Sydney", "Perth")[i % 2], squad_id=squad.id,
                      manager_id=org["mgr"].id, date_of_birth=date(1970 + i % 30, 1, 1))
        with count_queries() as counter:
            answer = api.get(f"/api/insights/{path}?{RANGE}", as_=org["boss"])
        assert answer.status == 200
        counts.append(counter.count)
    assert counts[0] == counts[1], counts
    if path == "overview" and db.get_bind().dialect.name == "postgresql":
        assert counts[0] == 2, counter.statements  # the caller, then its six aggregates in one (record_sets)


@pytest.mark.parametrize("path", ["overview", "headcount", "retention", "diversity", "compensation", "structure",
                                  "location"])
def test_the_earliest_dates_answer_not_500(api, org, path):
    """to_date in year 1 has no day a year before: from_date starts at 0001-01-01 (was a 500); labels keep four
    digits (YYYY-MM)."""
    answer = api.get(f"/api/insights/{path}?to_date=0001-03-15", as_=org["boss"])
    assert answer.status == 200, answer
    if path == "headcount":
        assert [p["label"] for p in answer.json["series"]] == ["0001-01", "0001-02", "0001-03"]


def test_a_deactivated_account_without_an_end_date_is_no_starter(api, db):
    """docs/decisions/insights.md: a deactivated account without an end date "is counted nowhere"; it was counted as a
    starter (the overview and the series), so a month's headcount plus its starters less its leavers no longer gave
    the next month's (people areas audit)."""
    viewer = make_user(db, access_level="executive", start_date=date(2020, 1, 1))
    make_user(db, start_date=date(2026, 3, 15), is_active=False)
    make_user(db, start_date=date(2026, 3, 20))  # a real starter
    query = "from_date=2026-01-01&to_date=2026-06-30"
    overview = api.get(f"/api/insights/overview?{query}", as_=viewer).json
    assert (overview["headcount"]["total"], overview["headcount"]["starters"]) == (2, 1)
    series = {point["label"]: point for point in api.get(f"/api/insights/headcount?{query}", as_=viewer).json["series"]}
    assert (series["2026-03"]["headcount"], series["2026-03"]["starters"]) == (2, 1)


# ---------------------------------------------------------------- month ends, 29 February, the series' identity

LEAP = "Leapville"


def _in_town(api, user, path, to_date, from_date="2024-01-01"):
    return _get(api, user, path, f"from_date={from_date}&to_date={to_date}&location={LEAP}")


def _bucket(rows, name):
    return next(row["count"] for row in rows if row["bucket"] == name)


@pytest.mark.parametrize("start, to_date, months, bucket", [
    (date(2024, 2, 29), "2025-02-28", 12.0, "1-2 years"),  # 29 February + 1 year is 28 February (was 11)
    (date(2025, 1, 31), "2025-02-28", 1.0, "< 1 year"),  # 31 January + 1 month is February's last day (was 0)
    (date(2024, 1, 31), "2024-02-29", 1.0, "< 1 year"),
    (date(2024, 3, 31), "2025-04-30", 13.0, "1-2 years"),
    (date(2025, 1, 31), "2025-02-27", 0.0, "< 1 year"),  # not the month's last day: not yet a month
    (date(2024, 2, 29), "2025-02-27", 11.0, "< 1 year"),
])
def test_tenure_on_a_month_end_completes_the_month(api, db, exec_user, start, to_date, months, bucket):
    """docs/decisions/insights.md: a day the month lacks is its last day; tenure in whole months was a month short
    on a month's last day when the start's day of the month is later (SQL: the average and the buckets)."""
    make_user(db, name="Starter", start_date=start, location=LEAP)
    assert _in_town(api, exec_user, "overview", to_date)["retention"]["avg_tenure_months"] == months
    assert _bucket(_in_town(api, exec_user, "retention", to_date)["tenure_distribution"], bucket) == 1


@pytest.mark.parametrize("to_date, age, bucket", [
    ("2025-02-28", 25.0, "25-34"),  # their birthday in a common year, as the calendar shows it (was 24)
    ("2025-02-27", 24.0, "under 25"),
    ("2024-02-28", 23.0, "under 25"),  # a leap year: the birthday is the 29th
    ("2024-02-29", 24.0, "under 25"),
])
def test_a_person_born_29_february_turns_a_year_older_on_28_february_of_a_common_year(api, db, exec_user, to_date,
                                                                                      age, bucket):
    make_user(db, name="Leap baby", start_date=date(2020, 1, 1), date_of_birth=date(2000, 2, 29), location=LEAP)
    assert _in_town(api, exec_user, "overview", to_date)["diversity"]["avg_age"] == age
    assert _bucket(_in_town(api, exec_user, "diversity", to_date)["age_distribution"], bucket) == 1


def test_a_month_end_leaver_keeps_the_series_identity(api, db, exec_user):
    """A month's headcount is taken at the end of its last day: a leaver of 31 March is one of March's leavers and
    no longer in March's headcount (they were in it and in its leavers, then missing from April's with no leaver),
    so headcount + next starters - next leavers = next headcount; a month's opening is the month before's closing."""
    make_user(db, name="Stayer", start_date=date(2020, 1, 1), location=LEAP)
    make_user(db, name="Month-end leaver", start_date=date(2020, 1, 1), end_date=date(2026, 3, 31), is_active=False,
              location=LEAP)
    make_user(db, name="Month-start starter", start_date=date(2026, 5, 1), location=LEAP)
    query = f"from_date=2026-01-01&to_date=2026-06-30&location={LEAP}"
    series = _get(api, exec_user, "headcount", query)["series"]
    for before, after in zip(series, series[1:]):
        assert after["headcount"] == before["headcount"] + after["starters"] - after["leavers"], (before, after)
    by = {p["label"]: (p["headcount"], p["starters"], p["leavers"]) for p in series}
    assert by["2026-02"] == (2, 0, 0) and by["2026-03"] == (1, 0, 1) and by["2026-04"] == (1, 0, 0)
    assert by["2026-05"] == (2, 1, 0)
    turnover = {p["label"]: p for p in _get(api, exec_user, "retention", query)["turnover_series"]}
    assert turnover["2026-03"] == {"label": "2026-03", "leavers": 1, "headcount": 1, "turnover_rate": 66.7}  # 1/1.5


def test_a_starter_on_from_date_is_a_starter_not_in_the_opening_headcount(api, db, exec_user):
    """The overview's growth is from the headcount at the end of the day before from_date: a starter on from_date
    was counted there and as a starter (growth 0.0 where the headcount doubled)."""
    make_user(db, name="Stayer", start_date=date(2020, 1, 1), location=LEAP)
    make_user(db, name="First-day starter", start_date=date(2026, 1, 1), location=LEAP)
    overview = _in_town(api, exec_user, "overview", "2026-06-30", from_date="2026-01-01")
    assert overview["headcount"] == {"total": 2, "growth": 100.0, "starters": 1, "leavers": 0}
    assert overview["retention"]["turnover_rate"] == 0.0
    series = _in_town(api, exec_user, "headcount", "2026-06-30", from_date="2026-01-01")["series"]
    assert series[0] == {"label": "2026-01", "headcount": 2, "starters": 1, "leavers": 0}


@pytest.mark.parametrize("salaries, median", [
    (("90000.00", "100000.00", "100000.25", "120000.00"), 100000.13),  # 100000.125 (was 100000.12)
    (("40000.00", "50000.00", "50000.01", "60000.00"), 50000.01),  # 50000.005 (was 50000.0)
    (("40000.00", "50000.01", "60000.00"), 50000.01),
])
def test_the_median_salary_is_rounded_half_up_to_the_cent(api, db, exec_user, salaries, median):
    """The median is money: the exact mean of the two middle salaries, half up to the cent (core.money.cents);
    it was rounded in float."""
    for salary in salaries:
        make_user(db, start_date=date(2020, 1, 1), salary=salary, location=LEAP)
    for path in ("compensation", "overview"):
        body = _in_town(api, exec_user, path, "2026-06-30", from_date="2025-07-01")
        assert (body if path == "compensation" else body["compensation"])["median_salary"] == median, path
