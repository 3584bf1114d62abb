"""Workforce insights (document 2, Insights): overview, headcount, retention, diversity, compensation,
structure and location, each a fixed number of aggregate statements over `users` whatever their number
(definitions in queries.py and docs/decisions/insights.md). Figures are organisation-wide for every holder of
insights:view (manager, head and executive by default); salary and age figures, future days and the managers named
under a filter only to callers who may read those fields of the user record ("Small groups")."""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import BigInteger, and_, cast, func, or_, select
from sqlalchemy.orm import aliased

from chalicelib.core.models import Squad, User
from chalicelib.core.money import cents
from chalicelib.core.query import LIST_LIMIT, record_sets

from .service_capacity import project_changed  # noqa: F401 - called by the projects area
from .queries import (AGE_BUCKETS, SALARY_BANDS, SPAN_BUCKETS, TENURE_BUCKETS, between, bucket, count_if,
                      date_range, employed_after, employed_before, employed_on, months_table, one_decimal, percent,
                      population, sees_salaries, sees_user_records, started_between, typed, whole_months,
                      whole_organisation_today, whole_years)


def _filled(rows, buckets, key="bucket") -> list[dict]:
    found = dict(rows)
    return [{key: name, "count": found.get(name, 0)} for name, _, _ in buckets]


# ---------------------------------------------------------------- pieces (one statement each)

def _headline_select(query, start, end):
    return select(
        count_if(employed_on(end)).label("total"), count_if(employed_before(start)).label("at_start"),
        count_if(started_between(start, end)).label("starters"),
        count_if(between(User.end_date, start, end)).label("leavers"),
        func.avg(whole_months(User.start_date, end)).filter(employed_on(end), User.start_date.is_not(None))
        .label("tenure"),
        func.avg(whole_years(User.date_of_birth, end)).filter(employed_on(end), User.date_of_birth.is_not(None))
        .label("age"),
        count_if(and_(employed_on(end), User.date_of_birth.is_not(None))).label("aged"),
    ).where(population(query))


def _headline(row: dict) -> dict:
    """The headline figures of `_headline_select`'s one row."""
    total, at_start, starters, leavers = (int(row[key]) for key in ("total", "at_start", "starters", "leavers"))
    tenure, age = row["tenure"], row["age"]
    average = (total + at_start) / 2
    return {"total": total, "at_start": at_start, "starters": starters, "leavers": leavers,
            "growth": round(100.0 * (total - at_start) / at_start, 1) if at_start else None,
            "turnover_rate": round(100.0 * leavers / average, 1) if average else 0.0,
            "avg_tenure_months": one_decimal(tenure), "avg_age": one_decimal(age)}


def _grouped_select(inner):
    """Rows (k, n) of a one-column SELECT labelled `k`, grouped in an outer statement (a CASE or COALESCE
    with bound parameters cannot be repeated in GROUP BY), most frequent first (at most LIST_LIMIT)."""
    sub = inner.subquery("keyed")
    return (select(sub.c.k, func.count().label("n")).group_by(sub.c.k).order_by(func.count().desc(), sub.c.k)
            .limit(LIST_LIMIT))


def _spellings_select(inner):
    """Rows (k, n) of a one-column SELECT labelled `k` of typed values (queries.typed: trimmed, blank unspecified),
    one row per value letter case aside, named by its most frequent spelling (then the first in order), most
    frequent first (at most LIST_LIMIT). Session 32: "Sydney", "sydney" and "Sydney " were three rows, while the
    location filter counted them as one place. Still one statement: the spellings are counted, then ranked within
    their value by a window."""
    rows = inner.subquery("typed_values")
    key = func.lower(rows.c.k)
    spelled = (select(key.label("key"), rows.c.k.label("k"), func.count().label("n"))
               .group_by(key, rows.c.k).subquery("spellings"))
    ranked = select(spelled.c.k, func.sum(spelled.c.n).over(partition_by=spelled.c.key).label("total"),
                    func.row_number().over(partition_by=spelled.c.key, order_by=(spelled.c.n.desc(), spelled.c.k))
                    .label("rn")).subquery("ranked_spellings")
    return (select(ranked.c.k, cast(ranked.c.total, BigInteger).label("n")).where(ranked.c.rn == 1)
            .order_by(ranked.c.total.desc(), ranked.c.k).limit(LIST_LIMIT))


def _grouped(db, inner) -> list[tuple[str, int]]:
    """`(key, count)` of `_grouped_select(inner)`."""
    return [(key, count) for key, count in db.execute(_grouped_select(inner))]


def _pairs(records) -> list[tuple[str, int]]:
    return [(record["k"], int(record["n"])) for record in records]


def _counts_select(query, end, column, *conditions):
    """(k, n) rows of a typed field (gender, employment basis) of the people employed on `end`."""
    return _spellings_select(select(typed(column).label("k")).where(population(query, employed_on(end), *conditions)))


def _counts_by(db, query, end, column, *conditions) -> list[tuple[str, int]]:
    return [(key, count) for key, count in db.execute(_counts_select(query, end, column, *conditions))]


def _salary_select(query, end):
    ranked = (select(User.salary.label("salary"), func.row_number().over(order_by=User.salary).label("rn"),
                     func.count().over().label("n"))
              .where(population(query, employed_on(end), User.salary.is_not(None))).subquery())
    middle = or_(ranked.c.rn == (ranked.c.n + 1) // 2, ranked.c.rn == (ranked.c.n + 2) // 2)
    return select(func.min(ranked.c.salary).label("low"), func.max(ranked.c.salary).label("high"),
                  func.min(ranked.c.salary).filter(middle).label("mid_low"),
                  func.max(ranked.c.salary).filter(middle).label("mid_high"), func.count().label("people"))


# Salary and age figures are given to callers who may not read salaries (admin:manage) or dates of birth
# (admin:view; docs/decisions/admin.md) only for the whole organisation today, and only of at least this many
# people (docs/decisions/insights.md, "Small groups"): a filter or a to_date could leave one person, and two groups
# or two days differing by one person answer that person's figures by their difference.
MIN_GROUP = 5


def _withheld(may_read: bool, query, end, people) -> bool:
    return not may_read and (not whole_organisation_today(query, end) or int(people or 0) < MIN_GROUP)


def _salary_withheld(ctx, query, end, people) -> bool:
    return _withheld(sees_salaries(ctx), query, end, people)


def _age_withheld(ctx, query, end, people) -> bool:
    """An age is birthday-exact on `to_date`: stepped a day at a time, it answers a date of birth."""
    return _withheld(sees_user_records(ctx), query, end, people)


def _salary(row: dict, withheld: bool) -> dict:
    """The salary figures of `_salary_select`'s one row (null when withheld from this caller); the median is money:
    the exact mean of the middle salaries (Decimal) rounded half up to the cent (core.money)."""
    if withheld:
        return {"median_salary": None, "min_salary": None, "max_salary": None}
    low, high, mid_low, mid_high = row["low"], row["high"], row["mid_low"], row["mid_high"]
    # exact, then half up. str(): the overview reads salaries as JSON floats (core.query.record_sets), and a
    # Numeric(14, 2)'s float prints back as its two decimals
    median = None if mid_low is None else cents((Decimal(str(mid_low)) + Decimal(str(mid_high))) / 2)
    return {"median_salary": None if median is None else float(median),
            "min_salary": None if low is None else float(low), "max_salary": None if high is None else float(high)}


_REPORT = aliased(User, name="report")  # once per process: an alias proxies its table's columns on first use


def _reports(query, end):
    """A subquery (manager_id, reports) of the employed, filtered people's managers and their report counts."""
    report = _REPORT
    return (select(report.manager_id.label("manager_id"), func.count().label("reports"))
            .where(population(query, employed_on(end, report), report.manager_id.is_not(None), user=report))
            .group_by(report.manager_id).subquery("reports"))


def _managers(query, end):
    """(manager_id, name, gender, reports) of the employed, filtered people who have employed reports."""
    reports = _reports(query, end)
    return (select(User.id.label("id"), User.name.label("name"), User.gender.label("gender"),
                   reports.c.reports.label("reports"))
            .join(reports, reports.c.manager_id == User.id)
            .where(population(query, employed_on(end))).subquery("managers"))


def _span_select(query, end):
    managers = _managers(query, end)
    return select(func.avg(managers.c.reports).label("avg"), func.count().label("n"))


def _span(row: dict) -> tuple[float | None, int]:
    return one_decimal(row["avg"]), int(row["n"])


def _squad_sizes(query, end):
    members = (select(User.squad_id.label("squad_id"), func.count().label("size"))
               .where(population(query, employed_on(end), User.squad_id.is_not(None)))
               .group_by(User.squad_id).subquery("members"))
    return members


def _team_extremes_select(query, end):
    members = _squad_sizes(query, end)
    return select(func.max(members.c.size).label("largest"), func.min(members.c.size).label("smallest"))


def _ratio(headcount: int, managers: int) -> str:
    if not managers:
        return "0:1"
    value = round((headcount - managers) / managers, 1)
    return f"{value:g}:1"


def _locations_select(query, end):
    return _spellings_select(select(typed(User.location, "Unspecified").label("k"))
                             .where(population(query, employed_on(end))))


def _locations(records) -> list[dict]:
    return [{"name": name, "count": count} for name, count in _pairs(records)]


def _one(records) -> dict:
    return records[0]


def _series(db, query, start, end) -> list[dict]:
    """Per month: headcount at the end of the day before the month (opening) and at the end of its last day
    (closing: a leaver of that day is a leaver of the month, not in its headcount), starters and leavers (one
    grouped statement); closing = opening + starters - leavers, and a month's opening is the month before's
    closing."""
    months = months_table(start, end)
    person = and_(User.id.is_not(None))
    stmt = (select(months.c.label, count_if(and_(person, employed_before(months.c.month_start))),
                   count_if(and_(person, employed_after(months.c.month_end))),
                   count_if(started_between(months.c.month_start, months.c.month_end)),
                   count_if(between(User.end_date, months.c.month_start, months.c.month_end)))
            .select_from(months).outerjoin(User, population(query))
            .group_by(months.c.label).order_by(months.c.label))
    return [{"label": label, "opening": opening, "headcount": closing, "starters": starters, "leavers": leavers}
            for label, opening, closing, starters, leavers in db.execute(stmt)]


# ---------------------------------------------------------------- endpoints

def overview(ctx, query) -> dict:
    """Six independent aggregates, read in one round trip (core.query.record_sets)."""
    start, end = date_range(ctx, query)
    reads = record_sets(ctx.db, head=_headline_select(query, start, end), span=_span_select(query, end),
                        teams=_team_extremes_select(query, end),
                        gender=_counts_select(query, end, User.gender),
                        salary=_salary_select(query, end), locations=_locations_select(query, end))
    head = _headline(_one(reads["head"]))
    if _age_withheld(ctx, query, end, _one(reads["head"])["aged"]):
        head["avg_age"] = None
    salary = _one(reads["salary"])
    avg_span, managers = _span(_one(reads["span"]))
    teams = _one(reads["teams"])
    largest, smallest = teams["largest"], teams["smallest"]
    return {
        "headcount": {"total": head["total"], "growth": head["growth"], "starters": head["starters"],
                      "leavers": head["leavers"]},
        "retention": {"turnover_rate": head["turnover_rate"], "avg_tenure_months": head["avg_tenure_months"]},
        "diversity": {"gender": dict(_pairs(reads["gender"])), "avg_age": head["avg_age"]},
        "compensation": _salary(salary, _salary_withheld(ctx, query, end, salary["people"])),
        "structure": {"avg_span": avg_span, "largest_team": largest, "smallest_team": smallest,
                      "emp_to_mgr_ratio": _ratio(head["total"], managers)},
        "location": {"breakdown": _locations(reads["locations"])},
    }


def headcount(ctx, query) -> dict:
    start, end = date_range(ctx, query)
    return {"series": [{key: point[key] for key in ("label", "headcount", "starters", "leavers")}
                       for point in _series(ctx.db, query, start, end)]}


def retention(ctx, query) -> dict:
    db = ctx.db
    start, end = date_range(ctx, query)
    rows = _grouped(db, select(bucket(whole_months(User.start_date, end), TENURE_BUCKETS).label("k"))
                    .where(population(query, employed_on(end), User.start_date.is_not(None))))
    series = []
    for point in _series(db, query, start, end):
        average = (point["opening"] + point["headcount"]) / 2
        series.append({"label": point["label"], "leavers": point["leavers"], "headcount": point["headcount"],
                       "turnover_rate": round(100.0 * point["leavers"] / average, 1) if average else 0.0})
    return {"tenure_distribution": _filled(rows, TENURE_BUCKETS), "turnover_series": series}


def diversity(ctx, query) -> dict:
    db = ctx.db
    _, end = date_range(ctx, query)
    managers = _managers(query, end)
    by_manager = [(key, count) for key, count in db.execute(_spellings_select(select(typed(managers.c.gender)
                                                                                       .label("k"))))]
    ages = _grouped(db, select(bucket(whole_years(User.date_of_birth, end), AGE_BUCKETS).label("k"))
                    .where(population(query, employed_on(end), User.date_of_birth.is_not(None))))
    return {"gender": [{"gender": g, "count": c} for g, c in _counts_by(db, query, end, User.gender)],
            "manager_gender": [{"gender": g, "count": c} for g, c in by_manager],
            "age_distribution": [] if _age_withheld(ctx, query, end, sum(count for _, count in ages))
            else _filled(ages, AGE_BUCKETS)}


def compensation(ctx, query) -> dict:
    db = ctx.db
    _, end = date_range(ctx, query)
    bands = _grouped(db, select(bucket(User.salary, SALARY_BANDS).label("k"))
                     .where(population(query, employed_on(end), User.salary.is_not(None))))
    row = db.execute(_salary_select(query, end)).one()._mapping
    withheld = _salary_withheld(ctx, query, end, row["people"])  # bands place each person of a small group
    return {**_salary(row, withheld), "salary_bands": [] if withheld else _filled(bands, SALARY_BANDS, key="band"),
            "employment_basis": [{"basis": b, "count": c}
                                 for b, c in _counts_by(db, query, end, User.employment_basis)]}


def _names_withheld(ctx, query) -> bool:
    """The managers named under a location or gender filter are those of that location or gender: a caller who may
    not read the user record (admin:view) is given the counts without the names."""
    return bool(query.location or query.gender) and not sees_user_records(ctx)


def structure(ctx, query) -> dict:
    db = ctx.db
    _, end = date_range(ctx, query)
    managers = _managers(query, end)
    spans = _grouped(db, select(bucket(managers.c.reports, SPAN_BUCKETS).label("k")))
    members = _squad_sizes(query, end)
    size = func.coalesce(members.c.size, 0)
    teams = db.execute(select(Squad.name, size).outerjoin(members, members.c.squad_id == Squad.id)
                       .order_by(size.desc(), Squad.name).limit(LIST_LIMIT)).all()
    people = [] if _names_withheld(ctx, query) else (
        db.execute(select(managers.c.name, managers.c.reports)
                   .order_by(managers.c.reports.desc(), managers.c.name, managers.c.id)  # names repeat
                   .limit(LIST_LIMIT)).all())
    avg_span, _ = _span(db.execute(_span_select(query, end)).one()._mapping)
    return {"avg_span": avg_span, "span_distribution": _filled(spans, SPAN_BUCKETS),
            "team_sizes": [{"squad_name": name, "size": count} for name, count in teams],
            "managers": [{"manager_name": name, "reports": count} for name, count in people]}


def location(ctx, query) -> dict:
    _, end = date_range(ctx, query)
    rows = _locations({"k": k, "n": n} for k, n in ctx.db.execute(_locations_select(query, end)))
    total = ctx.db.scalar(select(func.count()).select_from(User).where(population(query, employed_on(end))))
    return {"breakdown": [{**row, "percentage": percent(row["count"], total)} for row in rows], "total": total}
