"""Session 28 (audit fields2): insights answered a manager (insights:view, no admin access) figures from which one
named colleague's salary, age, planned last day or gender could be read, although only admin:manage holders read
salaries and only admin:view holders the rest of the user record (docs/decisions/admin.md). Salary and age figures
now describe the whole organisation today for such callers, a future to_date is refused them, and the managers
named under a filter are withheld from them (docs/decisions/insights.md, "Small groups")."""
from datetime import date, timedelta

from chalicelib.core.timeutil import org_today
from tests.factories import make_squad, make_user

SECRET_SALARY = 123456
TESS_BORN = date(1990, 3, 14)


def _get(api, user, path, query=""):
    answer = api.get(f"/api/insights/{path}?{query}", as_=user)
    assert answer.status == 200, answer
    return answer.json


def _sydney(db):
    """Sydney: five men (salaries 60k to 210k, born 1980 to 1984) and one woman, Tess (123,456, born 14 March
    1990), all employed since 2021; a manager in Perth asks."""
    manager = make_user(db, access_level="manager", name="Max Manager", start_date=date(2019, 1, 1),
                        location="Perth")
    for i, salary in enumerate((60000, 70000, 80000, 200000, 210000)):
        make_user(db, name=f"Man {i}", start_date=date(2020, 1, 1), gender="male", salary=salary, location="Sydney",
                  date_of_birth=date(1980 + i, 1, 1))
    make_user(db, name="Tess Target", start_date=date(2021, 1, 1), gender="female", salary=SECRET_SALARY,
              location="Sydney", date_of_birth=TESS_BORN)
    return manager


def _salary_figures(body):
    return body["median_salary"], body["min_salary"], body["max_salary"], body["salary_bands"]


def test_a_manager_cannot_difference_two_filtered_groups_for_one_salary(api, db):
    """Six in Sydney, five Sydney men: 2 x median(6) - median(5) was Tess's salary, and the band whose count differed
    hers. Filtered salary figures are withheld from a manager, however many people they cover."""
    manager = _sydney(db)
    everyone = _get(api, manager, "compensation", "location=Sydney")
    men = _get(api, manager, "compensation", "location=Sydney&gender=male")
    assert _salary_figures(everyone) == _salary_figures(men) == (None, None, None, [])


def test_a_manager_cannot_step_to_date_over_a_starters_first_day_for_their_salary(api, db):
    """Without a filter: the organisation on the day before a starter's first day and on that day differs by the
    starter alone. Salary figures of a day other than today are withheld from a manager."""
    manager = _sydney(db)
    first_day = org_today() - timedelta(days=30)
    make_user(db, name="New Starter", start_date=first_day, salary=99999)
    for day in (first_day - timedelta(days=1), first_day):
        body = _get(api, manager, "compensation", f"to_date={day.isoformat()}")
        assert _salary_figures(body) == (None, None, None, []), day


def test_a_manager_still_reads_the_whole_organisations_salaries_today(api, db):
    """to_date given as today (or left out) and no filter: the organisation's figures answer (six salaries)."""
    manager = _sydney(db)
    for query in ("", f"to_date={org_today().isoformat()}"):
        body = _get(api, manager, "compensation", query)
        assert (body["median_salary"], body["min_salary"]) == (101728.0, 60000.0), query
        assert sum(band["count"] for band in body["salary_bands"]) == 6


def test_a_manager_cannot_difference_two_filtered_groups_for_one_age(api, db):
    """The same two groups: the age bucket whose count differed was Tess's."""
    manager = _sydney(db)
    for query in ("location=Sydney", "location=Sydney&gender=male"):
        assert _get(api, manager, "diversity", query)["age_distribution"] == [], query
        assert _get(api, manager, "overview", query)["diversity"]["avg_age"] is None, query


def test_a_manager_cannot_step_to_date_over_a_birthday(api, db):
    """The organisation's average age moved between 13 and 14 March, Tess's birthday: ages of a day other than today
    are withheld from a manager."""
    manager = _sydney(db)
    birthday = date(org_today().year - 1, TESS_BORN.month, TESS_BORN.day)
    for day in (birthday - timedelta(days=1), birthday):
        overview = _get(api, manager, "overview", f"to_date={day.isoformat()}")
        assert overview["diversity"]["avg_age"] is None, day
        assert _get(api, manager, "diversity", f"to_date={day.isoformat()}")["age_distribution"] == [], day


def test_an_administrator_reads_filtered_salaries_and_ages_of_any_day(api, db, exec_user):
    """admin:manage (an executive) reads salaries and admin:view dates of birth: nothing is withheld from them."""
    _sydney(db)
    query = "to_date=2026-03-14&location=Sydney&gender=female"
    assert _get(api, exec_user, "compensation", query)["median_salary"] == SECRET_SALARY
    assert _get(api, exec_user, "overview", query)["diversity"]["avg_age"] == 36.0


def _mia_leaves(db, last_day):
    """Mia, a manager of three, leaves on `last_day`, recorded by an administrator and not announced."""
    squad = make_squad(db)
    mia = make_user(db, access_level="manager", name="Mia Leaving", start_date=date(2019, 1, 1), end_date=last_day,
                    squad_id=squad.id)
    for i in range(3):
        make_user(db, name=f"Report {i}", start_date=date(2020, 1, 1), manager_id=mia.id, squad_id=squad.id)


def test_a_future_to_date_is_400_for_a_manager(api, db):
    """The managers named on a future day, and the leavers of future months, answered Mia's planned last day (an
    end date: admin:view only)."""
    asking = make_user(db, access_level="manager", name="Asking Manager", start_date=date(2019, 1, 1))
    last_day = org_today() + timedelta(days=120)
    _mia_leaves(db, last_day)
    for path in ("structure", "headcount", "overview"):
        answer = api.get(f"/api/insights/{path}?to_date={(last_day + timedelta(days=1)).isoformat()}", as_=asking)
        assert answer.status == 400, (path, answer)
        assert answer.json == {"error": "to_date must not be after today",
                               "details": [{"field": "to_date", "message": "must not be after today"}]}


def test_a_head_may_ask_a_future_to_date(api, db):
    """A head holds admin:view (reads end dates): a future to_date answers them."""
    head = make_user(db, access_level="head", start_date=date(2019, 1, 1))
    last_day = org_today() + timedelta(days=120)
    _mia_leaves(db, last_day)
    managers = _get(api, head, "structure", f"to_date={(last_day + timedelta(days=1)).isoformat()}")["managers"]
    assert "Mia Leaving" not in [m["manager_name"] for m in managers]


def _sam(db):
    """Sam, recorded non-binary, manages five people, one of them non-binary."""
    sam = make_user(db, access_level="manager", name="Sam Named", gender="nonbinary", start_date=date(2019, 1, 1),
                    location="Hobart")
    for i, gender in enumerate(("nonbinary", "female", "male", "female", "male")):
        make_user(db, name=f"Report {i}", start_date=date(2020, 1, 1), manager_id=sam.id, gender=gender,
                  location="Hobart")
    return sam


def test_a_manager_is_not_told_which_named_managers_match_the_gender_filter(api, db):
    """structure?gender=nonbinary named the non-binary managers (gender: admin:view only); the counts stay."""
    asking = make_user(db, access_level="manager", name="Asking Manager", start_date=date(2019, 1, 1))
    _sam(db)
    body = _get(api, asking, "structure", "gender=nonbinary")
    assert body["managers"] == []
    assert body["avg_span"] == 1.0 and {"bucket": "1-3", "count": 1} in body["span_distribution"]


def test_a_manager_is_not_told_which_named_managers_match_the_location_filter(api, db):
    """Location is in the same record (admin:view only): the managers named under a location filter are withheld
    too."""
    asking = make_user(db, access_level="manager", name="Asking Manager", start_date=date(2019, 1, 1))
    _sam(db)
    assert _get(api, asking, "structure", "location=Hobart")["managers"] == []


def test_a_head_reads_the_managers_named_under_a_filter(api, db):
    head = make_user(db, access_level="head", start_date=date(2019, 1, 1))
    _sam(db)
    assert _get(api, head, "structure", "gender=nonbinary")["managers"] == [{"manager_name": "Sam Named",
                                                                             "reports": 1}]
