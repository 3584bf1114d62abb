"""An invoice's life in the accounting ledger (document 2, "Invoice (local status)"; decisions.md section 8):
push (a DRAFT ledger invoice: the company's name as contact, account codes from the line or its service
type's mapping rule) -> finalised; approve (AUTHORISED) -> approved; send (e-mailed) -> sent; void (VOIDED) ->
voided; delete of a ledger draft (DELETED; ledger id cleared) -> draft; a ledger id set by hand, checked; the
removal before a local delete; the PDF. The live status on detail and the syncs (status, amounts paid and due,
payment records) live in service_ledger_sync.py, which asks the ledger through `ledger_of` and `linked_id`.

Provider calls run with no transaction open (`ctx.release_connection()`), after the reads they need; the
invoice is then locked and written. A ledger that refuses answers 502 with its message; not connected 503.

One push or move at a time per invoice (docs/decisions/invoices.md, "Ledger calls and locks"): the request
claims the invoice (`_claim`: one conditional UPDATE of `ledger_move_since`, committed before the ledger is
called); a second one finding the claim answers 409 and asks the ledger nothing. The claim goes with the outcome:
in the transaction that writes a success, or in a short one of its own on any failure (`_claimed`). A claim older
than STALE_CLAIM is a dead request's and is taken over. The syncs need none: they only read the ledger.

A push sends the ledger an idempotency key (`_push_key`, docs/decisions/invoices.md "Idempotency-Key"): a push
retried after the ledger made its invoice but the request failed (a timeout, a failure before the link was
written) gets the same ledger invoice back, not a second one; a push of the invoice changed since, or pushed
anew after a delete in the ledger, is a new intent and makes a new one. The ledger keeps a key 6 minutes: a push
that asked it to create and lost the answer is kept in history (UNANSWERED), and a retry of it (the same key), or a
push taking over a dead request's claim, first looks in the ledger for the invoice the earlier one may have made
(`_made_before`) and links that one (session 32, docs/decisions/invoices.md "A push retried after the ledger forgot
its key").
"""
from __future__ import annotations

import logging
from contextlib import contextmanager
from datetime import timedelta, timezone
from decimal import Decimal

from sqlalchemy import select, update

from chalicelib.core import history
from chalicelib.core.errors import BadRequest, Conflict, DomainError, ServiceUnavailable, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import claim_row, let_go, lock_key, lock_row
from chalicelib.core.models import HistoryEntry
from chalicelib.core.spelling import name_key
from chalicelib.providers.ledger.base import LedgerRefused, idempotency_key

from .models import Invoice, InvoiceLineItem, InvoiceMappingRule
from .queries import invoice_record, load_invoice

ENTITY = "invoice"
log = logging.getLogger("wms.invoices")
LEDGER_DRAFTS = ("DRAFT", "SUBMITTED")
# A claim older than this is a dead request's (its function timed out or crashed before letting go) and is taken
# over: far above the invoices function's 29 s and its jobs' 300 s (infra/areas.json), as leave's.
STALE_CLAIM = timedelta(minutes=10)
BUSY = "Another ledger action on this invoice is under way"


def ledger_of(ctx):
    from chalicelib.providers.ledger import get_ledger

    return get_ledger(ctx.db)


def linked_id(invoice: Invoice) -> str:
    if not invoice.ledger_invoice_id:
        raise Conflict("The invoice is not in the ledger; push it first")
    return invoice.ledger_invoice_id


def _locked(ctx, invoice_id: str) -> Invoice:
    return lock_row(ctx.db, Invoice, invoice_id)


def _claim(ctx, invoice_id: str, *also):
    """Claim the invoice for one push or ledger move: one conditional UPDATE, taken only when no request holds it
    (no claim, or one older than STALE_CLAIM). Answers the claim's token and the invoice's ledger id, ledger status
    and status as the UPDATE found them (and `also`, more labelled columns the caller reads in the same statement):
    a concurrent claimer waits on the row lock of the request that lets go, then reads what that one wrote (the
    caller checks the move again on them). 409 (BUSY) when another request holds it, 404 when the invoice is gone.
    The caller commits it (`release_connection`) before calling the ledger; `updated_at` is left alone: the claim
    is no change of the invoice."""
    claimed = claim_row(ctx.db, Invoice, Invoice.ledger_move_since, Invoice.id == invoice_id, stale=STALE_CLAIM,
                        returning=(Invoice.ledger_invoice_id, Invoice.ledger_status, Invoice.status,
                                   Invoice.ledger_moved_at, Invoice.created_at, *also))
    if claimed is None:
        if ctx.db.scalar(select(Invoice.id).where(Invoice.id == invoice_id)) is None:
            raise not_found("Invoice")
        raise Conflict(BUSY)
    return claimed


def _let_go(invoice: Invoice, token) -> None:
    """Clear the claim with a success's writes (the invoice locked), unless a later request took it over (this
    one outlived STALE_CLAIM)."""
    let_go(invoice, Invoice.ledger_move_since, token)


@contextmanager
def _claimed(ctx, invoice_id: str, token, on_failure=None):
    """The claimed part of a push or move (the claim committed). On any failure (the ledger's refusal, a conflict
    found once it answered, an error) the request's unwritten changes are dropped and the claim let go in a short
    transaction of its own, committed before the failure is answered (with what `on_failure(exc)` writes: a push's
    record of an answer it may have lost); a success lets go itself (`_let_go`)."""
    try:
        yield
    except BaseException as exc:
        try:
            ctx.db.rollback()
            ctx.db.execute(update(Invoice).where(Invoice.id == invoice_id, Invoice.ledger_move_since == token)
                           .values(ledger_move_since=None, updated_at=Invoice.updated_at)
                           .execution_options(synchronize_session=False))
            if on_failure is not None:
                on_failure(exc)
                ctx.db.flush()
            ctx.release_connection()
        except Exception:  # noqa: BLE001 - the failure answered is the first one; the claim goes stale instead
            log.exception("could not let go of the ledger claim of invoice %s", invoice_id)
        raise


def _log(ctx, invoice: Invoice, action: str, changes: dict) -> None:
    history.record(ctx.db, entity_type=ENTITY, entity_id=invoice.id, action=action, actor_id=ctx.user_id,
                   changes=changes)


# ---------------------------------------------------------------- push

def _payload(ctx, invoice: Invoice) -> dict:
    from chalicelib.areas.deals import service as deals_service

    contact = deals_service.company_names(ctx.db, [invoice.company_id]).get(invoice.company_id) if invoice.company_id else None
    if not contact:
        raise BadRequest("The invoice needs a company: its name is the ledger contact",
                         details=[{"field": "company_id", "message": "required to push to the ledger"}])
    lines = ctx.db.scalars(select(InvoiceLineItem).where(InvoiceLineItem.invoice_id == invoice.id)
                           .order_by(InvoiceLineItem.position, InvoiceLineItem.created_at, InvoiceLineItem.id)).all()
    if not lines:
        raise Conflict("The invoice has no line items to push")
    rules = dict(ctx.db.execute(select(InvoiceMappingRule.service_type_id, InvoiceMappingRule.ledger_account_code)
                                .where(InvoiceMappingRule.service_type_id.in_(
                                    {line.service_type_id for line in lines if line.service_type_id}))).all())
    return {"invoice_number": invoice.invoice_number, "contact_name": contact, "date": invoice.issued_date.isoformat(),
            "due_date": invoice.due_date.isoformat() if invoice.due_date else None, "currency": invoice.currency,
            "reference": invoice.notes[:255] if invoice.notes else None,
            "lines": [{"description": line.description, "quantity": line.quantity, "unit_amount": line.unit_price,
                       "account_code": line.ledger_account_code or rules.get(line.service_type_id),
                       "tax_type": line.tax_type} for line in lines]}


# Local statuses a push refuses: voided (bills nothing), paid (set by hand, not in the ledger: the push made it a
# ledger DRAFT and set it `finalised`, so the client's payment left the record and the ledger billed it again;
# session 31, docs/decisions/invoices.md "A paid invoice is not pushed").
NOT_PUSHED = {"voided": "A voided invoice cannot be pushed",
              "paid": "The invoice is paid: it is not pushed to the ledger, which would bill it again (set its status "
                      "back first if it is owed)"}


def _check_push(invoice) -> None:
    if invoice.ledger_invoice_id:
        raise Conflict("The invoice is already in the ledger")
    if invoice.status in NOT_PUSHED:
        raise Conflict(NOT_PUSHED[invoice.status])


def _push_key(invoice: Invoice, payload: dict) -> str:
    """The ledger's idempotency key of this push: the invoice, the version of it pushed (`updated_at`) and the
    request (a digest of `payload`). A push retried after a failure has all three unchanged: a failed push writes
    nothing, and neither the claim nor its release touches `updated_at`. Pushing the invoice again after a delete
    in the ledger is a new intent: that move wrote `updated_at`. So did any change of the invoice or its lines;
    a change elsewhere that the request carries (the company's name, a mapping rule) changes the digest, so the
    ledger never meets the same key with a different request (Xero refuses it)."""
    return idempotency_key("wms-invoice", invoice.id, _stamp(invoice.updated_at), body=payload)


def _stamp(moment) -> str:
    """A key's version: the instant in UTC, to the microsecond."""
    return moment.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")


def _move_key(invoice, action: str, ledger_id: str, ledger_status: str | None) -> str:
    """The ledger's idempotency key of this move: the move, the ledger invoice and the last ledger move written on the
    invoice (`ledger_moved_at`; its push, `ledger_move_since`'s claim aside, when none was). A user's retry after a
    lost answer (a timeout after the ledger e-mailed the client or changed the status) has all three unchanged: a
    failed move writes nothing, and nothing else writes `ledger_moved_at` (a sync or the detail's live read moves
    `updated_at` when the ledger changed an amount: the key was made of that, and a retry after the user looked at
    the invoice e-mailed the client again; session 23 review). So the ledger answers the first answer. A written
    move sets it, so the next one (a resend) is a new intent with a new key. A refused move is replayed as refused
    while the ledger keeps the key (6 minutes) if it is retried unchanged here."""
    return idempotency_key("wms-invoice", action, ledger_id, _stamp(invoice.ledger_moved_at or invoice.created_at),
                           body={"status": ledger_status})


# ---- a push retried after the ledger forgot its key (session 32, docs/decisions/invoices.md "A push retried after
# the ledger forgot its key")

UNANSWERED = "ledger_push_unanswered"
"""The history action of a push that asked the ledger to create and failed with no answer known to be a refusal of
it: the ledger may hold the invoice it made. Its `changes` name the push's `idempotency_key` and the failure."""
LOOK_SKIPS = (LedgerRefused, ServiceUnavailable, Conflict)
"""A push failing with these left nothing in the ledger to look for: the ledger's refusal of the create (a validation
error: it made nothing; a failed push still writes nothing), a rate limit or a ledger not connected (nothing was
asked), or the change found once the ledger answered (its invoice was deleted there, or the 409 names it)."""


def _unanswered(invoice_id: str, key: str):
    """Whether a push of this invoice with this very key (the same version of the invoice, the same request) asked
    the ledger and lost the answer: read in the claim's own statement (`_claim`'s `also`), no statement more."""
    return (select(HistoryEntry.id)
            .where(HistoryEntry.entity_type == ENTITY, HistoryEntry.entity_id == invoice_id,
                   HistoryEntry.action == UNANSWERED, HistoryEntry.changes["idempotency_key"].as_string() == key)
            .exists().label("unanswered"))


def _note_unanswered(ctx, invoice_id: str, key: str, asked: list):
    """The push's `on_failure`: once the ledger was asked to create (`asked`), any failure but LOOK_SKIPS' is kept
    in history (UNANSWERED), so that a retry of the same push looks in the ledger first."""
    def note(exc):
        if asked and not isinstance(exc, LOOK_SKIPS):
            message = exc.message if isinstance(exc, DomainError) else type(exc).__name__
            history.record(ctx.db, entity_type=ENTITY, entity_id=invoice_id, action=UNANSWERED, actor_id=ctx.user_id,
                           changes={"idempotency_key": key, "error": message})
    return note


def _made_before(ctx, ledger, invoice_id: str, payload: dict, total: Decimal) -> dict | None:
    """The ledger invoice an earlier push of this invoice made, when the ledger holds exactly one that is ours beyond
    doubt: a sales invoice this application made with the invoice's number, the contact a push names (as the hand
    link compares names), neither deleted nor voided, in the invoice's currency and of its total (`total`), and
    linked to no other invoice here (one statement, then no transaction open again). None otherwise (nothing, or more
    than one: the push then creates as before)."""
    number = payload["invoice_number"]
    ours = [state for state in ledger.find_invoices(number)
            if state.get("invoice_number") == number and state.get("status") not in (None, "DELETED", "VOIDED")
            and _same_contact(state.get("contact_name"), payload["contact_name"])
            and state.get("currency") in (None, payload["currency"])
            and state.get("total") is not None and Decimal(state["total"]) == total]
    if ours:
        linked = set(ctx.db.scalars(select(Invoice.ledger_invoice_id).where(
            Invoice.ledger_invoice_id.in_([state["ledger_invoice_id"] for state in ours]), Invoice.id != invoice_id)))
        ctx.release_connection()  # no transaction open while the ledger answers the create that may follow
        ours = [state for state in ours if state["ledger_invoice_id"] not in linked]
    if len(ours) != 1:
        if ours:
            log.warning("invoice %s: the ledger holds %d invoices that may be its push's; a new one is made", number,
                        len(ours))
        return None
    return {"ledger_invoice_id": ours[0]["ledger_invoice_id"], "status": ours[0]["status"]}


def push(ctx, *, invoice_id: str) -> tuple[dict, str]:
    invoice = load_invoice(ctx, invoice_id)
    _check_push(invoice)
    payload = _payload(ctx, invoice)
    key = _push_key(invoice, payload)
    total = invoice.total
    ledger = ledger_of(ctx)
    # a claim found on the invoice and taken over is a dead request's (STALE_CLAIM, past the key's 6 minutes): a push
    # killed after the ledger made its invoice leaves one
    dead_claim = invoice.ledger_move_since is not None
    token, found = _claim(ctx, invoice_id, _unanswered(invoice_id, key))
    _check_push(found)  # as a push it waited for left it (refused: the claim is rolled back with the request)
    ctx.release_connection()  # the claim committed: no transaction nor row lock while the ledger answers
    asked = []
    with _claimed(ctx, invoice_id, token, _note_unanswered(ctx, invoice_id, key, asked)):
        made = _made_before(ctx, ledger, invoice_id, payload, total) if dead_claim or found.unanswered else None
        if made is None:
            asked.append(key)
            made = ledger.create_invoice(payload, idempotency_key=key)
        invoice = _locked(ctx, invoice_id)
        if invoice is not None and invoice.ledger_invoice_id == made["ledger_invoice_id"]:
            # the ledger answered, under the same key, the invoice a retry of this push made and linked meanwhile
            # (this one outlived its claim): it is the invoice's own, never undone; nothing is written
            _let_go(invoice, token)
            ctx.db.flush()  # the claim's release written first: the answer is the row as stored (its updated_at)
            return invoice_record(ctx.db, invoice.id, principal=ctx.principal), invoice.ledger_invoice_id
        # deleted, pushed, voided or paid meanwhile (neither is pushed: NOT_PUSHED): undo ours (one found in the
        # ledger was not made by this request: it is left there, as the lost push left it)
        if invoice is None or invoice.ledger_invoice_id or invoice.status in NOT_PUSHED:
            ctx.release_connection()  # nothing written here: give the row lock back before calling the ledger again
            if asked:
                _undo_push(ledger, made["ledger_invoice_id"], invoice_id)
                ctx.release_connection()  # the ledger keeps its undo (the sandbox's rows too), whatever this answers
            raise Conflict("The invoice changed while it was pushed; nothing was linked")
        if not asked:  # one found: linked to no other invoice meanwhile (hand links take turns on this key)
            lock_key(ctx.db, "invoice-ledger-link", made["ledger_invoice_id"])
            _check_unlinked_elsewhere(ctx, invoice_id, made["ledger_invoice_id"])
        before = invoice.status
        invoice.ledger_invoice_id, invoice.ledger_status = made["ledger_invoice_id"], made["status"]
        invoice.status, invoice.updated_at = "finalised", utcnow()
        _let_go(invoice, token)
        _log(ctx, invoice, "pushed_to_ledger", {"ledger_invoice_id": invoice.ledger_invoice_id,
                                                "status": {"from": before, "to": "finalised"},
                                                **({} if asked else {"found_in_ledger": True})})
        ctx.db.flush()
    return invoice_record(ctx.db, invoice.id, principal=ctx.principal), invoice.ledger_invoice_id


def _undo_push(ledger, ledger_id: str, invoice_id: str) -> None:
    """Delete the ledger invoice a push made for an invoice that changed meanwhile. When the ledger fails it (refused,
    a timeout, a rate limit), the push is still the change's 409, naming the ledger invoice left there and why
    (session 32, docs/decisions/invoices.md "A push's undo the ledger fails"): its 502 or 504 said the ledger had
    refused the push, which it had made, and named the draft it holds nowhere. Logged, for the bookkeeper."""
    try:
        ledger.set_status(ledger_id, "DELETED")
    except DomainError as exc:
        log.warning("invoice %s changed while it was pushed; its ledger invoice %s could not be deleted there: %s",
                    invoice_id, ledger_id, exc.message)
        raise Conflict(f"The invoice changed while it was pushed; nothing was linked, but the ledger invoice it made "
                       f"({ledger_id}) could not be deleted there ({exc.message}): delete that draft in the "
                       "ledger") from exc


# ---------------------------------------------------------------- a link made by hand

def _same_contact(ledger_name: str | None, company_name: str | None) -> bool:
    """The ledger's contact names ignore case and surrounding spaces (Xero's contact names are unique so), and
    the Unicode form a name was typed in: "Café" as é or as e and a combining accent is one name (NFKC; session 32)."""
    ledger, company = name_key(ledger_name, "NFKC"), name_key(company_name, "NFKC")
    return bool(ledger) and ledger == company


def _refused_link(message: str) -> BadRequest:
    return BadRequest(f"ledger_invoice_id {message}", details=[{"field": "ledger_invoice_id", "message": message}])


def check_hand_link(ctx, invoice: Invoice, ledger_id: str, company_id: str | None) -> dict:
    """Before a `ledger_invoice_id` set by hand (update) is written (docs/decisions/invoices.md, "Linking by
    hand"): the invoice needs a company (400 on company_id), no other invoice here may be linked to that ledger
    invoice (409), and the ledger must hold it (not deleted) for a contact that is the company's name, the contact
    a push names (400 on ledger_invoice_id otherwise, also when the ledger does not answer the contact: the link
    cannot be checked). The ledger is asked with no transaction open; the caller locks the invoice afterwards and
    checks `relink_still_valid`, giving it the ledger invoice's state answered here (its money is compared there, on
    the locked invoice, whose lines cannot change meanwhile)."""
    from chalicelib.areas.deals import service as deals_service

    refused = _refused_link

    company = deals_service.company_names(ctx.db, [company_id]).get(company_id) if company_id else None
    if not company:
        raise BadRequest("The invoice needs a company to be linked to the ledger: its name is the ledger contact",
                         details=[{"field": "company_id", "message": "required to link to the ledger"}])
    _check_unlinked_elsewhere(ctx, invoice.id, ledger_id)
    ledger = ledger_of(ctx)
    ctx.release_connection()  # no transaction open while the ledger answers
    states = [s for s in ledger.get_invoices([ledger_id]) if s["ledger_invoice_id"] == ledger_id]
    if not states or states[0].get("status") == "DELETED":
        raise refused("is not an invoice the ledger holds")
    contact = states[0].get("contact_name")
    if contact is None:
        raise refused("cannot be checked: the ledger did not answer the invoice's contact")
    if not _same_contact(contact, company):
        raise refused("is another contact's invoice in the ledger, not the company's")
    return states[0]


def _check_unlinked_elsewhere(ctx, invoice_id: str, ledger_id: str) -> None:
    """409 when another invoice here is linked to that ledger invoice, naming its number only when the caller sees
    that invoice (its scope: `queries.visible`), a visible one first; an invoice out of the caller's scope answers
    404 to them, and the refusal does not confirm its number either (session 28). One statement."""
    from sqlalchemy import case, true

    from .queries import visible

    scope = visible(ctx.principal)
    seen = case((true() if scope is None else scope, 1), else_=0)
    other = ctx.db.execute(select(Invoice.invoice_number, seen)
                           .where(Invoice.ledger_invoice_id == ledger_id, Invoice.id != invoice_id)
                           .order_by(seen.desc()).limit(1)).first()
    if other is not None:
        named = f" ({other[0]})" if other[1] else ""
        raise Conflict(f"That ledger invoice is linked to another invoice{named}")


def relink_still_valid(ctx, invoice: Invoice, ledger_id: str, company_id: str | None, state: dict,
                       currency: str) -> None:
    """Under the invoice's row lock, after `check_hand_link` asked the ledger: the company checked is still the
    invoice's, and no other invoice was linked to the ledger invoice meanwhile (hand links of one ledger id take
    turns on a transaction-scoped key lock), 409 otherwise. Then the money (session 22): the ledger invoice's
    `state` (as check_hand_link answered it) must bill what this invoice bills, its `total` the invoice's total and,
    when the ledger answers one, its `currency` the invoice's (`currency`: as the update leaves it), 400 on
    ledger_invoice_id otherwise. Unlinking, changing the lines and linking the same ledger invoice back made the
    invoice's money part from the ledger's (the line freeze walked around); the lines cannot change while the
    invoice's row is locked, so the totals compared are the ones kept."""
    lock_key(ctx.db, "invoice-ledger-link", ledger_id)
    if invoice.company_id != company_id:
        raise Conflict("The invoice's company changed while the ledger was asked; nothing was linked")
    _check_unlinked_elsewhere(ctx, invoice.id, ledger_id)
    theirs = state.get("currency")
    if theirs and theirs != currency:
        raise _refused_link(f"is a ledger invoice in {theirs}, not in the invoice's currency {currency}")
    total = state.get("total")
    if total is None:
        raise _refused_link("cannot be checked: the ledger did not answer the invoice's total")
    if Decimal(total) != invoice.total:
        raise _refused_link(f"is a ledger invoice of {Decimal(total):.2f} {theirs or currency}, not this invoice's "
                            f"total {invoice.total:.2f} (its lines differ: make them the ledger invoice's, or make a "
                            "new ledger invoice by pushing it)")


# ---------------------------------------------------------------- moves

MOVES_FROM = {"ledger_approved": ("DRAFT", "SUBMITTED"), "ledger_sent": ("AUTHORISED", "PAID"),
              "ledger_voided": ("AUTHORISED",), "ledger_deleted": LEDGER_DRAFTS}
WHAT = {"ledger_approved": "approved", "ledger_sent": "sent", "ledger_voided": "voided",
        "ledger_deleted": "deleted in the ledger (only drafts are; void it)"}


def _check_move(invoice: Invoice, action: str) -> None:
    """The ledger's own rules, checked on the status last read from it (409), so that a move the ledger
    would refuse is a conflict here; an unknown status (a ledger id set by hand) needs a sync first."""
    if not invoice.ledger_status:
        raise Conflict("The invoice's ledger status is unknown; sync it from the ledger first")
    if invoice.ledger_status not in MOVES_FROM[action]:
        raise Conflict(f"A ledger invoice that is {invoice.ledger_status} cannot be {WHAT[action]}")


def _move(ctx, invoice_id: str, *, action: str, local: str, ledger_status: str | None) -> dict:
    invoice = load_invoice(ctx, invoice_id)
    linked_id(invoice)
    _check_move(invoice, action)
    ledger = ledger_of(ctx)
    token, found = _claim(ctx, invoice_id)
    ledger_id = linked_id(found)  # as a move it waited for left it (refused: the claim is rolled back with the request)
    _check_move(found, action)
    key = _move_key(found, action, ledger_id, ledger_status)
    ctx.release_connection()  # the claim committed: no transaction nor row lock while the ledger answers
    with _claimed(ctx, invoice_id, token):
        if action == "ledger_sent":
            ledger.email_invoice(ledger_id, idempotency_key=key)
        else:
            ledger.set_status(ledger_id, ledger_status, idempotency_key=key)
        invoice = _locked(ctx, invoice_id)
        if invoice is None or invoice.ledger_invoice_id != ledger_id:  # deleted or unlinked meanwhile
            ctx.release_connection()  # the ledger keeps its move (the sandbox's rows too); nothing is written here
            raise Conflict("The invoice was deleted or unlinked while the ledger was asked; nothing was written here")
        if invoice.ledger_status not in MOVES_FROM[action] and invoice.ledger_status != ledger_status:
            # another request (a sync, an update, a stale claim's taker) changed its ledger status meanwhile, to one
            # this move may not start from
            ctx.release_connection()
            raise Conflict(f"The invoice became {invoice.ledger_status} while the ledger was asked; "
                           "nothing was written here")
        before = invoice.status
        if action == "ledger_sent" and invoice.ledger_status == "PAID":
            local = "paid"  # a paid invoice e-mailed again stays paid: the local status follows PAID (session 29)
        invoice.status, invoice.updated_at = local, utcnow()
        invoice.ledger_moved_at = invoice.updated_at  # the next move's key is a new one (_move_key)
        if action == "ledger_deleted":
            invoice.ledger_invoice_id, invoice.ledger_status = None, None
        elif ledger_status:
            invoice.ledger_status = ledger_status
        _let_go(invoice, token)
        _log(ctx, invoice, action, {"ledger_invoice_id": ledger_id, "status": {"from": before, "to": local}})
        ctx.db.flush()
    return invoice_record(ctx.db, invoice.id, principal=ctx.principal)


def approve(ctx, *, invoice_id: str) -> dict:
    return _move(ctx, invoice_id, action="ledger_approved", local="approved", ledger_status="AUTHORISED")


def send(ctx, *, invoice_id: str) -> dict:
    return _move(ctx, invoice_id, action="ledger_sent", local="sent", ledger_status=None)


def void(ctx, *, invoice_id: str) -> dict:
    return _move(ctx, invoice_id, action="ledger_voided", local="voided", ledger_status="VOIDED")


def delete_draft(ctx, *, invoice_id: str) -> dict:
    return _move(ctx, invoice_id, action="ledger_deleted", local="draft", ledger_status="DELETED")


def remove_from_ledger(ctx, invoice: Invoice) -> None:
    """Before a local delete: the ledger invoice is deleted when it is a draft there, voided when authorised
    or later (its current status is read first); one already voided or deleted is left."""
    ledger_id = invoice.ledger_invoice_id
    ledger = ledger_of(ctx)
    ctx.release_connection()
    states = ledger.get_invoices([ledger_id])
    status = states[0]["status"] if states else None
    if status in LEDGER_DRAFTS:
        ledger.set_status(ledger_id, "DELETED")
    elif status not in (None, "VOIDED", "DELETED"):
        ledger.set_status(ledger_id, "VOIDED")


PDF_ALLOWANCE = "invoice_pdf"
"""core.allowance.PER_HOUR's kind of `pdf`: the PDFs a user may fetch an hour (session 26)."""


def pdf(ctx, *, invoice_id: str) -> tuple[str, bytes]:
    """The ledger's PDF of the invoice. Each is a Xero call (60 a minute, 5,000 a day per organisation) and any reader
    (invoices:view, every employee by default) could loop the route: each fetch counts against the caller's hourly
    allowance (core.allowance `invoice_pdf`; 429 with `retry_after` past it, the ledger not asked), counted before
    the call and committed with the release, so a fetch the ledger fails still counts (session 26)."""
    from chalicelib.core.allowance import allow

    invoice = load_invoice(ctx, invoice_id)
    ledger_id = linked_id(invoice)
    if invoice.ledger_status in (None, "DELETED"):
        raise Conflict("The ledger holds no PDF of this invoice (its ledger status is unknown or deleted; sync it)")
    number = invoice.invoice_number
    ledger = ledger_of(ctx)
    allow(ctx, PDF_ALLOWANCE)
    ctx.release_connection()
    return number, ledger.get_pdf(ledger_id)
