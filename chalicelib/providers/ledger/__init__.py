"""Accounting ledger: the Xero Accounting API and Payroll AU (live) or a sandbox in the database.

`get_ledger(db)` answers the adapter for `LEDGER_MODE` (sandbox by default). Live credentials come from the
stored connection first (connections area: OAuth tokens, refreshed and rotated, stored encrypted into the
connection they were refreshed from, `ledger_tokens_saver`), from
settings second (`LEDGER_ACCESS_TOKEN` and `LEDGER_TENANT_ID`); none, or `off`: ServiceUnavailable (503).
`get_ledger_auth()` answers the OAuth 2.0 flow (needs `LEDGER_CLIENT_ID` / `_SECRET` / `_REDIRECT_URI` live).
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import LedgerAuth, LedgerProvider

__all__ = ["get_ledger", "get_ledger_auth", "LedgerAuth", "LedgerProvider"]


def get_ledger_auth() -> LedgerAuth:
    settings = get_settings()
    mode = settings.provider_mode("ledger")
    if mode == "live":
        if not (settings.ledger_client_id and settings.ledger_client_secret and settings.ledger_redirect_uri):
            raise ServiceUnavailable("The accounting ledger app is not configured (LEDGER_CLIENT_ID, "
                                     "LEDGER_CLIENT_SECRET, LEDGER_REDIRECT_URI)")
        from .live import XeroAuth

        return XeroAuth(client_id=settings.ledger_client_id, client_secret=settings.ledger_client_secret,
                        redirect_uri=settings.ledger_redirect_uri)
    if mode == "sandbox":
        from .sandbox import SandboxLedgerAuth

        return SandboxLedgerAuth(base_url=settings.public_base_url)
    raise ServiceUnavailable("The accounting ledger is not configured")


def get_ledger(db=None) -> LedgerProvider:
    settings = get_settings()
    mode = settings.provider_mode("ledger")
    if mode == "live":
        from chalicelib.areas.connections import service as connections_service

        from .live import XeroLedger

        stored = connections_service.credentials(db, "ledger") if db is not None else None
        if stored and stored.get("access_token") and stored.get("tenant_id"):
            return XeroLedger(auth=get_ledger_auth(), tokens=stored, tenant_id=stored["tenant_id"],
                              on_tokens=connections_service.ledger_tokens_saver(db))
        if settings.ledger_access_token and settings.ledger_tenant_id:
            return XeroLedger(auth=None, tokens={"access_token": settings.ledger_access_token},
                              tenant_id=settings.ledger_tenant_id)
        raise ServiceUnavailable("The accounting ledger is not connected")
    if mode == "sandbox":
        from .sandbox import SandboxLedger

        return SandboxLedger(db=db)
    raise ServiceUnavailable("The accounting ledger is not configured")
