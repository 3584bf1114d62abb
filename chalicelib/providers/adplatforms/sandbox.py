"""Sandbox ad platforms: they accept any credential except one containing `invalid` (refused as the platform
would: 400), and answer deterministic daily figures per campaign, computed from the connection id (the seed),
the campaign and the date, so that a re-sync of the same days answers the same figures and results are
reproducible. No state: the figures are a function of their inputs (the synced rows live in the database)."""
from __future__ import annotations

import hashlib
from datetime import date, timedelta
from decimal import Decimal

from .base import PLATFORM_NAMES, SHOPIFY_STORE_CAMPAIGN, CredentialsRefused, empty_row

CAMPAIGNS = {
    "google_ads": ("Search - Brand", "Search - Generic", "Performance Max", "Shopping", "Display Remarketing"),
    "meta_ads": ("Prospecting - Broad", "Retargeting - 30 days", "Advantage+ Shopping", "Catalogue Sales"),
}
CENT = Decimal("0.01")


def _numbers(*parts) -> list[int]:
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return [int.from_bytes(digest[i:i + 4], "big") for i in range(0, 32, 4)]


class SandboxAdPlatform:
    def __init__(self, *, platform: str, credentials, seed: str) -> None:
        self.platform = platform
        self.credentials = credentials
        self.seed = seed

    def _check(self) -> None:
        if any("invalid" in str(value).lower() for value in self.credentials.model_dump().values() if value):
            raise CredentialsRefused(f"{PLATFORM_NAMES[self.platform]} refused the credentials (sandbox: invalid)")

    def verify(self) -> dict:
        self._check()
        return {"account_name": f"{PLATFORM_NAMES[self.platform]} {self.credentials.account_id()}",
                "currency": "AUD"}

    def campaigns(self) -> list[tuple[str, str]]:
        if self.platform == "shopify":
            return [SHOPIFY_STORE_CAMPAIGN]
        names = CAMPAIGNS[self.platform]
        count = 2 + _numbers(self.seed, "campaigns")[0] % (len(names) - 1)
        prefix = {"google_ads": "g", "meta_ads": "m"}[self.platform]
        return [(f"{prefix}{1000 + index}", names[index]) for index in range(count)]

    def daily_metrics(self, since: date, until: date) -> list[dict]:
        self._check()
        rows = []
        day = since
        while day <= until:
            for campaign_id, name in self.campaigns():
                n = _numbers(self.seed, campaign_id, day.isoformat())
                row = empty_row(campaign_id, name, day)
                if self.platform == "shopify":
                    orders = 3 + n[0] % 40
                    aov = Decimal(40 + n[1] % 120) + Decimal(n[2] % 100) / 100
                    row.update(orders=orders, revenue=(aov * orders).quantize(CENT))
                else:
                    impressions = 400 + n[0] % 6000
                    clicks = max(1, impressions * (10 + n[1] % 40) // 1000)
                    cpc = Decimal(40 + n[2] % 260) / 100
                    conversions = clicks * (1 + n[3] % 8) // 100
                    value = Decimal(35 + n[4] % 140)
                    row.update(impressions=impressions, clicks=clicks, spend=(cpc * clicks).quantize(CENT),
                               conversions=Decimal(conversions), conversion_value=(value * conversions).quantize(CENT))
                rows.append(row)
            day += timedelta(days=1)
        return rows
