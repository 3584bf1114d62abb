"""Leave ledger: Xero Payroll AU leave (live) or a sandbox in the database.

It follows the accounting ledger's setting and connection (`LEDGER_MODE`, the stored Xero connection): the
same Xero organisation answers both. `get_payroll(db)` answers the adapter; `off`, or live without a
connection, raises ServiceUnavailable (503) as the ledger does.
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import PayrollProvider

__all__ = ["get_payroll", "PayrollProvider"]


def get_payroll(db=None) -> PayrollProvider:
    mode = get_settings().provider_mode("ledger")
    if mode == "live":
        from chalicelib.providers.ledger import get_ledger

        from .live import XeroPayroll

        return XeroPayroll(get_ledger(db))
    if mode == "sandbox":
        from .sandbox import SandboxPayroll

        return SandboxPayroll(db=db)
    raise ServiceUnavailable("The leave ledger is not configured")
