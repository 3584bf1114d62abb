"""Notification usage analytics over the last `days` days, aggregated in SQL (one query each,
two for the summary). Readers need insights:view. The window is the last `days` x 24 hours;
the daily trend counts whole days of the organisation (ORG_TIMEZONE), today included."""
from __future__ import annotations

from datetime import datetime, time, timedelta, timezone

from sqlalchemy import Date, case, cast, func, literal_column, select

from chalicelib.core.ids import utcnow
from chalicelib.core.notify import Notification
from chalicelib.core.notify_catalogue import DELIVERY_CHANNELS, type_info
from chalicelib.core.notify_models import NotificationDelivery
from chalicelib.core.timeutil import org_today, org_zone

STATUSES = ("pending", "sent", "failed", "skipped")
IN_FLIGHT = {"sending": "pending"}  # being sent: not delivered yet, counted with pending


def _since(days: int):
    return utcnow() - timedelta(days=days)


def _read_expr():
    return func.sum(case((Notification.is_read.is_(True), 1), else_=0))


def _rate(read: int, sent: int) -> float:
    """The percentage read, one decimal rounded half up in exact decimals, as the service rounds (1 of 16 is 6.3;
    binary round() gave 6.2, the tie to even)."""
    from decimal import ROUND_HALF_UP, Decimal

    if not sent:
        return 0.0
    return float((Decimal(100) * read / sent).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def summary(ctx, *, days: int) -> dict:
    """The totals of the window (the route adds `days`)."""
    since = _since(days)
    total, read, recipients = ctx.db.execute(
        select(func.count(Notification.id), _read_expr(), func.count(func.distinct(Notification.user_id)))
        .where(Notification.created_at >= since)
    ).one()
    deliveries = ctx.db.scalar(select(func.count(NotificationDelivery.id)).where(
        NotificationDelivery.created_at >= since, NotificationDelivery.status == "sent"))
    total, read = total or 0, read or 0
    return {"total_sent": total, "total_read": read, "unique_recipients": recipients or 0,
            "total_deliveries": deliveries or 0, "read_rate": _rate(read, total)}


def by_type(ctx, *, days: int) -> list[dict]:
    rows = ctx.db.execute(
        select(Notification.type, func.count(Notification.id), _read_expr())
        .where(Notification.created_at >= _since(days))
        .group_by(Notification.type).order_by(func.count(Notification.id).desc(), Notification.type)
    ).all()
    return [{"type": type_id, "label": type_info(type_id).label, "category": type_info(type_id).category,
             "count": count, "read_count": read or 0} for type_id, count, read in rows]


def daily_trend(ctx, *, days: int) -> list[dict]:
    """One entry per day of the organisation (ORG_TIMEZONE, decisions.md section 1: the days its staff live in),
    oldest first, today last: the notifications created that day and how many are read. One statement: grouped by
    the local date on Postgres; on SQLite (development), which knows no time zones, the window's rows are read and
    counted here."""
    zone = org_zone()
    today = org_today()
    first_day = datetime.combine(today - timedelta(days=days - 1), time.min, tzinfo=zone)
    counts: dict[str, list[int]] = {}
    if ctx.db.bind.dialect.name == "sqlite":
        for created_at, is_read in ctx.db.execute(select(Notification.created_at, Notification.is_read)
                                                  .where(Notification.created_at >= first_day)):
            entry = counts.setdefault(created_at.replace(tzinfo=timezone.utc).astimezone(zone).date().isoformat(),
                                      [0, 0])
            entry[0] += 1
            entry[1] += 1 if is_read else 0
    else:
        day = cast(func.timezone(zone.key, Notification.created_at), Date)
        rows = ctx.db.execute(select(day.label("day"), func.count(Notification.id), _read_expr())
                              .where(Notification.created_at >= first_day)
                              .group_by(literal_column("day"))).all()  # the label: the zone is one parameter
        counts = {str(value)[:10]: [count, read or 0] for value, count, read in rows}
    trend = []
    for offset in range(days - 1, -1, -1):
        date = (today - timedelta(days=offset)).isoformat()
        sent, read = counts.get(date, (0, 0))
        trend.append({"date": date, "sent": sent, "read": read})
    return trend


def channel_distribution(ctx, *, days: int) -> list[dict]:
    rows = ctx.db.execute(
        select(NotificationDelivery.channel, NotificationDelivery.status, func.count(NotificationDelivery.id))
        .where(NotificationDelivery.created_at >= _since(days))
        .group_by(NotificationDelivery.channel, NotificationDelivery.status)
    ).all()
    channels = {name: {"channel": name, "total": 0, **{status: 0 for status in STATUSES}} for name in DELIVERY_CHANNELS}
    for channel, status, count in rows:
        status = IN_FLIGHT.get(status, status)
        entry = channels.setdefault(channel, {"channel": channel, "total": 0, **{s: 0 for s in STATUSES}})
        if status in STATUSES:
            entry[status] += count
        entry["total"] += count
    return list(channels.values())


def read_rates(ctx, *, days: int) -> list[dict]:
    rows = ctx.db.execute(
        select(Notification.type, func.count(Notification.id), _read_expr())
        .where(Notification.created_at >= _since(days))
        .group_by(Notification.type).order_by(Notification.type)
    ).all()
    rates = [{"type": type_id, "label": type_info(type_id).label, "sent": count, "read": read or 0,
              "read_rate": _rate(read or 0, count)} for type_id, count, read in rows]
    rates.sort(key=lambda entry: (-entry["read_rate"], entry["type"]))
    return rates
