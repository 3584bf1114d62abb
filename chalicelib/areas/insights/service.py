"""Workforce insights (document 2, Insights): overview, headcount, retention, diversity, compensation,
structure and location, each a fixed number of aggregate statements over `users` whatever their number
(definitions in queries.py and docs/decisions/insights.md). Figures are organisation-wide for every holder of
insights:view (manager, head and executive by default)."""
from __future__ import annotations

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import aliased

from chalicelib.core.models import Squad, User
from chalicelib.core.query import LIST_LIMIT

from .service_capacity import project_changed  # noqa: F401 - called by the projects area
from .queries import (AGE_BUCKETS, SALARY_BANDS, SPAN_BUCKETS, TENURE_BUCKETS, UNSPECIFIED, between, bucket, count_if,
                      date_range, employed_on, months_table, one_decimal, percent, population, whole_months,
                      whole_years)


def _filled(rows, buckets, key="bucket") -> list[dict]:
    found = dict(rows)
    return [{key: name, "count": found.get(name, 0)} for name, _, _ in buckets]


# ---------------------------------------------------------------- pieces (one statement each)

def _headline(db, query, start, end) -> dict:
    row = db.execute(select(
        count_if(employed_on(end)), count_if(employed_on(start)),
        count_if(between(User.start_date, start, end)), count_if(between(User.end_date, start, end)),
        func.avg(whole_months(User.start_date, end)).filter(employed_on(end), User.start_date.is_not(None)),
        func.avg(whole_years(User.date_of_birth, end)).filter(employed_on(end), User.date_of_birth.is_not(None)),
    ).where(population(query))).one()
    total, at_start, starters, leavers, tenure, age = row
    average = (total + at_start) / 2
    return {"total": total, "at_start": at_start, "starters": starters, "leavers": leavers,
            "growth": round(100.0 * (total - at_start) / at_start, 1) if at_start else None,
            "turnover_rate": round(100.0 * leavers / average, 1) if average else 0.0,
            "avg_tenure_months": one_decimal(tenure), "avg_age": one_decimal(age)}


def _grouped(db, inner) -> list[tuple[str, int]]:
    """`(key, count)` of a one-column SELECT labelled `k`, grouped in an outer statement (a CASE or COALESCE
    with bound parameters cannot be repeated in GROUP BY), most frequent first."""
    sub = inner.subquery("keyed")
    stmt = select(sub.c.k, func.count()).group_by(sub.c.k).order_by(func.count().desc(), sub.c.k)
    return [(key, count) for key, count in db.execute(stmt)]


def _counts_by(db, query, end, column, *conditions) -> list[tuple[str, int]]:
    return _grouped(db, select(func.coalesce(column, UNSPECIFIED).label("k"))
                    .where(population(query, employed_on(end), *conditions)))


def _salary(db, query, end) -> dict:
    ranked = (select(User.salary.label("salary"), func.row_number().over(order_by=User.salary).label("rn"),
                     func.count().over().label("n"))
              .where(population(query, employed_on(end), User.salary.is_not(None))).subquery())
    middle = or_(ranked.c.rn == (ranked.c.n + 1) // 2, ranked.c.rn == (ranked.c.n + 2) // 2)
    low, high, median = db.execute(select(func.min(ranked.c.salary), func.max(ranked.c.salary),
                                          func.avg(ranked.c.salary).filter(middle))).one()
    return {"median_salary": None if median is None else round(float(median), 2),
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


def _span(db, query, end) -> tuple[float | None, int]:
    managers = _managers(query, end)
    avg, count = db.execute(select(func.avg(managers.c.reports), func.count())).one()
    return one_decimal(avg), count


def _squad_sizes(query, end):
    members = (select(User.squad_id.label("squad_id"), func.count().label("size"))
               .where(population(query, employed_on(end), User.squad_id.is_not(None)))
               .group_by(User.squad_id).subquery("members"))
    return members


def _team_extremes(db, query, end) -> tuple[int | None, int | None]:
    members = _squad_sizes(query, end)
    return tuple(db.execute(select(func.max(members.c.size), func.min(members.c.size))).one())


def _ratio(headcount: int, managers: int) -> str:
    if not managers:
        return "0:1"
    value = round((headcount - managers) / managers, 1)
    return f"{value:g}:1"


def _locations(db, query, end) -> list[dict]:
    rows = _grouped(db, select(func.coalesce(User.location, "Unspecified").label("k"))
                    .where(population(query, employed_on(end))))
    return [{"name": name, "count": count} for name, count in rows[:LIST_LIMIT]]


def _series(db, query, start, end) -> list[dict]:
    """Per month: headcount at the month's start and end, starters and leavers (one grouped statement)."""
    months = months_table(start, end)
    person = and_(User.id.is_not(None))
    stmt = (select(months.c.label, count_if(and_(person, employed_on(months.c.month_start))),
                   count_if(and_(person, employed_on(months.c.month_end))),
                   count_if(between(User.start_date, months.c.month_start, months.c.month_end)),
                   count_if(between(User.end_date, months.c.month_start, months.c.month_end)))
            .select_from(months).outerjoin(User, population(query))
            .group_by(months.c.label).order_by(months.c.label))
    return [{"label": label, "opening": opening, "headcount": closing, "starters": starters, "leavers": leavers}
            for label, opening, closing, starters, leavers in db.execute(stmt)]


# ---------------------------------------------------------------- endpoints

def overview(ctx, query) -> dict:
    db = ctx.db
    start, end = date_range(query)
    head = _headline(db, query, start, end)
    avg_span, managers = _span(db, query, end)
    largest, smallest = _team_extremes(db, query, end)
    return {
        "headcount": {"total": head["total"], "growth": head["growth"], "starters": head["starters"],
                      "leavers": head["leavers"]},
        "retention": {"turnover_rate": head["turnover_rate"], "avg_tenure_months": head["avg_tenure_months"]},
        "diversity": {"gender": dict(_counts_by(db, query, end, User.gender)), "avg_age": head["avg_age"]},
        "compensation": _salary(db, query, end),
        "structure": {"avg_span": avg_span, "largest_team": largest, "smallest_team": smallest,
                      "emp_to_mgr_ratio": _ratio(head["total"], managers)},
        "location": {"breakdown": _locations(db, query, end)},
    }


def headcount(ctx, query) -> dict:
    start, end = date_range(query)
    return {"series": [{key: point[key] for key in ("label", "headcount", "starters", "leavers")}
                       for point in _series(ctx.db, query, start, end)]}


def retention(ctx, query) -> dict:
    db = ctx.db
    start, end = date_range(query)
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
    _, end = date_range(query)
    managers = _managers(query, end)
    by_manager = _grouped(db, select(func.coalesce(managers.c.gender, UNSPECIFIED).label("k")))
    ages = _grouped(db, select(bucket(whole_years(User.date_of_birth, end), AGE_BUCKETS).label("k"))
                    .where(population(query, employed_on(end), User.date_of_birth.is_not(None))))
    return {"gender": [{"gender": g, "count": c} for g, c in _counts_by(db, query, end, User.gender)],
            "manager_gender": [{"gender": g, "count": c} for g, c in by_manager],
            "age_distribution": _filled(ages, AGE_BUCKETS)}


def compensation(ctx, query) -> dict:
    db = ctx.db
    _, end = date_range(query)
    bands = _grouped(db, select(bucket(User.salary, SALARY_BANDS).label("k"))
                     .where(population(query, employed_on(end), User.salary.is_not(None))))
    return {**_salary(db, query, end), "salary_bands": _filled(bands, SALARY_BANDS, key="band"),
            "employment_basis": [{"basis": b, "count": c}
                                 for b, c in _counts_by(db, query, end, User.employment_basis)]}


def structure(ctx, query) -> dict:
    db = ctx.db
    _, end = date_range(query)
    managers = _managers(query, end)
    spans = _grouped(db, select(bucket(managers.c.reports, SPAN_BUCKETS).label("k")))
    members = _squad_sizes(query, end)
    size = func.coalesce(members.c.size, 0)
    teams = db.execute(select(Squad.name, size).outerjoin(members, members.c.squad_id == Squad.id)
                       .order_by(size.desc(), Squad.name).limit(LIST_LIMIT)).all()
    people = db.execute(select(managers.c.name, managers.c.reports)
                        .order_by(managers.c.reports.desc(), managers.c.name).limit(LIST_LIMIT)).all()
    avg_span, _ = _span(db, query, end)
    return {"avg_span": avg_span, "span_distribution": _filled(spans, SPAN_BUCKETS),
            "team_sizes": [{"squad_name": name, "size": count} for name, count in teams],
            "managers": [{"manager_name": name, "reports": count} for name, count in people]}


def location(ctx, query) -> dict:
    _, end = date_range(query)
    rows = _locations(ctx.db, query, end)
    total = ctx.db.scalar(select(func.count()).select_from(User).where(population(query, employed_on(end))))
    return {"breakdown": [{**row, "percentage": percent(row["count"], total)} for row in rows], "total": total}
