"""The insights area's leaf module: the population of users an answer counts, "employed on a day", tenure and
age in whole months and years, the buckets, and the months of a series. Everything is a SQL expression over
`users`: a figure is an aggregate, never a Python loop over the table.

Definitions (docs/decisions/insights.md):
- a person is employed on day D when they started on or before D (no start date: always), have not left
  before D (end_date null or on/after D), and are active or have an end date (a deactivated account without an
  end date has left at an unknown date and is no longer counted);
- starters of a period: start_date inside it; leavers: end_date inside it (active or not);
- a headcount at the end of a day (a month's end in a series) leaves out those whose last day it was, one at the
  end of the day before a period leaves out its starters: opening + starters - leavers = closing;
- the figures of a range describe the people employed on `to_date` unless stated otherwise.
"""
from __future__ import annotations

import calendar
from datetime import date, timedelta

from sqlalchemy import Date, String, and_, case, extract, false, func, literal, or_, select, true, union_all

from chalicelib.core.errors import BadRequest
from chalicelib.core.models import User
from chalicelib.core.timeutil import org_today

MAX_YEARS = 20  # from_date at most 20 years before to_date
MAX_MONTHS = MAX_YEARS * 12 + 1  # so a series touches at most 241 months (2006-01-15 to 2026-01-15 touches 241)

TENURE_BUCKETS = (("< 1 year", 0, 12), ("1-2 years", 12, 24), ("2-5 years", 24, 60), ("5+ years", 60, None))
AGE_BUCKETS = (("under 25", 0, 25), ("25-34", 25, 35), ("35-44", 35, 45), ("45-54", 45, 55), ("55+", 55, None))
SALARY_BANDS = (("under 50k", 0, 50000), ("50k-75k", 50000, 75000), ("75k-100k", 75000, 100000),
                ("100k-150k", 100000, 150000), ("150k+", 150000, None))
SPAN_BUCKETS = (("1-3", 1, 4), ("4-6", 4, 7), ("7-10", 7, 11), ("11+", 11, None))
UNSPECIFIED = "unspecified"


def sees_salaries(ctx) -> bool:
    """Salaries are read by admin:manage holders only (docs/decisions/admin.md, as the admin area's sees_salary)."""
    return ctx.can("admin", "manage")


def sees_user_records(ctx) -> bool:
    """The rest of the user record (date of birth, end date, gender, location) is read by admin:view holders only
    (docs/decisions/admin.md: the admin area's user reads)."""
    return ctx.can("admin", "view")


def date_range(ctx, query) -> tuple[date, date]:
    """(from, to): to_date defaults to today in ORG_TIMEZONE, from_date to the same day a year before. A to_date after
    today is 400 for a caller who may not read end dates (sees_user_records): the people employed on a future day
    answer the last days an administrator has recorded ahead (docs/decisions/insights.md, "Small groups")."""
    today = org_today()
    to_day = query.to_date or today
    if to_day > today and not sees_user_records(ctx):
        raise BadRequest("to_date must not be after today",
                         details=[{"field": "to_date", "message": "must not be after today"}])
    from_day = query.from_date or _year_before(to_day)
    if from_day > to_day:
        raise BadRequest("from_date must not be after to_date",
                         details=[{"field": "from_date", "message": "must not be after to_date"}])
    if from_day < _years_before(to_day, MAX_YEARS):  # the length of the range, not the calendar months it touches
        raise BadRequest("The date range may cover at most 20 years",
                         details=[{"field": "from_date", "message": "at most 20 years before to_date"}])
    return from_day, to_day


def _year_before(day: date) -> date:
    return _years_before(day, 1)


def _years_before(day: date, years: int) -> date:
    """The same day `years` years before (28 February for a 29 February that year lacks); the earliest date when
    that is before year 1."""
    if day.year - years < date.min.year:  # no such year: the range may start at the earliest date
        return date.min
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February
        return day.replace(year=day.year - years, day=28)


def whole_organisation_today(query, end: date) -> bool:
    """No location or gender filter, and the figures describe today (`end`, date_range's to_date): the only
    population whose salary and age figures a caller who may not read those fields is given (two filtered groups,
    or two days, differing by one person answered that person's figures)."""
    return not (query.location or query.gender) and end == org_today()


def folded(column):
    """A value staff type freely (location, gender, employment basis: free text of the user record, kept as typed)
    as compared: letter case and surrounding spaces aside, so "Sydney", "sydney" and "Sydney " are one place (session
    32: the filter did not trim the stored value, and the breakdowns told the spellings apart)."""
    return func.lower(func.trim(column))


def typed(column, unspecified: str = UNSPECIFIED):
    """The spelling a breakdown row counts: the value trimmed, a missing or blank one `unspecified` (a blank gender
    made a row of its own). Rows are grouped by it letter case aside (service `_spellings_select`)."""
    return func.coalesce(func.nullif(func.trim(column), ""), unspecified)


def filters(query, user=User) -> list:
    """The population filters: location and gender, letter case and surrounding spaces aside (`folded`)."""
    out = []
    if query.location:
        out.append(folded(user.location) == query.location.strip().lower())
    if query.gender:
        out.append(folded(user.gender) == query.gender.strip().lower())
    return out


def accounted(user=User):
    """Active, or with an end date: a deactivated account without one left at an unknown date and is counted nowhere
    (docs/decisions/insights.md, "Who is counted")."""
    return or_(user.is_active.is_(True), user.end_date.is_not(None))


def employed_on(day, user=User):
    return and_(or_(user.start_date.is_(None), user.start_date <= day),
                or_(user.end_date.is_(None), user.end_date >= day),
                accounted(user))


def employed_after(day, user=User):
    """Employed at the end of `day`: as employed_on, less those whose last day it is (they count as leavers of
    the period holding `day`)."""
    return and_(or_(user.start_date.is_(None), user.start_date <= day),
                or_(user.end_date.is_(None), user.end_date > day),
                accounted(user))


def employed_before(day, user=User):
    """Employed at the end of the day before `day`: as employed_on, less those who start on `day` (they count as
    starters of the period from `day`). No date arithmetic: `day` may be 0001-01-01 or a column."""
    return and_(or_(user.start_date.is_(None), user.start_date < day),
                or_(user.end_date.is_(None), user.end_date >= day),
                accounted(user))


def started_between(start, end, user=User):
    """Starters of a period: `start_date` inside it, among the accounted (a deactivated account without an end date
    counted as a starter broke the series: headcount plus starters less leavers no longer gave the next headcount)."""
    return and_(between(user.start_date, start, end), accounted(user))


def between(column, start, end):
    return and_(column.is_not(None), column >= start, column <= end)


def count_if(condition):
    return func.count(case((condition, 1)))


def _month_end(day: date) -> bool:
    return day.day == calendar.monthrange(day.year, day.month)[1]


def _short_of(since, day: date):
    """True when `day` falls before the day of the month of `since` in its month: a month (or year) from `since`
    is not yet complete. A day the month lacks is its last day (31 January + 1 month is 28 February, 29 February
    + 1 year is 28 February), so on a month's last day it is complete whatever the day of `since`."""
    return false() if _month_end(day) else extract("day", since) > day.day


def whole_months(since, day: date):
    """Whole months from the date column `since` to the constant `day` (_short_of: a month's last day completes
    the month)."""
    return ((day.year - extract("year", since)) * 12 + (day.month - extract("month", since))
            - case((_short_of(since, day), 1), else_=0))


def whole_years(since, day: date):
    """Whole years (an age) from the date column `since` to the constant `day` (one born 29 February is a year
    older on 28 February of a common year, their birthday there, as the calendar shows it)."""
    later_birthday = or_(extract("month", since) > day.month,
                         and_(extract("month", since) == day.month, _short_of(since, day)))
    return day.year - extract("year", since) - case((later_birthday, 1), else_=0)


def bucket(value, buckets, *, else_=None):
    """A CASE naming the bucket whose [low, high) holds `value`."""
    whens = [((value >= low) if high is None else and_(value >= low, value < high), name)
             for name, low, high in buckets]
    return case(*whens, else_=else_)


def months(from_day: date, to_day: date) -> list[tuple[str, date, date]]:
    """`(label YYYY-MM, first day, last day)` of each month the range touches, cut to the range; at most MAX_MONTHS
    (date_range refuses a longer range)."""
    out = []
    year, month = from_day.year, from_day.month
    while (year, month) <= (to_day.year, to_day.month):
        first = date(year, month, 1)
        last = date(year, month, calendar.monthrange(year, month)[1])
        # the label by hand: strftime("%Y") drops the leading zeros of a year before 1000
        out.append((f"{year:04d}-{month:02d}", max(first, from_day), min(last, to_day)))
        if len(out) >= MAX_MONTHS:
            break
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


def months_table(from_day: date, to_day: date):
    """The months of the range as a SQL table (label, month_start, month_end): a UNION ALL of constants, so
    one grouped statement answers a whole series on PostgreSQL and SQLite alike."""
    rows = [select(literal(label, String).label("label"), literal(first, Date).label("month_start"),
                   literal(last, Date).label("month_end"))
            for label, first, last in months(from_day, to_day)]
    table = rows[0] if len(rows) == 1 else union_all(*rows)
    return table.subquery("months")


def population(query, *conditions, user=User):
    """A SELECT's WHERE for the filtered users (and more conditions)."""
    return and_(true(), *filters(query, user), *conditions)


def percent(part, whole) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def one_decimal(value) -> float | None:
    return None if value is None else round(float(value), 1)


__all__ = ["sees_salaries", "sees_user_records", "date_range", "whole_organisation_today", "filters", "employed_on",
           "employed_after", "employed_before", "between", "count_if", "whole_months", "whole_years", "bucket",
           "months", "months_table", "population", "percent", "one_decimal", "timedelta"]
