"""Accounting ledger: the interface every ledger adapter implements (Xero Accounting API and Payroll AU live,
a database sandbox otherwise), and the shapes they answer.

Invoice state as answered by `get_invoices`: `{ledger_invoice_id, status (DRAFT, SUBMITTED, AUTHORISED,
PAID, VOIDED, DELETED), contact_name (the contact the invoice bills, or None), currency (its code, or None), total,
amount_paid, amount_credited, amount_due, payments: [{ledger_payment_id, date (YYYY-MM-DD), amount, reference, status}]}`, amounts as Decimal.
`amount_paid` is the money the client paid for the invoice: its payments and the prepayments and overpayments (money
received earlier) applied to it; `amount_credited` the credit notes applied to it, which lower what is owed and are
no money received (docs/decisions/invoices.md, "Money received"). `payments` are the payments only.

Idempotency (Xero, "Idempotent requests": developer.xero.com/documentation/guides/idempotent-requests/idempotency/):
a POST/PUT/PATCH may carry an `Idempotency-Key` header of at most 128 characters; Xero keeps a key for 6 minutes
from its first call and answers a second request with the same key with the first request's answer (errors
included); the same key with a different request is refused (400); after 6 minutes the key is forgotten and the
request is processed as a new one. `idempotency_key` builds the keys the callers send.
"""
from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from datetime import timedelta

from chalicelib.core.errors import BadGateway

IDEMPOTENCY_KEY_MAX = 128  # Xero: "128 character max"
IDEMPOTENCY_KEY_RETENTION = timedelta(minutes=6)  # Xero: "stored for 6 minutes from the time of the first call"


def idempotency_key(*parts, body) -> str:
    """The key of one intent: `parts` joined by `-`, then a digest of the request `body` (canonical JSON), so that
    a retry of the same request sends the same key and a changed request (which Xero would refuse under the old
    key) a new one. Never longer than IDEMPOTENCY_KEY_MAX: a longer key keeps its head and ends in a digest of
    the whole."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    key = "-".join(str(part) for part in parts) + "-" + hashlib.sha256(canonical.encode()).hexdigest()[:16]
    if len(key) <= IDEMPOTENCY_KEY_MAX:
        return key
    digest = hashlib.sha256(key.encode()).hexdigest()
    return key[:IDEMPOTENCY_KEY_MAX - len(digest) - 1] + "-" + digest


class LedgerRefused(BadGateway):
    """The ledger's refusal of a request, answered by it (Xero: an HTTP 4xx, a validation error; the sandbox: its
    rules): the request did nothing there. A 502 as any ledger failure; a push that meets it has lost no answer and
    records none (invoices service_ledger, "A push retried after the ledger forgot its key"). A timeout, a ledger not
    reached, a 5xx or an answer that cannot be read is no refusal: the request may have been done."""


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
    def create_invoice(self, invoice: dict, *, idempotency_key: str | None = None) -> dict:
        """Create a DRAFT sales invoice. `invoice`: {invoice_number, contact_name, date, due_date, currency,
        reference, lines: [{description, quantity, unit_amount, account_code, tax_type}]}.
        Answers `{ledger_invoice_id, status}`. With `idempotency_key` (module docstring), a create the ledger has
        seen with that key answers the first one's answer and makes nothing."""

    @abstractmethod
    def set_status(self, ledger_invoice_id: str, status: str, *, idempotency_key: str | None = None) -> dict:
        """AUTHORISED (approve), VOIDED (void) or DELETED (delete a draft). Answers `{status}`. Sent with
        `idempotency_key`, or one made for this call (the same on every attempt of it)."""

    @abstractmethod
    def email_invoice(self, ledger_invoice_id: str, *, idempotency_key: str | None = None) -> None:
        """E-mail an authorised invoice to its contact; the key as `set_status`'s."""

    @abstractmethod
    def get_invoices(self, ledger_invoice_ids: list[str]) -> list[dict]:
        """The state of these invoices (module docstring); ids the ledger does not know are left out."""

    @abstractmethod
    def find_invoices(self, invoice_number: str) -> list[dict]:
        """The sales invoices this application made that carry `invoice_number` exactly and are neither DELETED nor
        VOIDED, each the state `get_invoices` answers (module docstring) with its `invoice_number`; none when the
        ledger holds no such invoice. A push asks it before creating only when an earlier push of the invoice may
        have made one that the ledger no longer replays (its idempotency key forgotten after
        IDEMPOTENCY_KEY_RETENTION): docs/decisions/invoices.md, "A push retried after the ledger forgot its key"."""

    @abstractmethod
    def get_pdf(self, ledger_invoice_id: str) -> bytes:
        """The invoice as PDF bytes."""

    @abstractmethod
    def list_employees(self) -> list[dict]:
        """Payroll employees: `[{id, email, name}]`."""
