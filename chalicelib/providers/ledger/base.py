"""Accounting ledger: the interface every ledger adapter implements (Xero Accounting API and Payroll AU live,
a database sandbox otherwise), and the shapes they answer.

Invoice state as answered by `get_invoices`: `{ledger_invoice_id, status (DRAFT, SUBMITTED, AUTHORISED,
PAID, VOIDED, DELETED), total, amount_paid, amount_due, payments: [{ledger_payment_id, date (YYYY-MM-DD),
amount, reference, status}]}`, amounts as Decimal.
"""
from __future__ import annotations

from abc import ABC, abstractmethod


class LedgerAuth(ABC):
    """The OAuth 2.0 authorisation code flow of the ledger (the connections area drives it)."""

    @abstractmethod
    def authorize_url(self, state: str) -> str:
        """The consent page to open (in a popup), carrying `state`."""

    @abstractmethod
    def exchange_code(self, code: str) -> dict:
        """`{access_token, refresh_token, expires_in, tenant_id, org_name}` for an authorisation code;
        BadRequest (400) with the provider's message when it refuses the code."""


class LedgerProvider(ABC):
    @abstractmethod
    def create_invoice(self, invoice: dict) -> dict:
        """Create a DRAFT sales invoice. `invoice`: {invoice_number, contact_name, date, due_date, currency,
        reference, lines: [{description, quantity, unit_amount, account_code, tax_type}]}.
        Answers `{ledger_invoice_id, status}`."""

    @abstractmethod
    def set_status(self, ledger_invoice_id: str, status: str) -> dict:
        """AUTHORISED (approve), VOIDED (void) or DELETED (delete a draft). Answers `{status}`."""

    @abstractmethod
    def email_invoice(self, ledger_invoice_id: str) -> None:
        """E-mail an authorised invoice to its contact."""

    @abstractmethod
    def get_invoices(self, ledger_invoice_ids: list[str]) -> list[dict]:
        """The state of these invoices (module docstring); ids the ledger does not know are left out."""

    @abstractmethod
    def get_pdf(self, ledger_invoice_id: str) -> bytes:
        """The invoice as PDF bytes."""

    @abstractmethod
    def list_employees(self) -> list[dict]:
        """Payroll employees: `[{id, email, name}]`."""
