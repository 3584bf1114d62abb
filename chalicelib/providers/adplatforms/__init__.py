"""Ad platforms of the client portal's results: Google Ads (GAQL over REST), Meta Marketing API insights and
Shopify Admin (orders), live, or a deterministic sandbox.

`get_adplatform(platform, credentials, seed=...)` answers the adapter of `ADPLATFORMS_MODE` (sandbox by
default) for one connected account; `off` raises ServiceUnavailable (503), as does `live` Google Ads without
the agency's OAuth client (GOOGLE_ADS_CLIENT_ID, GOOGLE_ADS_CLIENT_SECRET). GOOGLE_ADS_DEVELOPER_TOKEN is
optional: Google sunset developer tokens on 2026-09-09 (the header is ignored; API access is the OAuth client's
Cloud project's), https://developers.google.com/google-ads/api/docs/api-policy/developer-token (sent when set).
`credentials` is the parsed credentials model (base.parse_credentials).
"""
from __future__ import annotations

from chalicelib.core.settings import get_settings

from .base import (CREDENTIALS, PLATFORM_NAMES, PLATFORMS, AdPlatform, AgencySetupError, CredentialsRefused,
                   parse_credentials)

__all__ = ["get_adplatform", "parse_credentials", "AdPlatform", "CredentialsRefused", "PLATFORMS", "PLATFORM_NAMES",
           "CREDENTIALS"]


def get_adplatform(platform: str, credentials, *, seed: str = "") -> AdPlatform:
    settings = get_settings()
    mode = settings.provider_mode("adplatforms")
    if mode == "sandbox":
        from .sandbox import SandboxAdPlatform

        return SandboxAdPlatform(platform=platform, credentials=credentials, seed=seed)
    if mode != "live":
        raise AgencySetupError("Ad platform connections are not configured")
    wait = settings.adplatforms_max_retry_wait
    if platform == "google_ads":
        if not (settings.google_ads_client_id and settings.google_ads_client_secret):
            raise AgencySetupError("Google Ads is not configured (GOOGLE_ADS_CLIENT_ID, GOOGLE_ADS_CLIENT_SECRET)")
        from .live import GoogleAds

        return GoogleAds(credentials=credentials, developer_token=settings.google_ads_developer_token,
                         client_id=settings.google_ads_client_id, client_secret=settings.google_ads_client_secret,
                         version=settings.google_ads_api_version, max_wait=wait)
    if platform == "meta_ads":
        from .live import MetaAds

        return MetaAds(credentials=credentials, version=settings.meta_api_version, max_wait=wait)
    from .live import Shopify

    return Shopify(credentials=credentials, version=settings.shopify_api_version, max_wait=wait)
