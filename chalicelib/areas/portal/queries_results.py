"""Results of the connected platforms: period arithmetic and the aggregate reads of the synced daily metrics
(one statement per read, whatever the number of campaigns or days).

Periods are rolling windows ending at `period_end`: week = the 7 days ending that day; month, quarter and year
= the 1, 3 or 12 months ending that day, starting the day after the same date that many months earlier. When
`period_end` is the last day of its month, the months are whole calendar months (31 March -> 1 to 31 March; 29
February 2024 -> 1 to 29 February; 31 December, year -> the calendar year). The prior period is the period of
the same type ending the day before the start, so the two never overlap and never leave a gap.
"""
from __future__ import annotations

import calendar
from datetime import date, timedelta

from sqlalchemy import case, func, select

from chalicelib.core.query import LIST_LIMIT

from .models import AdConnection, AdDailyMetric, ClientGoal

MONTHS = {"month": 1, "quarter": 3, "year": 12}


def _last_day(year: int, month: int) -> int:
    return calendar.monthrange(year, month)[1]


def shift_months(day: date, months: int) -> date:
    """The same date `months` months earlier; a month's last day maps to a month's last day, any other day is
    clamped to the shorter month (30 March - 1 month = 29 February 2024)."""
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    month += 1
    last = _last_day(year, month)
    if day.day == _last_day(day.year, day.month):
        return date(year, month, last)
    return date(year, month, min(day.day, last))


def bounds(period_type: str, end: date) -> tuple[date, date]:
    if period_type == "week":
        return end - timedelta(days=6), end
    return shift_months(end, MONTHS[period_type]) + timedelta(days=1), end


def period(period_type: str, end: date) -> dict:
    start, end = bounds(period_type, end)
    prior_start, prior_end = bounds(period_type, start - timedelta(days=1))
    return {"type": period_type, "start": start, "end": end, "prior_start": prior_start, "prior_end": prior_end,
            "days": (end - start).days + 1}


def period_record(p: dict) -> dict:
    return {key: (value.isoformat() if isinstance(value, date) else value) for key, value in p.items()}


SUMS = ("spend", "impressions", "clicks", "conversions", "conversion_value", "orders", "revenue")


def period_sums(db, company_id: str, p: dict, *, platform: str | None = None) -> list[dict]:
    """The sums of the company's synced days of both periods per currency and platform of its connections (a
    connection without days: zeros), `[{"currency", "platform", "current": sums, "prior": sums}]`: one
    statement. Money is never added across currencies (docs/decisions/portal.md, "Currencies of the results")."""
    current = AdDailyMetric.date >= p["start"]
    columns = []
    for name in SUMS:
        column = getattr(AdDailyMetric, name)
        columns.append(func.coalesce(func.sum(case((current, column), else_=0)), 0).label(f"current_{name}"))
        columns.append(func.coalesce(func.sum(case((current, 0), else_=column)), 0).label(f"prior_{name}"))
    # from the connections, so that a connection without a synced day of the periods still names its currency
    stmt = (select(AdConnection.currency, AdConnection.platform, *columns)
            .outerjoin(AdDailyMetric, (AdDailyMetric.connection_id == AdConnection.id)
                       & (AdDailyMetric.date >= p["prior_start"]) & (AdDailyMetric.date <= p["end"]))
            .where(AdConnection.company_id == company_id)
            .group_by(AdConnection.currency, AdConnection.platform))
    if platform:
        stmt = stmt.where(AdConnection.platform == platform)
    return [{"currency": row.currency, "platform": row.platform,
             **{bucket: {name: getattr(row, f"{bucket}_{name}") for name in SUMS} for bucket in ("current", "prior")}}
            for row in db.execute(stmt)]


def connected_platforms(db, company_id: str) -> list[str]:
    return list(db.scalars(select(AdConnection.platform).where(AdConnection.company_id == company_id)
                           .distinct().order_by(AdConnection.platform)))


def goal_metric_key(column):
    """A goal's metric key as the metrics' keys are written (`conversion_value`): lower case, trimmed, a space or
    hyphen an underscore."""
    return func.replace(func.replace(func.lower(func.trim(column)), " ", "_"), "-", "_")


def goal_targets(db, company_id: str, period_type: str, keys) -> dict[str, float]:
    """`{metric_key: target}` of the company's client goals for these metrics: a goal of the same period wins
    over one without a period; the newest first. A goal's `metric_key` is typed freely (staff, the client's
    questionnaire) and kept as typed: it names the metric letter case, surrounding spaces and a space or hyphen for
    the underscore aside (session 32: "ROAS" or "Conversion value" set no target)."""
    metric = goal_metric_key(ClientGoal.metric_key)
    rows = db.execute(select(metric.label("metric_key"), ClientGoal.period, ClientGoal.target)
                      .where(ClientGoal.company_id == company_id, metric.in_(list(keys)),
                             ClientGoal.target.is_not(None),
                             (ClientGoal.period == period_type) | ClientGoal.period.is_(None))
                      .order_by(ClientGoal.updated_at.desc(), ClientGoal.id))
    exact, loose = {}, {}
    for row in rows:
        (exact if row.period == period_type else loose).setdefault(row.metric_key, float(row.target))
    return {**loose, **exact}


def _ratio(numerator, denominator, scale=1.0):
    return (numerator * scale) / func.nullif(denominator, 0)


def campaign_rows(db, company_id: str, p: dict, *, platform: str | None, sort_by: str, sort_dir: str) -> list:
    """The campaigns of the period with their sums, sorted in SQL (ratios with nulls last), at most
    LIST_LIMIT: one statement."""
    sums = {name: func.coalesce(func.sum(getattr(AdDailyMetric, name)), 0) for name in SUMS}
    derived = {"roas": _ratio(sums["conversion_value"], sums["spend"]), "cpa": _ratio(sums["spend"], sums["conversions"]),
               "ctr": _ratio(sums["clicks"], sums["impressions"], 100.0), "cpc": _ratio(sums["spend"], sums["clicks"])}
    name = func.max(AdDailyMetric.campaign_name)
    keys = {**sums, **derived, "campaign_name": name, "platform": AdDailyMetric.platform}
    order = keys[sort_by].asc() if sort_dir == "asc" else keys[sort_by].desc()
    stmt = (select(AdDailyMetric.platform, AdDailyMetric.connection_id, AdDailyMetric.campaign_id,
                   name.label("campaign_name"), AdConnection.currency,
                   *[value.label(key) for key, value in sums.items()])
            .join(AdConnection, AdConnection.id == AdDailyMetric.connection_id)
            .where(AdDailyMetric.company_id == company_id, AdDailyMetric.date >= p["start"],
                   AdDailyMetric.date <= p["end"])
            .group_by(AdDailyMetric.platform, AdDailyMetric.connection_id, AdDailyMetric.campaign_id,
                      AdConnection.currency)
            .order_by(order.nulls_last(), name, AdDailyMetric.campaign_id, AdDailyMetric.connection_id)
            .limit(LIST_LIMIT))
    if platform:
        stmt = stmt.where(AdDailyMetric.platform == platform)
    return list(db.execute(stmt))
