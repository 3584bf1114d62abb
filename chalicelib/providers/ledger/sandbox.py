"""Sandbox ledger: keeps invoices, statuses, payments and PDFs in `ledger_sandbox_invoices` and behaves like
Xero for ordinary input: DRAFT -> AUTHORISED -> (PAID when payments cover it) or VOIDED; only a draft can be
DELETED; only an authorised (or paid) invoice can be e-mailed; an invoice whose total is below zero cannot be
approved (a credit note's job); an authorised invoice with payments cannot be voided; a contact name containing `invalid` is a validation error (502). Totals: the lines' amounts plus 10%
GST, rounded half up to the cent. `record_payment` plays the customer paying (tests, `make run`). The OAuth
flow accepts any code except one containing `invalid`. Payroll employees: one per active user, by e-mail
(none at the domain `nopayroll.test`).

A created invoice is the ledger's own record: it is committed at once, in a transaction of its own, and kept
whatever becomes of the caller's (a request failing after Xero made an invoice leaves it in Xero). A create with
an idempotency key behaves as Xero's (base.py): a key seen in the last 6 minutes answers the first create's answer
and makes nothing, or is refused (502) when it comes with a different invoice; an older one is forgotten.

So is a move (`set_status`, `email_invoice`; session 32): done in a transaction of its own (`own_unit`), kept
whatever becomes of the caller's, and, given a key, replayed as Xero replays it: the same key within 6 minutes
answers the first move's answer, its refusal included, and does nothing; with another move, 502. The keys of the
moves are kept in `sandbox_outbox` (provider `ledger`, `external_id` the key, `payload` the move and its answer):
the sandbox's table of what its providers did (docs/decisions/invoices.md, session 32)."""
from __future__ import annotations

import hashlib
import uuid
from contextlib import contextmanager
from datetime import date
from decimal import Decimal
from urllib.parse import urlencode

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from chalicelib.core.errors import BadGateway, BadRequest
from chalicelib.core.ids import utcnow
from chalicelib.core.money import line_amount, line_gst
from chalicelib.core.timeutil import org_today

from .base import IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_RETENTION, LedgerAuth, LedgerProvider, LedgerRefused
from .models import LedgerSandboxInvoice

CENT = Decimal("0.01")


class SandboxLedgerAuth(LedgerAuth):
    def __init__(self, *, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")

    def authorize_url(self, state: str) -> str:
        return f"{self.base_url}/sandbox/ledger/authorize?" + urlencode({"response_type": "code", "state": state})

    def exchange_code(self, code: str) -> dict:
        if "invalid" in code.lower():
            raise BadRequest("The accounting ledger refused the authorisation: invalid_grant")
        digest = hashlib.sha256(code.encode()).hexdigest()
        return {"access_token": f"sandbox-access-{digest[:24]}", "refresh_token": f"sandbox-refresh-{digest[24:48]}",
                "expires_at": utcnow().timestamp() + 1800, "tenant_id": str(uuid.UUID(digest[:32])),
                "org_name": "Sandbox Organisation"}


def _pdf(number: str, contact: str, total: Decimal) -> bytes:
    """A small, valid one-page PDF naming the invoice."""
    text = f"Tax invoice {number} - {contact} - total {total}".replace("(", "[").replace(")", "]")
    stream = f"BT /F1 14 Tf 72 720 Td ({text}) Tj ET".encode("latin-1", "replace")
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number_, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number_} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def record_payment(db, ledger_invoice_id: str, amount, *, on: date | None = None, reference: str | None = None) -> dict:
    """The customer pays (part of) a sandbox invoice: AUTHORISED -> PAID once the total is covered. Dated `on`, else
    the organisation's day (Xero dates payments in the organisation's time zone)."""
    row = db.get(LedgerSandboxInvoice, ledger_invoice_id)
    if row is None or row.status not in ("AUTHORISED",):
        raise BadGateway("Payment not applied: the invoice is not AUTHORISED")
    payment = {"ledger_payment_id": str(uuid.uuid4()), "date": (on or org_today()).isoformat(),
               "amount": str(Decimal(str(amount)).quantize(CENT)), "reference": reference, "status": "AUTHORISED"}
    row.payments = [*row.payments, payment]
    row.amount_paid = Decimal(row.amount_paid) + Decimal(payment["amount"])
    if row.amount_paid >= row.total:
        row.status = "PAID"
    row.updated_at = utcnow()
    db.flush()
    return payment


REFUSED = "The accounting ledger refused the request"


def check_key(idempotency_key: str | None, refused: str) -> None:
    """Xero's bound on an Idempotency-Key: 1 to IDEMPOTENCY_KEY_MAX characters (502 with the provider's words)."""
    if idempotency_key is not None and not 0 < len(idempotency_key) <= IDEMPOTENCY_KEY_MAX:
        raise LedgerRefused(f"{refused}: Idempotency-Key must be 1 to {IDEMPOTENCY_KEY_MAX} characters")


def create_once(model, fields: dict, idempotency_key: str | None, refused: str, make) -> dict:
    """A sandbox record made as Xero makes one (base.py, "Idempotency"), in a transaction of its own (a real
    ledger keeps it whatever becomes of the caller's): with a key seen within IDEMPOTENCY_KEY_RETENTION, the first
    record (502 when the key came with other `fields`), an older key forgotten; a concurrent create with the same
    key answers the one made first. Answers `{id}` of the record (`make()` builds a new one)."""
    from chalicelib.core.db import unit_of_work

    def attempt() -> dict:
        with unit_of_work() as uow:
            if idempotency_key is not None:
                seen = uow.session.scalar(select(model).where(model.idempotency_key == idempotency_key)
                                          .with_for_update())
                if seen is not None and seen.created_at > utcnow() - IDEMPOTENCY_KEY_RETENTION:
                    if {key: getattr(seen, key) for key in fields} != fields:
                        raise LedgerRefused(f"{refused}: The Idempotency-Key was used with a different request")
                    return {"id": seen.id}
                if seen is not None:  # older than Xero keeps a key: forgotten, the request is a new one
                    seen.idempotency_key = None
                    uow.session.flush()
            row = make()
            uow.session.add(row)
            uow.session.flush()
            return {"id": row.id}

    try:
        return attempt()
    except IntegrityError:  # a concurrent create with the same key made it first: answer that one
        return attempt()


@contextmanager
def own_unit(provider):
    """A sandbox provider's write in a transaction of its own, as the real provider keeps what it did whatever
    becomes of the caller's transaction (session 32: a move, a rejection, a booking or an event written in the
    caller's was undone by its rollback, which no live provider does). While the block runs `provider.db` is the
    unit's session (committed at the block's end, rolled back when it raises); then the caller's again, its copies of
    the rows the unit wrote expired so that it reads them as the provider holds them. The caller holds no lock on a
    sandbox's rows (it never writes them), so the unit never waits on it."""
    from chalicelib.core.db import unit_of_work

    caller, written = provider.db, []
    try:
        with unit_of_work() as uow:
            provider.db = uow.session
            yield uow.session
            uow.session.flush()
            written = list(uow.session.identity_map.keys())
    finally:
        provider.db = caller
    if caller is not None:
        for key in written:
            held = caller.identity_map.get(key)
            if held is not None:
                caller.expire(held)


MOVES = "ledger"  # the outbox's provider of the ledger's moves (module docstring)


def _replayed(db, idempotency_key: str | None, move: dict) -> dict | None:
    """The move seen with this key within IDEMPOTENCY_KEY_RETENTION, as Xero replays it: its answer, or its refusal
    raised again (502 when the key came with another move); None when the key is new (or forgotten)."""
    from chalicelib.core.notify_models import SandboxOutboxMessage

    if idempotency_key is None:
        return None
    seen = db.scalar(select(SandboxOutboxMessage.payload).where(
        SandboxOutboxMessage.provider == MOVES, SandboxOutboxMessage.external_id == idempotency_key,
        SandboxOutboxMessage.created_at > utcnow() - IDEMPOTENCY_KEY_RETENTION)
        .order_by(SandboxOutboxMessage.created_at.desc()).limit(1))
    if seen is None:
        return None
    if seen["move"] != move:
        raise BadGateway(f"{REFUSED}: The Idempotency-Key was used with a different request")
    if seen.get("refused"):
        raise BadGateway(seen["refused"])
    return seen["answer"]


def _keep_move(db, idempotency_key: str | None, ledger_invoice_id: str, move: dict, *, answer=None,
               refused: str | None = None) -> None:
    """The move's key and answer (or refusal), for `_replayed`; nothing without a key."""
    from chalicelib.core.notify_models import SandboxOutboxMessage

    if idempotency_key is not None:
        db.add(SandboxOutboxMessage(provider=MOVES, target=ledger_invoice_id, subject=move["move"], body=None,
                                    payload={"move": move, "answer": answer, "refused": refused},
                                    external_id=idempotency_key))


class SandboxLedger(LedgerProvider):
    def __init__(self, *, db) -> None:
        self.db = db

    def _row(self, ledger_invoice_id: str, *, lock: bool = False) -> LedgerSandboxInvoice:
        """The invoice (`lock`: its row locked for a move, so concurrent moves take turns as Xero's do); 502 with
        Xero's words for an id it does not hold."""
        row = self.db.get(LedgerSandboxInvoice, ledger_invoice_id, with_for_update=lock or None)
        if row is None:
            raise BadGateway("The accounting ledger refused the request: The resource you're looking for cannot be "
                             "found")
        return row

    def create_invoice(self, invoice: dict, *, idempotency_key: str | None = None) -> dict:
        contact = invoice["contact_name"] or ""
        if not contact.strip() or "invalid" in contact.lower():
            raise LedgerRefused("The accounting ledger refused the request: A Contact must be specified with a "
                                "valid Name")
        check_key(idempotency_key, REFUSED)
        lines = [{"description": line["description"], "quantity": str(line["quantity"]),
                  "unit_amount": str(line["unit_amount"]), "account_code": line.get("account_code"),
                  "tax_type": line.get("tax_type")} for line in invoice["lines"]]
        # as Xero ("Rounding in Xero"): each line amount rounded to the cent, GST taken on each line and rounded there
        amounts = [(line_amount(line["quantity"], line["unit_amount"]), line["tax_type"]) for line in lines]
        total = sum((amount + line_gst(amount, tax_type) for amount, tax_type in amounts), Decimal("0"))
        fields = {"invoice_number": invoice["invoice_number"], "contact_name": contact,
                  "currency": invoice.get("currency") or "AUD", "lines": lines}
        row = create_once(LedgerSandboxInvoice, fields, idempotency_key, REFUSED, lambda: LedgerSandboxInvoice(
            id=str(uuid.uuid4()), status="DRAFT", total=total, amount_paid=Decimal("0"), payments=[],
            pdf=_pdf(fields["invoice_number"], contact, total), idempotency_key=idempotency_key, **fields))
        return {"ledger_invoice_id": row["id"], "status": "DRAFT"}  # a replay answers the first create's answer

    def set_status(self, ledger_invoice_id: str, status: str, *, idempotency_key: str | None = None) -> dict:
        check_key(idempotency_key, REFUSED)
        move = {"move": "status", "ledger_invoice_id": ledger_invoice_id, "status": status}
        refused = None
        with own_unit(self) as db:  # Xero keeps a move whatever the caller does next (`own_unit`)
            replayed = _replayed(db, idempotency_key, move)
            if replayed is not None:
                return replayed
            row = self._row(ledger_invoice_id, lock=True)
            refused = self._refusal(row, status)
            if refused is None:
                row.status = status
                row.updated_at = utcnow()
            _keep_move(db, idempotency_key, ledger_invoice_id, move, answer={"status": status}, refused=refused)
        if refused is not None:  # kept first: Xero answers the refusal again to the same key
            raise BadGateway(refused)
        return {"status": status}

    @staticmethod
    def _refusal(row: LedgerSandboxInvoice, status: str) -> str | None:
        """Xero's refusal of moving the invoice to `status`, else None."""
        allowed = {"AUTHORISED": ("DRAFT", "SUBMITTED"), "DELETED": ("DRAFT", "SUBMITTED"), "VOIDED": ("AUTHORISED",)}
        if status not in allowed or row.status not in allowed[status]:
            return f"{REFUSED}: Invoice not of valid status for {status.lower()} (it is {row.status})"
        if status == "AUTHORISED" and Decimal(row.total) < 0:  # as Xero: a sales invoice below zero is a credit note's
            return f"{REFUSED}: An invoice with a total below zero cannot be approved (use a credit note)"
        if status == "VOIDED" and row.payments:
            return f"{REFUSED}: Invoice has payments allocated and cannot be voided"
        return None

    def email_invoice(self, ledger_invoice_id: str, *, idempotency_key: str | None = None) -> None:
        check_key(idempotency_key, REFUSED)
        move = {"move": "email", "ledger_invoice_id": ledger_invoice_id}
        refused = None
        with own_unit(self) as db:  # an e-mail sent is sent, whatever the caller does next
            if _replayed(db, idempotency_key, move) is not None:
                return
            row = self._row(ledger_invoice_id, lock=True)
            if row.status not in ("AUTHORISED", "PAID"):
                refused = f"{REFUSED}: Invoice must be AUTHORISED to be emailed"
            else:
                row.emailed_at = utcnow()
            _keep_move(db, idempotency_key, ledger_invoice_id, move, answer={}, refused=refused)
        if refused is not None:
            raise BadGateway(refused)

    def get_invoices(self, ledger_invoice_ids: list[str]) -> list[dict]:
        ids = sorted(set(ledger_invoice_ids))
        if not ids:
            return []
        rows = self.db.scalars(select(LedgerSandboxInvoice).where(LedgerSandboxInvoice.id.in_(ids))).all()
        return [self._state(row) for row in rows]

    def find_invoices(self, invoice_number: str) -> list[dict]:
        """As Xero's look by number (live.py): the invoices of its table that carry the number and are neither DELETED
        nor VOIDED (every one is this application's), oldest first. A read, as `get_invoices`: nothing is written."""
        rows = self.db.scalars(select(LedgerSandboxInvoice).where(
            LedgerSandboxInvoice.invoice_number == invoice_number,
            LedgerSandboxInvoice.status.not_in(("DELETED", "VOIDED")))
            .order_by(LedgerSandboxInvoice.created_at, LedgerSandboxInvoice.id)).all()
        return [{**self._state(row), "invoice_number": row.invoice_number} for row in rows]

    @staticmethod
    def _state(row: LedgerSandboxInvoice) -> dict:
        """The invoice's state as base.py names it."""
        return {"ledger_invoice_id": row.id, "status": row.status, "contact_name": row.contact_name,
                "currency": row.currency, "total": Decimal(row.total),
                "amount_paid": Decimal(row.amount_paid), "amount_credited": Decimal("0"),  # no credit notes here
                "amount_due": Decimal("0") if row.status in ("VOIDED", "DELETED") else Decimal(row.total) - Decimal(row.amount_paid),
                "payments": [{**p, "amount": Decimal(p["amount"])} for p in row.payments]}

    def get_pdf(self, ledger_invoice_id: str) -> bytes:
        return bytes(self._row(ledger_invoice_id).pdf)

    def list_employees(self) -> list[dict]:
        from chalicelib.core.models import User

        users = self.db.execute(select(User.email, User.name).where(User.is_active.is_(True))).all()
        return [{"id": "EMP-" + hashlib.sha1(email.lower().encode()).hexdigest()[:12], "email": email.lower(),
                 "name": name} for email, name in users if not email.lower().endswith("@nopayroll.test")]
