"""Ad platforms (the client portal's results): the interface every adapter implements, the credentials of
each platform, and the errors they raise.

An adapter speaks for one connected account: `verify()` checks its credentials (raises `CredentialsRefused`,
a 400, when the platform refuses them), `daily_metrics(since, until)` answers one row per campaign and day
(Shopify: one row per day, campaign `store`). Rows carry spend, impressions, clicks, conversions and
conversion_value (ad platforms) or orders and revenue (Shopify); what a platform does not have is 0.
"""
from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from typing import Annotated, Optional, Protocol

from pydantic import BaseModel, ConfigDict, StringConstraints, field_validator

from chalicelib.core.errors import BadRequest, ServiceUnavailable

PLATFORMS = ("google_ads", "meta_ads", "shopify")
PLATFORM_NAMES = {"google_ads": "Google Ads", "meta_ads": "Meta Ads", "shopify": "Shopify"}
SHOPIFY_STORE_CAMPAIGN = ("store", "Online store")


class CredentialsRefused(BadRequest):
    """The platform refused the credentials (a 400 when a connection is made; a sync error later)."""


class AgencySetupError(ServiceUnavailable):
    """The agency's own setup is at fault (a setting missing, its OAuth client or developer token refused): a 503
    whose text names the agency's configuration, for staff; the client portal answers it in its own words."""


Secret = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]


class _Credentials(BaseModel):
    model_config = ConfigDict(extra="ignore")

    def account_id(self) -> str:
        raise NotImplementedError


class GoogleAdsCredentials(_Credentials):
    """A client's Google Ads account: its customer id and an OAuth refresh token of a user with access to it;
    `login_customer_id` is the manager account the access goes through, when there is one."""
    customer_id: Annotated[str, StringConstraints(strip_whitespace=True, min_length=10, max_length=12)]
    refresh_token: Secret
    login_customer_id: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=12)]] = None

    @field_validator("customer_id", "login_customer_id")
    @classmethod
    def _digits(cls, value):
        if value is None or value == "":
            return None
        digits = value.replace("-", "")
        if not re.fullmatch(r"\d{10}", digits):
            raise ValueError("must be a 10-digit Google Ads customer id (dashes allowed)")
        return digits

    def account_id(self) -> str:
        return self.customer_id


class MetaAdsCredentials(_Credentials):
    """A Meta ad account (`act_<id>` or the digits) and an access token with `ads_read`."""
    ad_account_id: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
    access_token: Secret

    @field_validator("ad_account_id")
    @classmethod
    def _account(cls, value):
        digits = value[4:] if value.startswith("act_") else value
        if not re.fullmatch(r"\d{1,30}", digits):
            raise ValueError("must be an ad account id: act_<digits> or the digits")
        return digits

    def account_id(self) -> str:
        return f"act_{self.ad_account_id}"


class ShopifyCredentials(_Credentials):
    """A Shopify store (`<shop>.myshopify.com`, the only host a request goes to) and an Admin API access token
    with `read_orders`."""
    shop_domain: Annotated[str, StringConstraints(strip_whitespace=True, to_lower=True, min_length=1, max_length=120)]
    access_token: Secret

    @field_validator("shop_domain")
    @classmethod
    def _domain(cls, value):
        value = value.removeprefix("https://").rstrip("/")
        if "." not in value:
            value += ".myshopify.com"
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com", value):
            raise ValueError("must be the store's <shop>.myshopify.com domain")
        return value

    def account_id(self) -> str:
        return self.shop_domain


CREDENTIALS = {"google_ads": GoogleAdsCredentials, "meta_ads": MetaAdsCredentials, "shopify": ShopifyCredentials}


def parse_credentials(platform: str, raw: dict) -> _Credentials:
    """The platform's credentials, validated; a ValidationFailed (400) naming `credentials.<field>` otherwise."""
    from pydantic import ValidationError

    from chalicelib.core.errors import ValidationFailed

    try:
        return CREDENTIALS[platform].model_validate(raw)
    except ValidationError as exc:
        details = [{"field": "credentials." + ".".join(str(p) for p in error["loc"]),
                    "message": error["msg"].removeprefix("Value error, ")} for error in exc.errors()]
        raise ValidationFailed(f"The {PLATFORM_NAMES[platform]} credentials are invalid", details=details) from None


def empty_row(campaign_id: str, campaign_name: str, day: date) -> dict:
    return {"campaign_id": campaign_id, "campaign_name": campaign_name, "date": day, "spend": Decimal("0"),
            "impressions": 0, "clicks": 0, "conversions": Decimal("0"), "conversion_value": Decimal("0"),
            "orders": 0, "revenue": Decimal("0")}


class AdPlatform(Protocol):
    platform: str

    def verify(self) -> dict:
        """`{account_name, currency}` of the account; CredentialsRefused (400) when the platform refuses."""
        ...

    def daily_metrics(self, since: date, until: date) -> list[dict]:
        """One row per campaign and day between the dates (inclusive), as `empty_row` shapes it."""
        ...
