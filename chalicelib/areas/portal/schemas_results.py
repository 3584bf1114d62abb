"""Request and read models of the connected ad platforms and the results dashboard (issue 19 item 4;
docs/decisions/portal.md, "Connected platforms and results")."""

from datetime import date as _date
from typing import Annotated, Optional

from pydantic import StringConstraints, field_validator

from chalicelib.core.schemas import CalendarDate, Flag01, Input, IsoDate, IsoTimestamp, Name, Read, choice

from .schemas import Period

AdPlatformKey = choice("google_ads", "meta_ads", "shopify")
CAMPAIGN_SORT_KEYS = ("spend", "impressions", "clicks", "conversions", "conversion_value", "orders", "revenue", "roas",
                      "cpa", "ctr", "cpc", "campaign_name", "platform")


class AdConnectionCreate(Input):
    """`credentials` by platform: google_ads {customer_id, refresh_token, login_customer_id?}; meta_ads
    {ad_account_id, access_token}; shopify {shop_domain, access_token}."""
    NOT_NULL = frozenset({"platform", "credentials", "display_name"})

    platform: AdPlatformKey
    credentials: dict
    display_name: Name


class ResultsQuery(Input):
    period_type: Period = "month"
    period_end: CalendarDate = None

    @field_validator("period_end")
    @classmethod
    def _within_years(cls, value):
        if value is not None and not _date(2000, 1, 1) <= value <= _date(2100, 12, 31):
            raise ValueError("must be between 2000-01-01 and 2100-12-31")
        return value


class CampaignResultsQuery(ResultsQuery):
    platform: Optional[AdPlatformKey] = None
    sort_by: choice(*CAMPAIGN_SORT_KEYS) = "spend"
    sort_dir: choice("asc", "desc") = "desc"


class ResultsQuestion(Input):
    NOT_NULL = frozenset({"question"})

    question: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]


class AdConnectionRead(Read):
    id: str
    company_id: str
    platform: str
    display_name: str
    account_id: str
    account_name: str | None
    currency: str | None
    agency_managed: Flag01
    status: str
    last_synced_at: IsoTimestamp | None
    last_sync_error: str | None
    backfilled_at: IsoTimestamp | None
    created_by: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp


class AdConnectionsBody(Read):
    connections: list[AdConnectionRead]
    dashboard_enabled: Flag01


class SyncStarted(Read):
    message: str


class ResultsPeriod(Read):
    type: str
    start: IsoDate
    end: IsoDate
    prior_start: IsoDate
    prior_end: IsoDate
    days: int


class ResultMetric(Read):
    key: str
    label: str
    unit: str  # currency | count | percent | ratio
    higher_is_better: Flag01
    currency: str | None  # a money metric's (its connections'); null for counts, percents and ratios
    value: float | None
    prior_value: float | None
    delta_pct: float | None
    target: float | None
    tracking_status: str  # on_track | at_risk | off_track | no_target


class OtherCurrencyFigures(Read):
    """The period's money of the connections in a currency left out of the metrics."""
    currency: str | None
    spend: float
    conversion_value: float
    revenue: float


class ResultsBody(Read):
    period: ResultsPeriod
    metrics: list[ResultMetric]
    insight: str | None
    connected_platforms: list[str]
    currency: str | None  # the ad platforms' main currency, else the store's
    other_currencies: list[OtherCurrencyFigures]
    dashboard_enabled: Flag01


class CampaignFigures(Read):
    spend: float
    impressions: int
    clicks: int
    conversions: float
    conversion_value: float
    orders: int
    revenue: float
    ctr: float | None
    cpc: float | None
    cpa: float | None
    roas: float | None


class CampaignResult(CampaignFigures):
    platform: str
    connection_id: str
    campaign_id: str
    campaign_name: str
    currency: str | None  # its connection's


class CurrencyCampaignFigures(CampaignFigures):
    currency: str | None


class CampaignsBody(Read):
    period: ResultsPeriod
    campaigns: list[CampaignResult]
    currency: str | None  # as /results; `totals` are those of its campaigns
    totals: CampaignFigures
    totals_by_currency: list[CurrencyCampaignFigures]


class ResultsAnswer(Read):
    answer: str
