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


def figures(sums: dict, ads: dict | None = None, store: dict | None = None) -> dict:
    """Every metric's value (ratios null when their denominator is 0): counts and ctr from `sums`; spend,
    conversion value, cpc, cpa and roas from `ads`, revenue and aov from `store`, the sums of the connections in
    one currency (the main one of each kind; by default `sums`: one campaign, one currency's totals)."""
    ads = sums if ads is None else ads
    store = sums if store is None else store
    return {"impressions": int(sums["impressions"]), "clicks": int(sums["clicks"]), "orders": int(sums["orders"]),
            "conversions": _half_up(_exact(sums["conversions"])), "ctr": _div(sums["clicks"], sums["impressions"], 100),
            "spend": _half_up(_exact(ads["spend"])), "conversion_value": _half_up(_exact(ads["conversion_value"])),
            "cpc": _div(ads["spend"], ads["clicks"]), "cpa": _div(ads["spend"], ads["conversions"]),
            "roas": _div(ads["conversion_value"], ads["spend"]),
            "revenue": _half_up(_exact(store["revenue"])), "aov": _div(store["revenue"], store["orders"])}


# --- currencies (docs/decisions/portal.md, "Currencies of the results") ----------------------------------------

ZERO = dict.fromkeys(q.SUMS, 0)
MONEY = {"ads": "spend", "store": "revenue"}  # the figure ranking a kind's currencies


def _source(platform: str) -> str:
    return "store" if platform == "shopify" else "ads"


def _add(a: dict, b: dict) -> dict:
    return {name: a[name] + b[name] for name in q.SUMS}


def _currency_order(currency):
    return currency is None, currency or ""


class Sums:
    """The period sums of `q.period_sums` by kind (ads, store) and currency; the main currency of each kind is
    the one with the most of its money figure (spend, revenue) in the period, then in the prior period, then by
    code (an unknown currency last). Money is only ever added within one currency."""

    def __init__(self, rows: list[dict]) -> None:
        self.groups: dict[tuple[str, str | None], dict] = {}
        for row in rows:
            key = (_source(row["platform"]), row["currency"])
            held = self.groups.get(key)
            self.groups[key] = ({"current": row["current"], "prior": row["prior"]} if held is None else
                                {b: _add(held[b], row[b]) for b in ("current", "prior")})
        self.main = {}
        for source, money in MONEY.items():
            mine = [(c, g) for (s, c), g in self.groups.items() if s == source]
            mine.sort(key=lambda cg: (-cg[1]["current"][money], -cg[1]["prior"][money], *_currency_order(cg[0])))
            self.main[source] = mine[0][0] if mine else None

    def kinds(self) -> set[str]:
        return {source for source, _ in self.groups}

    @property
    def currency(self) -> str | None:
        """The results' currency: the ad platforms' main currency, else the store's."""
        return self.main["ads"] if "ads" in self.kinds() else self.main["store"]

    def figures(self, bucket: str) -> dict:
        counts = ZERO
        for group in self.groups.values():
            counts = _add(counts, group[bucket])
        main = {source: self.groups.get((source, self.main[source]), {}).get(bucket, ZERO) for source in MONEY}
        return figures(counts, main["ads"], main["store"])

    def others(self) -> list[dict]:
        """The money of the period left out of the metrics, per currency (by code): each currency's spend and
        conversion value when it is not the ad platforms' main currency, its revenue when not the store's."""
        out = {}
        for (source, currency), group in self.groups.items():
            if currency == self.main[source]:
                continue
            entry = out.setdefault(currency, {"currency": currency, "spend": 0.0, "conversion_value": 0.0,
                                              "revenue": 0.0})
            for name in (("spend", "conversion_value") if source == "ads" else ("revenue",)):
                entry[name] = _half_up(_exact(entry[name]) + _exact(group["current"][name]))
        return [out[c] for c in sorted(out, key=_currency_order)]

    def by_currency(self, bucket: str = "current") -> list[dict]:
        """Every currency's own figures (its campaigns only), the results' currency first, then by code."""
        sums = {}
        for (_source_, currency), group in self.groups.items():
            sums[currency] = _add(sums.get(currency, ZERO), group[bucket])
        order = sorted(sums, key=lambda c: (c != self.currency, *_currency_order(c)))
        return [{"currency": c, **figures(sums[c])} for c in order]


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
    value, target = _exact(value), _exact(target)
    if higher_is_better:
        if value >= target:
            return "on_track"
        return "at_risk" if value >= target * (1 - AT_RISK_MARGIN) else "off_track"
    if value <= target:
        return "on_track"
    return "at_risk" if value <= target * (1 + AT_RISK_MARGIN) else "off_track"


def _period(query) -> dict:
    return q.period(query.period_type, query.period_end or org_today())


def _metrics(ctx, p: dict, platforms: list[str], sums: Sums) -> list[dict]:
    company_id = ctx.portal.company_id
    sources = {_source(platform) for platform in platforms}
    chosen = [m for m in METRICS if m[4] in sources]
    if not chosen:
        return []
    now, before = sums.figures("current"), sums.figures("prior")
    targets = q.goal_targets(ctx.db, company_id, p["type"], [m[0] for m in chosen])  # in the metric's currency
    out = []
    for key, label, unit, higher, source in chosen:
        target = targets.get(key)
        out.append({"key": key, "label": label, "unit": unit, "higher_is_better": 1 if higher else 0,
                    "currency": sums.main[source] if unit == "currency" else None,
                    "value": now[key], "prior_value": before[key], "delta_pct": delta_pct(now[key], before[key]),
                    "target": target, "tracking_status": tracking_status(now[key], target, higher)})
    return out


def _results(ctx, p: dict) -> tuple[list[str], Sums, list[dict]]:
    platforms = q.connected_platforms(ctx.db, ctx.portal.company_id)
    sums = Sums(q.period_sums(ctx.db, ctx.portal.company_id, p))
    return platforms, sums, _metrics(ctx, p, platforms, sums)


def _number(value, unit, currency=None) -> str:
    """A headline figure of `insight` (revenue, spend, ROAS, conversions: currency, ratio or count)."""
    if unit == "currency" and currency:
        return f"{currency} {value:,.2f}"
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
        text = f"{m['label'].lower()} {_number(m['value'], m['unit'], m['currency'])}"
        if m["delta_pct"] is not None:
            text += f" ({'up' if m['delta_pct'] >= 0 else 'down'} {abs(m['delta_pct']):.1f}% on the prior period)"
        if m["target"] is not None:
            target = _number(m["target"], m["unit"], m["currency"])
            text += f", {m['tracking_status'].replace('_', ' ')} against a target of {target}"
        parts.append(text)
    if not parts:
        return None
    return f"In the {p['type']} from {p['start'].isoformat()} to {p['end'].isoformat()}: " + "; ".join(parts) + "."


def results(ctx, *, query) -> dict:
    p = _period(query)
    enabled = bool(ctx.portal.profile.get("dashboard_enabled"))
    if not enabled:
        return {"period": q.period_record(p), "metrics": [], "insight": None, "connected_platforms": [],
                "currency": None, "other_currencies": [], "dashboard_enabled": 0}
    platforms, sums, metrics = _results(ctx, p)
    return {"period": q.period_record(p), "metrics": metrics, "insight": insight(p, metrics),
            "connected_platforms": platforms, "currency": sums.currency, "other_currencies": sums.others(),
            "dashboard_enabled": 1}


def _campaign_record(row) -> dict:
    f = figures({name: getattr(row, name) for name in q.SUMS})
    return {"platform": row.platform, "connection_id": row.connection_id, "campaign_id": row.campaign_id,
            "campaign_name": row.campaign_name, "currency": row.currency, **{key: f[key] for key in CAMPAIGN_FIGURES}}


CAMPAIGN_FIGURES = ("spend", "impressions", "clicks", "conversions", "conversion_value", "orders", "revenue", "ctr",
                    "cpc", "cpa", "roas")


def campaigns(ctx, *, query) -> dict:
    from .service_connections import require_dashboard

    require_dashboard(ctx)
    p = _period(query)
    company_id = ctx.portal.company_id
    rows = q.campaign_rows(ctx.db, company_id, p, platform=query.platform, sort_by=query.sort_by,
                           sort_dir=query.sort_dir)
    sums = Sums(q.period_sums(ctx.db, company_id, p, platform=query.platform))
    by_currency = [{"currency": t["currency"], **{key: t[key] for key in CAMPAIGN_FIGURES}}
                   for t in sums.by_currency()]
    totals = by_currency[0] if by_currency else figures(ZERO)  # the first is the answer's currency
    return {"period": q.period_record(p), "campaigns": [_campaign_record(row) for row in rows],
            "currency": sums.currency, "totals": {key: totals[key] for key in CAMPAIGN_FIGURES},
            "totals_by_currency": by_currency}


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
    platforms, sums, metrics = _results(ctx, p)
    rows = q.campaign_rows(ctx.db, ctx.portal.company_id, p, platform=None, sort_by="spend", sort_dir="desc")
    facts = {"period": q.period_record(p), "connected_platforms": platforms, "currency": sums.currency,
             "other_currencies": sums.others(),
             "metrics": [{k: m[k] for k in ("key", "label", "unit", "currency", "value", "prior_value", "delta_pct",
                                            "target", "tracking_status")} for m in metrics],
             "campaigns": [_campaign_record(row) for row in rows[:ASK_CAMPAIGNS]]}
    for campaign in facts["campaigns"]:
        campaign.pop("connection_id", None)
    ctx.release_connection()
    return ai.answer_from_figures(question=question, figures=facts)
