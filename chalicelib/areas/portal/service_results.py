"""The results dashboard of the client portal (document 3: /results, /results/campaigns, /results/ask): each
metric of the period with the prior period, delta_pct, the client goal's target and a tracking status; the
campaigns with their figures and totals; a question answered by the AI provider from this company's period
figures only. docs/decisions/portal.md, "Connected platforms and results"."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from chalicelib.core.timeutil import org_today

from . import queries_results as q

# key, label, unit, higher is better, source (ads: Google Ads and Meta; store: Shopify)
METRICS = (
    ("spend", "Ad spend", "currency", False, "ads"),
    ("impressions", "Impressions", "count", True, "ads"),
    ("clicks", "Clicks", "count", True, "ads"),
    ("ctr", "Click-through rate", "percent", True, "ads"),
    ("cpc", "Cost per click", "currency", False, "ads"),
    ("conversions", "Conversions", "count", True, "ads"),
    ("conversion_value", "Conversion value", "currency", True, "ads"),
    ("roas", "Return on ad spend", "ratio", True, "ads"),
    ("cpa", "Cost per acquisition", "currency", False, "ads"),
    ("revenue", "Store revenue", "currency", True, "store"),
    ("orders", "Store orders", "count", True, "store"),
    ("aov", "Average order value", "currency", True, "store"),
)
AT_RISK_MARGIN = Decimal("0.10")  # within 10% of the target (on the wrong side): at risk


def _exact(value) -> Decimal:
    return Decimal(str(value))  # a float through its repr, as core Money reads one; Numeric sums arrive as Decimal


def _half_up(value: Decimal, places: str = "0.01") -> float:
    """Rounded half up (the service's money rule, core.money), answered as a JSON number; never -0.0 (a small drop
    answered "delta_pct": -0.0, which the insight read as up)."""
    return float(value.quantize(Decimal(places), rounding=ROUND_HALF_UP)) + 0.0


def _div(a, b, scale: int = 1):
    """a x scale / b in exact decimals, rounded half up to two places (in binary 100.25 / 2 = 50.125 rounded to
    50.12, the tie to even); None when b is 0."""
    return _half_up(_exact(a) * scale / _exact(b)) if b else None


def figures(sums: dict) -> dict:
    """Every metric's value from the period's sums (ratios null when their denominator is 0)."""
    f = {name: float(sums[name]) for name in q.SUMS}
    f.update(impressions=int(sums["impressions"]), clicks=int(sums["clicks"]), orders=int(sums["orders"]),
             spend=_half_up(_exact(sums["spend"])), conversions=_half_up(_exact(sums["conversions"])),
             conversion_value=_half_up(_exact(sums["conversion_value"])), revenue=_half_up(_exact(sums["revenue"])),
             ctr=_div(sums["clicks"], sums["impressions"], 100), cpc=_div(sums["spend"], sums["clicks"]),
             cpa=_div(sums["spend"], sums["conversions"]), roas=_div(sums["conversion_value"], sums["spend"]),
             aov=_div(sums["revenue"], sums["orders"]))
    return f


def delta_pct(value, prior):
    if value is None or not prior:
        return None
    return _half_up((_exact(value) - _exact(prior)) * 100 / abs(_exact(prior)), "0.1")


def tracking_status(value, target, higher_is_better: bool) -> str:
    if target is None:
        return "no_target"
    if value is None:
        return "no_data"
    # in decimal, as the figures are shown: in binary 2.2 * 0.9 is 1.9800000000000002, so a ROAS of 1.98 against a
    # target of 2.2, exactly 10% below it, read off track
    value, target = Decimal(str(value)), Decimal(str(target))
    if higher_is_better:
        if value >= target:
            return "on_track"
        return "at_risk" if value >= target * (1 - AT_RISK_MARGIN) else "off_track"
    if value <= target:
        return "on_track"
    return "at_risk" if value <= target * (1 + AT_RISK_MARGIN) else "off_track"


def _period(query) -> dict:
    return q.period(query.period_type, query.period_end or org_today())


def _metrics(ctx, p: dict, platforms: list[str]) -> list[dict]:
    company_id = ctx.portal.company_id
    sources = {"store" if platform == "shopify" else "ads" for platform in platforms}
    chosen = [m for m in METRICS if m[4] in sources]
    if not chosen:
        return []
    sums = q.period_sums(ctx.db, company_id, p)
    now, before = figures(sums["current"]), figures(sums["prior"])
    targets = q.goal_targets(ctx.db, company_id, p["type"], [m[0] for m in chosen])
    out = []
    for key, label, unit, higher, _source in chosen:
        target = targets.get(key)
        out.append({"key": key, "label": label, "unit": unit, "higher_is_better": 1 if higher else 0,
                    "value": now[key], "prior_value": before[key], "delta_pct": delta_pct(now[key], before[key]),
                    "target": target, "tracking_status": tracking_status(now[key], target, higher)})
    return out


def _number(value, unit) -> str:
    if unit == "percent":
        return f"{value:,.2f}%"
    if unit in ("currency", "ratio"):
        return f"{value:,.2f}"
    return f"{value:,.0f}"


def insight(p: dict, metrics: list[dict]) -> str | None:
    """One or two plain sentences on the headline metrics (computed, not generated)."""
    by_key = {m["key"]: m for m in metrics}
    parts = []
    for key in ("revenue", "spend", "roas", "conversions"):
        m = by_key.get(key)
        if m is None or m["value"] is None:
            continue
        text = f"{m['label'].lower()} {_number(m['value'], m['unit'])}"
        if m["delta_pct"] is not None:
            text += f" ({'up' if m['delta_pct'] >= 0 else 'down'} {abs(m['delta_pct']):.1f}% on the prior period)"
        if m["target"] is not None:
            text += f", {m['tracking_status'].replace('_', ' ')} against a target of {_number(m['target'], m['unit'])}"
        parts.append(text)
    if not parts:
        return None
    return f"In the {p['type']} from {p['start'].isoformat()} to {p['end'].isoformat()}: " + "; ".join(parts) + "."


def results(ctx, *, query) -> dict:
    p = _period(query)
    enabled = bool(ctx.portal.profile.get("dashboard_enabled"))
    if not enabled:
        return {"period": q.period_record(p), "metrics": [], "insight": None, "connected_platforms": [],
                "dashboard_enabled": 0}
    platforms = q.connected_platforms(ctx.db, ctx.portal.company_id)
    metrics = _metrics(ctx, p, platforms)
    return {"period": q.period_record(p), "metrics": metrics, "insight": insight(p, metrics),
            "connected_platforms": platforms, "dashboard_enabled": 1}


def _campaign_record(row) -> dict:
    f = figures({name: getattr(row, name) for name in q.SUMS})
    return {"platform": row.platform, "connection_id": row.connection_id, "campaign_id": row.campaign_id,
            "campaign_name": row.campaign_name, **{key: f[key] for key in CAMPAIGN_FIGURES}}


CAMPAIGN_FIGURES = ("spend", "impressions", "clicks", "conversions", "conversion_value", "orders", "revenue", "ctr",
                    "cpc", "cpa", "roas")


def campaigns(ctx, *, query) -> dict:
    from .service_connections import require_dashboard

    require_dashboard(ctx)
    p = _period(query)
    company_id = ctx.portal.company_id
    rows = q.campaign_rows(ctx.db, company_id, p, platform=query.platform, sort_by=query.sort_by,
                           sort_dir=query.sort_dir)
    totals = figures(q.campaign_totals(ctx.db, company_id, p, platform=query.platform))
    return {"period": q.period_record(p), "campaigns": [_campaign_record(row) for row in rows],
            "totals": {key: totals[key] for key in CAMPAIGN_FIGURES}}


ASK_CAMPAIGNS = 10
def _allow_question(ctx) -> None:
    """Count this question against the company's hourly allowance (core.allowance `portal_ask`, keyed by company:
    any viewer may ask, and each question is an AI request at the agency's cost); 429 past it."""
    from chalicelib.core.allowance import allow

    allow(ctx, "portal_ask", ctx.portal.company_id)


def ask(ctx, *, question: str, query) -> str:
    """The AI provider's answer from this company's figures of the period (metrics and its 10 largest campaigns
    by spend); nothing else goes into the prompt."""
    from chalicelib.providers.ai import get_ai

    from .service_connections import require_dashboard

    require_dashboard(ctx)
    ai = get_ai()  # 503 when AI_MODE=off
    _allow_question(ctx)
    p = _period(query)
    platforms = q.connected_platforms(ctx.db, ctx.portal.company_id)
    metrics = _metrics(ctx, p, platforms)
    rows = q.campaign_rows(ctx.db, ctx.portal.company_id, p, platform=None, sort_by="spend", sort_dir="desc")
    facts = {"period": q.period_record(p), "connected_platforms": platforms,
             "metrics": [{k: m[k] for k in ("key", "label", "unit", "value", "prior_value", "delta_pct", "target",
                                            "tracking_status")} for m in metrics],
             "campaigns": [_campaign_record(row) for row in rows[:ASK_CAMPAIGNS]]}
    for campaign in facts["campaigns"]:
        campaign.pop("connection_id", None)
    ctx.release_connection()
    return ai.answer_from_figures(question=question, figures=facts)
