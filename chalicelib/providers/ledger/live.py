"""Xero: the OAuth 2.0 authorisation code flow (identity.xero.com), the Accounting API (invoices, PDF,
e-mail, payments) and Payroll AU (employees), through `requests`.

- Every API call carries `Authorization: Bearer <access token>` and `Xero-tenant-id`.
- An access token that has expired (or is about to) is refreshed first (`grant_type=refresh_token`, HTTP
  Basic client authentication); a 401 refreshes once and retries. Xero rotates refresh tokens: the new pair
  is handed to `on_tokens` at once (the connections area stores it encrypted, in its own transaction).
- 429: `Retry-After` honoured (providers.http); other errors are 502 carrying Xero's message (a validation
  exception's messages, or its `Detail` / `Message`).

Wire choices, checked against Xero's documents (developer.xero.com/documentation/oauth2/scopes, the granular
scopes FAQ developer.xero.com/faq/granular-scopes, and github.com/XeroAPI/Xero-OpenAPI xero_accounting.yaml and
xero-payroll-au.yaml):
- Scopes (`SCOPES`): `accounting.invoices` (the granular scope of Invoices, their PDF and Email; apps created
  on or after 2 March 2026 cannot request the broad `accounting.transactions`), `accounting.contacts` (a
  contact named on a new invoice is created), `accounting.settings.read`, `payroll.employees` (Payroll AU
  Employees and LeaveApplications, with approve/reject: Xero has no `payroll.leaveapplications` scope, and
  an unknown scope makes the consent page fail) and `payroll.settings.read` (GET PayItems only).
- Invoices: `PUT /Invoices` creates, `POST /Invoices/{id}` changes the status, `POST /Invoices/{id}/Email` with
  `{}` answers 204, `GET /Invoices/{id}` with `Accept: application/pdf` is the PDF; `GET /Invoices?IDs=a,b&page=n`
  (up to 100 a page, line items included) reads state. Amounts are JSON numbers (read through `str` into
  Decimal); dates are `/Date(ms+0000)/` (read as the UTC day). An invoice's `Payments` summaries carry
  `PaymentID, Date, Amount, Reference, CurrencyRate` but no `Status`: a payment applied to an invoice is
  AUTHORISED (a deleted one leaves the list), so that is the status answered when Xero gives none.
  `amount_paid` is the money the client paid: `AmountPaid` plus the `AppliedAmount` of each of the invoice's
  `Prepayments` and `Overpayments` (Xero counts those in `AmountCredited`, not `AmountPaid`); the `CreditNotes`
  applied are `amount_credited`, no money received (`_settled`). The payment records are `Payments` only.
- Ids in a path are percent-encoded as one segment (`providers.http.segment`, audit S3): a ledger invoice id can
  be set by hand.
- The organisation connected is one the user has just authorised: the access token's
  `authentication_event_id` claim filters `GET /connections?authEventId=` (xero-identity.yaml), so an
  organisation connected earlier (listed first without the filter) is not taken instead.
- Payroll AU `GET /Employees?page=n` (up to 100 a page) lists TERMINATED employees too: only those not
  TERMINATED are answered (the sandbox answers active users only).
- A create given an idempotency key sends it as `Idempotency-Key` (base.py: at most 128 characters, kept 6
  minutes by Xero), on every attempt of the call: the retry of a 429 (providers.http) and the one after a token
  refresh carry the same key. A status change (`POST /Invoices/{id}`, updateInvoice) and an e-mail (`POST
  /Invoices/{id}/Email`, emailInvoice) send one too (xero_accounting.yaml lists the `Idempotency-Key` header on
  both): the caller's, else one made for the call (`_call_key`), the same on each of its attempts.
- A push's look (`find_invoices`, session 32): `GET /Invoices` with `InvoiceNumbers=<number>` ("Filter by a
  comma-separated list of InvoiceNumbers", style form, explode false), `Statuses=DRAFT,SUBMITTED,AUTHORISED,PAID`
  ("Filter by a comma-separated list Statuses"), `createdByMyApp=true` ("When set to true you'll only retrieve
  Invoices created by your app") and `page` ("Up to 100 invoices will be returned in a single API call with line
  items shown for each invoice"): xero_accounting.yaml, getInvoices (XeroAPI/Xero-OpenAPI, commit e952d0b). The
  answer is an `Invoices` list as the `IDs` read's, each with `Type` (ACCREC a sales invoice, ACCPAY a bill),
  `InvoiceNumber`, `Contact.Name`, `Status`, `CurrencyCode` and `Total` (getInvoices' example). The filter's
  matching (exact, case) is not documented, nor whether a number holding a comma is split: only a sales invoice
  whose `InvoiceNumber` is the number itself, in a status asked, is answered. On uniqueness the Invoice schema says
  "InvoiceNumber: ACCREC – Unique alpha numeric code identifying invoice" (ACCPAY: "non-unique",
  developer.xero.com/documentation/api/invoices), and Xero refuses a second sales invoice with a number it holds
  with the validation error "Invoice # must be unique." (the message in xero_accounting.yaml's getInvoice example;
  also reported by integrations: Bill.com's and Chargebee's help pages "Xero sync error: Invoice # must be unique",
  fixed by deleting the duplicate). So a push retried after Xero forgot its key meets that refusal (a 502) rather
  than a second invoice; either way the look finds the first one instead. Not documented: whether a VOIDED or
  DELETED invoice keeps its number from a new one (the area pushes again after a delete in the ledger, as before).
"""
from __future__ import annotations

import base64
import json
import logging
import re
import time
import uuid
from datetime import date, datetime, timezone
from decimal import Decimal, InvalidOperation
from urllib.parse import urlencode

from chalicelib.core.errors import BadGateway, BadRequest
from chalicelib.core.settings import get_settings
from chalicelib.providers import http

from .base import IDEMPOTENCY_KEY_MAX, LedgerAuth, LedgerProvider, LedgerRefused, idempotency_key

AUTHORIZE_URL = "https://login.xero.com/identity/connect/authorize"
TOKEN_URL = "https://identity.xero.com/connect/token"
CONNECTIONS_URL = "https://api.xero.com/connections"
ACCOUNTING = "https://api.xero.com/api.xro/2.0"
PAYROLL = "https://api.xero.com/payroll.xro/1.0"
SCOPES = ("openid profile email offline_access accounting.invoices accounting.contacts "
          "accounting.settings.read payroll.employees payroll.settings.read")
PAGE_SIZE = 100
EMPLOYEE_ID_MAX = 100  # connections' user_mappings.ledger_id
IDS_PER_CALL = 50
LOOKED_FOR = ("DRAFT", "SUBMITTED", "AUTHORISED", "PAID")  # a push's look: the statuses of an invoice it may take
MAX_PAGES = 100  # pages read in one listing at most (10 000 records); more is a 502, never an endless loop
NAME = "The accounting ledger"
log = logging.getLogger("wms.ledger")


def _max_wait() -> float:
    return get_settings().ledger_max_retry_wait


def xero_message(response) -> str:
    """Xero's own words for a failed call."""
    try:
        body = http.read_json(response)  # no NUL, no lone surrogate (session 30)
    except ValueError:
        return (response.text or "").strip()[:300] or f"HTTP {response.status_code}"
    if not isinstance(body, dict):
        return f"HTTP {response.status_code}"
    # an Elements or ValidationErrors that is not a list of objects is read as none (session 29: .get was a 500)
    elements = body.get("Elements") if isinstance(body.get("Elements"), list) else []
    messages = [str(error.get("Message")) for element in elements if isinstance(element, dict)
                for error in (element.get("ValidationErrors") if isinstance(element.get("ValidationErrors"), list)
                              else []) if isinstance(error, dict) and error.get("Message")]
    if messages:
        return "; ".join(messages)
    return str(body.get("Detail") or body.get("Message") or body.get("error_description") or body.get("error")
               or body.get("Title") or f"HTTP {response.status_code}")


def xero_date(value) -> str | None:
    """`/Date(1573603200000+0000)/` or `2019-11-13T00:00:00` -> `2019-11-13`; None when absent or unreadable (a
    word, a number, a day past the calendar: session 30, the payment's date then failed the sync's
    `date.fromisoformat`, and a /Date/ past the calendar raised OverflowError, each a 500)."""
    if not value or not isinstance(value, str):
        return None
    match = re.match(r"/Date\((-?\d+)([+-]\d{4})?\)/", value)
    try:
        if match:
            return datetime.fromtimestamp(int(match.group(1)) / 1000, tz=timezone.utc).date().isoformat()
        return date.fromisoformat(value[:10]).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


MAX_AMOUNT = Decimal(10) ** 14
"""An amount at or past this is no invoice's money: the invoices' money columns are Numeric(16, 2)."""
TEXT_MAX = 100
"""The longest id or status of an invoice's answer that is read: Xero's ids are GUIDs (36 characters) and its
statuses words of at most 10; the invoices area stores payment ids in 100 characters and statuses in 20."""
STATUS_MAX = 20


def unreadable(what: str) -> BadGateway:
    """The 502 of an invoice whose `what` is outside Xero's documented Invoice (xero_accounting.yaml,
    components.schemas.Invoice). Raised with no cause, as a refusal of the request is: the batch sync then asks
    the invoices again in halves and reports the invoice alone (invoices service_ledger_sync._refused), the others
    synced (session 30: a KeyError or TypeError here was a 500 on the routes and ended the hourly job)."""
    return BadGateway(f"The accounting ledger answered an invoice whose {what} cannot be read")


def _money(value, what: str = "amount") -> Decimal:
    """A Xero amount (a JSON number, read through `str`), 0 when absent; one that is no number (a word, a boolean,
    an object), not finite or past MAX_AMOUNT is `unreadable` (session 30: Decimal raised InvalidOperation, and a
    figure past the columns failed the write, each a 500)."""
    if value is None or value == "":
        return Decimal("0")
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise unreadable(what)
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise unreadable(what) from None
    if not number.is_finite() or abs(number) >= MAX_AMOUNT:
        raise unreadable(what)
    return number


def _text(value, what: str, limit: int = TEXT_MAX) -> str | None:
    """A string field (None when absent); one that is no string or longer than `limit` is `unreadable`."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise unreadable(what)
    return value


def _invoice_id(item: dict) -> str:
    """An invoice's `InvoiceID` (a GUID string), else `unreadable`."""
    return http.read_id(item.get("InvoiceID"), TEXT_MAX, unreadable("InvoiceID").message)


def _items(item: dict, field: str) -> list[dict]:
    """An invoice's list of `field` (Payments, Prepayments, Overpayments, CreditNotes), none when absent; a list
    that is not of objects is the 502 `unreadable` (session 30: `.get` on a string was an AttributeError)."""
    value = item.get(field)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(entry, dict) for entry in value):
        raise unreadable(field)
    return value


def _applied(item: dict, field: str) -> tuple[Decimal, bool]:
    """The sum of the `AppliedAmount`s of an invoice's `Prepayments`, `Overpayments` or `CreditNotes` (each item is
    the Prepayment / Overpayment / CreditNote schema, whose `AppliedAmount` is "The amount of applied to an
    invoice": xero_accounting.yaml), and whether every item carried one."""
    items = _items(item, field)
    return (sum((_money(entry.get("AppliedAmount"), f"{field} AppliedAmount") for entry in items), Decimal("0")),
            all(entry.get("AppliedAmount") is not None for entry in items))


def _settled(item: dict) -> tuple[Decimal, Decimal]:
    """`(amount_paid, amount_credited)` of a Xero invoice (docs/decisions/invoices.md, "Money received"): the money
    the client paid is `AmountPaid` ("Sum of payments received for invoice") plus the prepayments and overpayments
    applied to it (a deposit, a payment of more than was owed, allocated here: money received, counted in Xero's
    `AmountCredited`, "Sum of all credit notes, over-payments and pre-payments applied to invoice", not in
    `AmountPaid`); a credit note applied lowers what is owed and is no money received: it is `amount_credited`.
    When an allocation lacks its `AppliedAmount` (the list answer is expected to carry it: the invoice's
    `Prepayments`, `Overpayments` and `CreditNotes` are those schemas), the money part is `AmountCredited` less the
    credit notes' amounts when those are all known, else only what is known is counted (logged)."""
    paid, credited_all = _money(item.get("AmountPaid"), "AmountPaid"), _money(item.get("AmountCredited"),
                                                                                "AmountCredited")
    prepaid, prepaid_known = _applied(item, "Prepayments")
    overpaid, overpaid_known = _applied(item, "Overpayments")
    notes, notes_known = _applied(item, "CreditNotes")
    money = prepaid + overpaid
    if not (prepaid_known and overpaid_known):
        if notes_known and item.get("AmountCredited") is not None:
            money = max(money, credited_all - notes)
        else:
            log.warning("ledger invoice %s: an allocation without AppliedAmount; amount_paid may be short",
                        item.get("InvoiceID"))
    if not notes_known and item.get("AmountCredited") is not None:
        notes = max(notes, credited_all - money)
    return paid + money, notes


def _call_key(action: str, ledger_invoice_id: str, body) -> str:
    """The Idempotency-Key of one call of a move (a status change, an e-mail) given none by its caller: new for each
    call (a uuid4), so the adapter's own retries of it (a 429's, the one after a token refresh: `_call`) send the
    same key and two calls never do."""
    return idempotency_key("wms-invoice", action, ledger_invoice_id, uuid.uuid4().hex, body=body)


def _claim(jwt: str, name: str) -> str | None:
    """One claim of a JWT's payload, read without checking its signature (Xero's own answer over TLS);
    None when the token is not a JWT or lacks the claim."""
    try:
        payload = jwt.split(".")[1]
        value = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))).get(name)
    except (IndexError, ValueError, AttributeError):
        return None
    return str(value) if value else None


class XeroAuth(LedgerAuth):
    def __init__(self, *, client_id: str, client_secret: str, redirect_uri: str) -> None:
        self.client_id, self.client_secret, self.redirect_uri = client_id, client_secret, redirect_uri

    def authorize_url(self, state: str) -> str:
        return AUTHORIZE_URL + "?" + urlencode({"response_type": "code", "client_id": self.client_id,
                                                "redirect_uri": self.redirect_uri, "scope": SCOPES, "state": state})

    def _token(self, form: dict) -> dict:
        basic = base64.b64encode(f"{self.client_id}:{self.client_secret}".encode()).decode()
        response = http.send("POST", TOKEN_URL, name=NAME, max_wait=_max_wait(), data=form,
                             headers={"Authorization": f"Basic {basic}", "Accept": "application/json"})
        if response.status_code == 400:
            raise BadRequest(f"The accounting ledger refused the authorisation: {xero_message(response)}")
        if response.status_code != 200:
            raise BadGateway(f"The accounting ledger token endpoint failed: {xero_message(response)}")
        body = http.json_body(response, NAME)  # session 29: a body that is not JSON, a list or an unreadable
        if not isinstance(body, dict) or not body.get("access_token"):  # expires_in was a 500
            raise BadGateway("The accounting ledger answered no access token")
        try:
            lifetime = float(body.get("expires_in") or 1800)
        except (TypeError, ValueError):
            lifetime = 1800.0  # Xero's access tokens last 30 minutes
        return {"access_token": body["access_token"], "refresh_token": body.get("refresh_token"),
                "expires_at": time.time() + lifetime}

    def refresh(self, refresh_token: str) -> dict:
        try:
            return self._token({"grant_type": "refresh_token", "refresh_token": refresh_token})
        except BadRequest as exc:  # invalid_grant: the connection must be made again
            raise BadGateway(f"{exc.message}; reconnect the ledger") from exc

    def exchange_code(self, code: str) -> dict:
        tokens = self._token({"grant_type": "authorization_code", "code": code, "redirect_uri": self.redirect_uri})
        auth_event = _claim(tokens["access_token"], "authentication_event_id")
        response = http.send("GET", CONNECTIONS_URL, name=NAME, max_wait=_max_wait(),
                             params={"authEventId": auth_event} if auth_event else None,
                             headers={"Authorization": f"Bearer {tokens['access_token']}",
                                      "Accept": "application/json"})
        if response.status_code != 200:
            raise BadGateway(f"The accounting ledger connections lookup failed: {xero_message(response)}")
        connections = http.json_body(response, NAME)  # a list (session 29: not JSON, or an object, was a 500)
        if not isinstance(connections, list):
            raise BadGateway("The accounting ledger connections lookup answered no list of connections")
        tenants = [t for t in connections if isinstance(t, dict) and t.get("tenantId")
                   and t.get("tenantType", "ORGANISATION") == "ORGANISATION"]
        if not tenants:
            raise BadRequest("The accounting ledger authorisation gave access to no organisation")
        # tenantId a GUID string, tenantName a string: an id that cannot be kept (no string, past the 100 characters of
        # connections.external_id) is the ledger's 502, a name that is no string none (session 30: a 400 after the
        # one-use code was spent, a 500)
        tenant_id = http.read_id(tenants[0]["tenantId"], 100,
                                 "The accounting ledger answered a tenantId that cannot be read")
        return {**tokens, "tenant_id": tenant_id, "org_name": http.text(tenants[0].get("tenantName"))}


class XeroLedger(LedgerProvider):
    def __init__(self, *, auth: XeroAuth | None, tokens: dict, tenant_id: str, on_tokens=None) -> None:
        self.auth, self.tokens, self.tenant_id, self.on_tokens = auth, dict(tokens), tenant_id, on_tokens

    # ---- transport
    def _refresh(self) -> None:
        if self.auth is None or not self.tokens.get("refresh_token"):
            raise BadGateway("The accounting ledger access token expired and cannot be refreshed; reconnect")
        fresh = self.auth.refresh(self.tokens["refresh_token"])
        self.tokens.update(fresh)
        if self.on_tokens is not None:
            self.on_tokens(fresh)

    def _call(self, method: str, url: str, *, accept: str = "application/json", idempotency_key: str | None = None,
              **kwargs):
        if idempotency_key is not None and not 0 < len(idempotency_key) <= IDEMPOTENCY_KEY_MAX:
            raise ValueError(f"an Idempotency-Key has 1 to {IDEMPOTENCY_KEY_MAX} characters")
        expires_at = self.tokens.get("expires_at")
        if expires_at and float(expires_at) < time.time() + 60:
            self._refresh()
        for attempt in (1, 2):
            headers = {"Authorization": f"Bearer {self.tokens['access_token']}", "Xero-tenant-id": self.tenant_id,
                       "Accept": accept}
            if idempotency_key is not None:
                headers["Idempotency-Key"] = idempotency_key
            response = http.send(method, url, name=NAME, max_wait=_max_wait(), headers=headers, **kwargs)
            if response.status_code == 401 and attempt == 1 and self.auth is not None:
                self._refresh()
                continue
            if response.status_code >= 400:  # a 4xx is Xero's refusal (it did nothing), a 5xx its failure
                failure = LedgerRefused if response.status_code < 500 else BadGateway
                raise failure(f"The accounting ledger refused the request: {xero_message(response)}")
            return response
        raise AssertionError("unreachable")

    def _invoice_body(self, response) -> dict:
        try:
            made = http.read_json(response)["Invoices"][0]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise BadGateway("The accounting ledger answered an unreadable invoice") from exc
        if not isinstance(made, dict):  # session 30: `made["InvoiceID"]` / `.get` on a string or list was a 500
            raise BadGateway("The accounting ledger answered an unreadable invoice")
        return made

    # ---- invoices
    def create_invoice(self, invoice: dict, *, idempotency_key: str | None = None) -> dict:
        body = {"Invoices": [{
            "Type": "ACCREC", "Contact": {"Name": invoice["contact_name"]}, "Status": "DRAFT",
            "LineAmountTypes": "Exclusive", "InvoiceNumber": invoice["invoice_number"],
            "Reference": invoice.get("reference") or "", "Date": invoice["date"],
            **({"DueDate": invoice["due_date"]} if invoice.get("due_date") else {}),
            "CurrencyCode": invoice.get("currency") or "AUD",
            "LineItems": [{"Description": line["description"], "Quantity": float(line["quantity"]),
                           "UnitAmount": float(line["unit_amount"]),
                           **({"AccountCode": line["account_code"]} if line.get("account_code") else {}),
                           **({"TaxType": line["tax_type"]} if line.get("tax_type") else {})}
                          for line in invoice["lines"]],
        }]}
        made = self._invoice_body(self._call("PUT", f"{ACCOUNTING}/Invoices", json=body,
                                             idempotency_key=idempotency_key))
        ledger_id = _invoice_id(made)  # session 30: a KeyError, a 500 on the push
        return {"ledger_invoice_id": ledger_id, "status": _text(made.get("Status"), "Status", STATUS_MAX) or "DRAFT"}

    def set_status(self, ledger_invoice_id: str, status: str, *, idempotency_key: str | None = None) -> dict:
        body = {"Invoices": [{"InvoiceID": ledger_invoice_id, "Status": status}]}
        key = idempotency_key or _call_key("status", ledger_invoice_id, body)
        made = self._invoice_body(self._call("POST", f"{ACCOUNTING}/Invoices/{http.segment(ledger_invoice_id)}",
                                             json=body, idempotency_key=key))
        return {"status": _text(made.get("Status"), "Status", STATUS_MAX) or status}

    def email_invoice(self, ledger_invoice_id: str, *, idempotency_key: str | None = None) -> None:
        key = idempotency_key or _call_key("email", ledger_invoice_id, {})
        self._call("POST", f"{ACCOUNTING}/Invoices/{http.segment(ledger_invoice_id)}/Email", json={},
                   idempotency_key=key)

    def get_invoices(self, ledger_invoice_ids: list[str]) -> list[dict]:
        found = []
        ids = list(dict.fromkeys(ledger_invoice_ids))
        for start in range(0, len(ids), IDS_PER_CALL):
            chunk = ids[start:start + IDS_PER_CALL]
            for page in range(1, MAX_PAGES + 1):
                response = self._call("GET", f"{ACCOUNTING}/Invoices",
                                      params={"IDs": ",".join(chunk), "page": page})
                # session 29: a body that is not JSON (ValueError), a list, or Invoices that are not a list of
                # objects was a 500; the ledger's failure, 502
                invoices = http.objects(http.json_object(response, NAME).get("Invoices"), NAME, "invoices")
                found += [self._state(item) for item in invoices]
                if len(invoices) < PAGE_SIZE:
                    break
            else:
                raise BadGateway("The accounting ledger answered too many pages of invoices")
        return found

    def find_invoices(self, invoice_number: str) -> list[dict]:
        """`GET /Invoices?InvoiceNumbers=<number>&Statuses=DRAFT,SUBMITTED,AUTHORISED,PAID&createdByMyApp=true&page=n`
        (module docstring, "A push's look"); of what Xero answers, only the sales invoices (`Type` ACCREC) whose
        `InvoiceNumber` is the number itself and whose `Status` is one of those asked are answered."""
        found = []
        for page in range(1, MAX_PAGES + 1):
            response = self._call("GET", f"{ACCOUNTING}/Invoices",
                                  params={"InvoiceNumbers": invoice_number, "Statuses": ",".join(LOOKED_FOR),
                                          "createdByMyApp": "true", "page": page})
            invoices = http.objects(http.json_object(response, NAME).get("Invoices"), NAME, "invoices")
            found += [{**self._state(item), "invoice_number": invoice_number} for item in invoices
                      if item.get("Type") == "ACCREC" and item.get("InvoiceNumber") == invoice_number
                      and item.get("Status") in LOOKED_FOR]
            if len(invoices) < PAGE_SIZE:
                return found
        raise BadGateway("The accounting ledger answered too many pages of invoices")

    @staticmethod
    def _state(item: dict) -> dict:
        """One invoice of GET /Invoices as the state base.py names; any field outside Xero's documented Invoice
        (no `InvoiceID`, a list of records that are no objects, an amount or a date that cannot be read, a text
        that is no string) is the 502 `unreadable` (session 30)."""
        ledger_id = _invoice_id(item)
        contact = item.get("Contact")
        if contact is not None and not isinstance(contact, dict):
            raise unreadable("Contact")
        received, credited = _settled(item)
        payments = []
        for p in _items(item, "Payments"):
            if not p.get("PaymentID"):
                continue
            day = xero_date(p.get("Date"))
            if p.get("Date") and day is None:
                raise unreadable("payment Date")
            payments.append({"ledger_payment_id": _text(p["PaymentID"], "PaymentID"), "date": day,
                             "amount": _money(p.get("Amount"), "payment Amount"),
                             "reference": _text(p.get("Reference"), "payment Reference", 4000),
                             "status": _text(p.get("Status"), "payment Status", STATUS_MAX) or "AUTHORISED"})
        return {"ledger_invoice_id": ledger_id, "status": _text(item.get("Status"), "Status", STATUS_MAX),
                "contact_name": _text((contact or {}).get("Name"), "Contact Name", 4000),
                "currency": _text(item.get("CurrencyCode"), "CurrencyCode"),
                "total": _money(item.get("Total"), "Total"), "amount_paid": received, "amount_credited": credited,
                "amount_due": _money(item.get("AmountDue"), "AmountDue"), "payments": payments}

    def get_pdf(self, ledger_invoice_id: str) -> bytes:
        return self._call("GET", f"{ACCOUNTING}/Invoices/{http.segment(ledger_invoice_id)}",
                          accept="application/pdf").content

    # ---- payroll
    def list_employees(self) -> list[dict]:
        people = []
        for page in range(1, MAX_PAGES + 1):
            response = self._call("GET", f"{PAYROLL}/Employees", params={"page": page})
            employees = http.objects(http.json_object(response, NAME).get("Employees"), NAME, "employees")
            for e in employees:
                # an id that is no string or number, or past user_mappings.ledger_id's 100 characters (its upsert was
                # a 500 on the sync), is no employee; an e-mail or a name that is no string is none (session 30:
                # `.strip` or the join raised, a 500 on the user-mapping sync)
                employee_id = http.json_id(e.get("EmployeeID"), EMPLOYEE_ID_MAX) if e.get("EmployeeID") else None
                if employee_id is None or e.get("Status") == "TERMINATED":
                    continue
                email = http.text(e.get("Email"))
                people.append({"id": employee_id, "email": (email or "").strip().lower() or None,
                               "name": " ".join(p for p in (http.text(e.get("FirstName")),
                                                            http.text(e.get("LastName"))) if p)})
            if len(employees) < PAGE_SIZE:
                return people
        raise BadGateway("The accounting ledger answered too many pages of employees")
