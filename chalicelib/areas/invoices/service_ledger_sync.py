"""An invoice's ledger state read back (document 2, "Invoice (local status)"; decisions.md section 8): the live
status on detail (`refresh_live`), the sync of one invoice (`sync_one`) or of all of them (`sync_all`, also hourly:
jobs.py): status, amounts paid and due, payment records. They only read the ledger, so they claim nothing
(service_ledger's moves do): the ledger is asked with no transaction open (`ctx.release_connection()`), then the
invoices are locked, re-read and written (`_fresh`, `_apply`). The time of the ask is taken before the call and
stored as `ledger_synced_at`; an answer older than a ledger move written or under way keeps the move's ledger status
and status, and one older than the read stored is not written (`_apply`, session 27).
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from sqlalchemy import delete, func, literal, or_, select, tuple_, update

from chalicelib.core import history
from chalicelib.core.db import UTCDateTime
from chalicelib.core.errors import BadGateway, Conflict, DomainError, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_rows, update_rows
from chalicelib.core.models import HistoryEntry
from chalicelib.core.money import cents
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.serialize import value_out
from chalicelib.core.timeutil import iso

from . import service_notices
from .models import Invoice, InvoicePayment, LedgerSyncRun
from .queries import invoice_record, is_paid, load_invoice, payment_records
from .service_ledger import STALE_CLAIM, ledger_of, linked_id

ENTITY = "invoice"
NEVER = datetime(1970, 1, 1, tzinfo=timezone.utc)  # the sync order's key of an invoice never synced: first
log = logging.getLogger("wms.invoices")


def payment_status(state: dict) -> str:
    if state["status"] == "PAID" or (state["amount_paid"] > 0 and state["amount_due"] <= 0):
        return "paid"
    return "partially_paid" if state["amount_paid"] > 0 else "unpaid"


def _fresh(db, invoice_ids) -> dict[str, Invoice]:
    """`{id: invoice}` of these invoices that still exist, locked and re-read (one statement, in id order): taken
    once the ledger has answered, so that what another request changed meanwhile (a status, a delete) is what
    the sync's writes start from."""
    rows = db.scalars(select(Invoice).where(Invoice.id.in_(sorted(invoice_ids))).order_by(Invoice.id)
                      .with_for_update().execution_options(populate_existing=True)).all()
    return {invoice.id: invoice for invoice in rows}


def _moving(invoice: Invoice, asked, now) -> bool:
    """A ledger move (service_ledger._move) may have changed the ledger after this sync asked it: one was written
    since (`ledger_moved_at`), or one holds the invoice's claim now (`ledger_move_since`, not a dead request's:
    younger than STALE_CLAIM) and writes its own outcome. The sync's answer may then be older than the move."""
    moved = invoice.ledger_moved_at is not None and invoice.ledger_moved_at >= asked
    return moved or (invoice.ledger_move_since is not None and invoice.ledger_move_since > now - STALE_CLAIM)


UNBILLED = ("VOIDED", "DELETED")  # ledger statuses whose invoice bills nothing: its total is not compared


def _parts(invoice: Invoice, state: dict) -> bool:
    """Whether the ledger invoice's total (or its currency, when the ledger answers one) differs from this invoice's:
    edited in the ledger (a line added to an authorised invoice without payments), or totalled otherwise there."""
    if state["status"] in UNBILLED or state.get("total") is None:
        return False
    currency = state.get("currency")
    return cents(state["total"]) != cents(invoice.total) or bool(currency and currency.upper() != invoice.currency)


def _report_parted(ctx, parted: list[tuple[Invoice, dict]], errors: list | None) -> None:
    """The invoices whose ledger total parts from theirs (`_parts`): an error entry each in the run's `errors` (a
    batch sync; None: a single sync or a detail's live read), and a history entry `ledger_total_differs` (`{total,
    currency, ledger_total, ledger_currency}`) once per distinct ledger total and currency: not again while the
    latest such entry names the same (one statement reads those, only when some invoice parts). Our totals are
    kept: they are the sum of the lines (docs/decisions/invoices.md, session 28)."""
    if not parted:
        return
    told = _told_totals(ctx.db, [invoice.id for invoice, _ in parted])
    for invoice, state in parted:
        ledger = (cents(state["total"]), (state.get("currency") or invoice.currency).upper())
        message = (f"the ledger invoice totals {service_notices.money_text(ledger[1], ledger[0])}, this invoice "
                   f"{service_notices.money_text(invoice.currency, invoice.total)}")
        log.warning("invoice %s: %s", invoice.id, message)
        if errors is not None:
            errors.append({"invoice_id": invoice.id, "invoice_number": invoice.invoice_number, "error": message})
        if told.get(invoice.id) == ledger:
            continue
        history.record(ctx.db, entity_type=ENTITY, entity_id=invoice.id, action="ledger_total_differs",
                       actor_id=ctx.user_id, changes={"total": value_out(cents(invoice.total)),
                                                      "currency": invoice.currency,
                                                      "ledger_total": value_out(ledger[0]),
                                                      "ledger_currency": ledger[1]})


def _told_totals(db, invoice_ids: list[str]) -> dict[str, tuple]:
    """`{invoice id: (ledger total, ledger currency)}` of each invoice's latest `ledger_total_differs` entry (one
    statement)."""
    latest = func.row_number().over(partition_by=HistoryEntry.entity_id,
                                    order_by=(HistoryEntry.created_at.desc(), HistoryEntry.id.desc()))
    ranked = (select(HistoryEntry.entity_id, HistoryEntry.changes, latest.label("n"))
              .where(HistoryEntry.entity_type == ENTITY, HistoryEntry.action == "ledger_total_differs",
                     HistoryEntry.entity_id.in_(invoice_ids)).subquery())
    told = {}
    for invoice_id, changes in db.execute(select(ranked.c.entity_id, ranked.c.changes).where(ranked.c.n == 1)):
        changes = changes or {}
        if changes.get("ledger_total") is not None:
            told[invoice_id] = (cents(Decimal(str(changes["ledger_total"]))), changes.get("ledger_currency"))
    return told


def _apply(ctx, invoices: dict[str, Invoice], states: list[dict], asked, errors: list | None = None) -> int:
    """Write the ledger's answers onto the invoices (locked and re-read after the ledger answered: `_fresh`):
    one bulk UPDATE, the payments made the ledger's (`_replace_payments`), one history row per invoice that
    changed, and `invoice_paid` about those that became paid (neither status nor payment status paid before, one
    of them now: once per invoice becoming paid, all of them in one service_notices call; the notice names the
    money received, `amount_paid`, and the credit notes applied, `amount_credited`, which is not stored). Answers
    how many changed.

    `asked` is when the ledger was asked (taken before the call; session 27): the answer is the ledger as it was
    then or later, and is written only where nothing newer is stored. An invoice whose stored read is newer
    (`ledger_synced_at`, the ask time of the answer written, after `asked`: a detail read or a sync that asked later
    wrote first) is left whole, its payments too; one a ledger move changed or holds (`_moving`) keeps its
    `ledger_status` and `status` (the move's), the amounts and payments are written.

    The ledger's total is compared with the invoice's (session 28): one that parts is reported (`_report_parted`:
    an entry in `errors`, the batch run's, and history once per distinct ledger total), never written over ours."""
    db, actor_id = ctx.db, ctx.user_id
    now = utcnow()
    updates, payments, changed_ids, paid, parted = [], [], [], [], []
    by_ledger = {invoice.ledger_invoice_id: invoice for invoice in invoices.values()}
    for state in states:
        invoice = by_ledger.get(state["ledger_invoice_id"])
        if invoice is None:
            continue
        if invoice.ledger_synced_at is not None and invoice.ledger_synced_at > asked:  # a newer read is stored
            continue
        if _parts(invoice, state):
            parted.append((invoice, state))
        if _moving(invoice, asked, now):  # the move's ledger status and status stand (the rows share their keys)
            ledger = {"ledger_status": invoice.ledger_status, "status": invoice.status}
        else:
            ledger = {"ledger_status": state["status"],
                      "status": {"VOIDED": "voided", "PAID": "paid"}.get(state["status"], invoice.status)}
        values = {**ledger, "amount_paid": Decimal(state["amount_paid"]), "amount_due": Decimal(state["amount_due"]),
                  "payment_status": payment_status(state)}
        before = {key: value_out(getattr(invoice, key)) for key in values}
        diff = history.diff(before, {key: value_out(value) for key, value in values.items()})
        # `updated_at` moves only when the ledger changed something: a ledger move's Idempotency-Key is made of it
        # (service_ledger._move_key), and a detail read or a sync that changed nothing gave a user's retry after a
        # lost answer a new key, the client e-mailed twice (session 23 review)
        paid_now, paid_before = is_paid(values["status"], values["payment_status"]), is_paid(invoice.status,
                                                                                            invoice.payment_status)
        # paid, or no longer paid: the overdue scan's mark is cleared (the row is locked: `_fresh`), so an invoice
        # unpaid again (a payment reversed in the ledger) is told overdue again, once per unpaid spell (session 27)
        updates.append({"id": invoice.id, **values, "ledger_synced_at": asked,
                        "updated_at": now if diff else invoice.updated_at,
                        "overdue_noticed_for": None if paid_now or paid_before else invoice.overdue_noticed_for})
        if paid_now and not paid_before:
            paid.append({**service_notices.facts(invoice), **values,
                         "amount_credited": Decimal(state.get("amount_credited") or 0)})
        if diff:
            changed_ids.append(invoice.id)
            history.record(db, entity_type=ENTITY, entity_id=invoice.id, action="ledger_synced", actor_id=actor_id,
                           changes=diff)
        payments += [{"invoice_id": invoice.id, "ledger_payment_id": p["ledger_payment_id"], "amount": p["amount"],
                      "date": _date(p.get("date")), "reference": (p.get("reference") or None) and p["reference"][:255],
                      "status": p.get("status")} for p in state["payments"]]
    _report_parted(ctx, parted, errors)
    if updates:
        update_rows(db, Invoice.__table__, updates)
        _replace_payments(db, [row["id"] for row in updates], payments)
        db.flush()
        for invoice in invoices.values():
            db.expire(invoice)
        service_notices.tell_paid_in_ledger(ctx, paid)
    return len(changed_ids)


PAYMENT_FIELDS = ("amount", "date", "reference", "status")


def _replace_payments(db, invoice_ids: list[str], payments: list[dict]) -> None:
    """Make these invoices' payment records the ledger's, keyed by (invoice, ledger payment id): a payment the
    ledger no longer answers is deleted, a changed one updated, a new one inserted, an unchanged one left as it
    is (its id and created_at kept: a sync run twice writes no payment). A fixed number of statements: one
    SELECT, then at most one DELETE, one UPDATE (core.locks.update_rows) and one INSERT."""
    table = InvoicePayment.__table__
    stored = {(row.invoice_id, row.ledger_payment_id): row for row in db.execute(
        select(table.c.id, table.c.invoice_id, table.c.ledger_payment_id, *(table.c[f] for f in PAYMENT_FIELDS))
        .where(table.c.invoice_id.in_(invoice_ids)))}
    answered, changed, new = set(), [], []
    for payment in payments:
        key = (payment["invoice_id"], payment["ledger_payment_id"])
        answered.add(key)
        row = stored.get(key)
        if row is None:
            new.append(payment)
        elif (Decimal(str(row.amount)), row.date, row.reference, row.status) != (
                Decimal(str(payment["amount"])), payment["date"], payment["reference"], payment["status"]):
            changed.append({"id": row.id, **{f: payment[f] for f in PAYMENT_FIELDS}})
    gone = [row.id for key, row in stored.items() if key not in answered]  # no longer in the ledger
    if gone:
        db.execute(delete(InvoicePayment).where(InvoicePayment.id.in_(gone)))
    update_rows(db, table, changed)
    insert_rows(db, InvoicePayment, new)


def _date(value):
    from datetime import date

    return date.fromisoformat(value) if value else None


LIVE_READ_SECONDS = 60
"""The detail's live read (document 2: "status synced live from the ledger when linked") and the single sync
(`POST /api/invoices/:id/sync-ledger`) ask the ledger only when the invoice's ledger state was neither read
(`ledger_synced_at`: by a live read or any sync) nor asked for (`ledger_asked_at`: by a detail or a single sync,
whatever the ledger answered, a failure or no such invoice included) less than this many seconds ago: they then
answer the stored state, at most this old. Each read is a Xero call (60 a minute, 5,000 a day per organisation), and
any reader could loop GET /api/invoices/:id, or an updater the single sync, and lock the ledger out for the day; a
read that failed or found nothing wrote no `ledger_synced_at`, so every view asked again (session 26)."""

REQUEST_SYNC_COOLDOWN_SECONDS = 600
"""A requested batch sync (`POST /api/invoices/sync-ledger`, trigger `request`) reads only the invoices whose ledger
state was not read within this many seconds (never read, or longer ago): a loop of the route re-read every linked
invoice each time (session 26; as the ad syncs' SYNC_COOLDOWN_SECONDS, portal/service_connections.py). The hourly
job (trigger `schedule`) reads them all."""


def _recent(stamp) -> bool:
    return stamp is not None and stamp > utcnow() - timedelta(seconds=LIVE_READ_SECONDS)


def _read_recently(invoice: Invoice) -> bool:
    """The invoice's ledger state was read or asked for within LIVE_READ_SECONDS (as loaded: no statement)."""
    return _recent(invoice.ledger_synced_at) or _recent(invoice.ledger_asked_at)


def _may_ask(ctx, invoice: Invoice) -> bool:
    """Whether to ask the ledger for this invoice's state now: not when it was read or asked for within
    LIVE_READ_SECONDS (the loaded row first, then one conditional UPDATE, which also settles two requests at once).
    The ask is recorded (`ledger_asked_at`) before the call, and committed by the caller's `release_connection`, so
    that it stands whatever the ledger answers and whatever the request answers then (a 409 or 502 rolls back only
    what follows the release). `updated_at` is left alone: a ledger move's Idempotency-Key is made of it."""
    if _read_recently(invoice):
        return False
    now = utcnow()
    since = now - timedelta(seconds=LIVE_READ_SECONDS)
    asked = ctx.db.execute(
        update(Invoice).where(Invoice.id == invoice.id,
                              or_(Invoice.ledger_synced_at.is_(None), Invoice.ledger_synced_at <= since),
                              or_(Invoice.ledger_asked_at.is_(None), Invoice.ledger_asked_at <= since))
        .values(ledger_asked_at=now, updated_at=Invoice.updated_at).returning(Invoice.id)
        .execution_options(synchronize_session=False)).first()
    return asked is not None


def refresh_live(ctx, invoice: Invoice) -> None:
    """The detail's live read: the ledger's state written onto the invoice; a ledger failure is logged and the
    stored state answered. Not asked when the invoice's ledger state was read or asked for less than
    LIVE_READ_SECONDS ago (`_may_ask`: the stored state is answered)."""
    if _read_recently(invoice):
        return
    try:
        ledger = ledger_of(ctx)
        if not _may_ask(ctx, invoice):
            return
        ctx.release_connection()
        asked = utcnow()  # before the call: a move written since is newer than the answer (`_apply`)
        states = ledger.get_invoices([invoice.ledger_invoice_id])
    except DomainError as exc:
        log.warning("live ledger status unavailable: %s", exc.message)
        return
    fresh = _fresh(ctx.db, [invoice.id])
    if not fresh:  # deleted while the ledger answered
        raise not_found("Invoice")
    _apply(ctx, fresh, states, asked)


def _synced_answer(ctx, invoice: Invoice) -> dict:
    return {"invoice": invoice_record(ctx.db, invoice.id, principal=ctx.principal),
            "payments": payment_records(ctx.db, invoice.id), "ledger_status": invoice.ledger_status,
            "payment_status": invoice.payment_status}


def sync_one(ctx, *, invoice_id: str) -> dict:
    """One invoice's ledger state read and written. Within LIVE_READ_SECONDS of its last read or ask (`_may_ask`) the
    stored state is answered and the ledger not asked, as the detail does (session 26): a loop of the route was a
    Xero call each; a failed ask (502, or 409 when the ledger no longer holds it) is not repeated within it either."""
    invoice = load_invoice(ctx, invoice_id)
    ledger_id = linked_id(invoice)
    if not _may_ask(ctx, invoice):
        return _synced_answer(ctx, invoice)
    ledger = ledger_of(ctx)
    ctx.release_connection()
    asked = utcnow()  # before the call: a move written since is newer than the answer (`_apply`)
    states = ledger.get_invoices([ledger_id])
    if not states:
        raise Conflict("The ledger no longer holds this invoice")
    fresh = _fresh(ctx.db, [invoice_id])
    if not fresh:  # deleted while the ledger answered
        raise not_found("Invoice")
    invoice = fresh[invoice_id]
    _apply(ctx, fresh, states, asked)
    ctx.db.refresh(invoice)
    return _synced_answer(ctx, invoice)


SYNC_PAGE = 50
"""Invoices a page of `sync_all` holds at most (and LIST_LIMIT): the live ledger asks Xero for 50 ids a request
(providers/ledger/live.py IDS_PER_CALL), so that a page is one request of up to ~25 s, the step a budget must leave
room for; a page of 500 was ten (session 23)."""

MANUAL_SYNC_SECONDS = 5
"""The batch route's budget (`POST /api/invoices/sync-ledger`): no page is started after it, so that a request stays
within API Gateway's 29 s (a page is one ledger request of up to ~20 s); the answer says `more` (1) and the next call
goes on with the invoices this one did not reach (session 23 review: a run killed at the function's timeout kept its
earlier pages but recorded no run, and its client was answered 504)."""

SPLIT_CALLS = 50
"""Ledger calls a run may make beyond one a page to isolate the invoices the ledger refuses (`_ask`): one refused
invoice in a page of 50 costs 2 * 6 = 12; past the limit a refused part of a page is recorded as not synced."""


def _refused(exc: DomainError) -> bool:
    """The ledger answered an error for the request (Xero refuses a whole GET /Invoices?IDs=... for one id it
    rejects: the adapter's 502 carrying its message), so another set of ids may pass. Not a rate limit (503), a
    timeout (504), nor a 502 raised from a failure of the transport or of the token's refresh (`unreachable`,
    `reconnect`: chained from it), which any set of ids would meet."""
    return isinstance(exc, BadGateway) and exc.__cause__ is None


def _ask(ledger, batch: list[Invoice], spare: int, budget=None):
    """The ledger's states of a page of invoices (in the page's order): one call when it answers. A call the ledger
    refuses (`_refused`) is asked again in halves, recursively, until the refused invoices are alone, while `spare`
    more calls are allowed; a refused part past that is not synced. No half is asked once `budget` (a
    core.timeutil.TimeBudget, or None) is spent: the parts left are neither answered nor refused (the next run
    asks them first). Answers `(states, answered, refused, spent, stop, cut)`: the states, the ids of the invoices
    asked in a call that was answered, `{invoice id: error}` of those refused or not synced, the extra calls made,
    the error that stops the run (a rate limit, a timeout) or None, and whether the budget left parts unasked."""
    states, answered, refused, spent = [], set(), {}, 0
    parts = [batch]  # a stack, the left half on top: asked in the page's order
    while parts:
        if budget is not None and len(parts[-1]) < len(batch) and budget.spent():  # a half: the page was asked
            return states, answered, refused, spent, None, True
        part = parts.pop()
        try:
            states += ledger.get_invoices([invoice.ledger_invoice_id for invoice in part])
        except DomainError as exc:
            if not _refused(exc):
                return states, answered, refused, spent, exc, False
            if len(part) == 1:
                log.warning("ledger refused invoice %s: %s", part[0].id, exc.message)
                refused[part[0].id] = exc.message
            elif spent + 2 > spare:
                refused.update({invoice.id: f"not synced: the ledger refused a request holding it and this run's "
                                            f"{SPLIT_CALLS} calls to isolate refused invoices are spent ({exc.message})"
                                for invoice in part})
            else:
                half = (len(part) + 1) // 2
                parts += [part[half:], part[:half]]
                spent += 2
            continue
        answered.update(invoice.id for invoice in part)
    return states, answered, refused, spent, None, False


def sync_all(ctx, *, trigger: str, budget=None) -> dict:
    """Every ledger-linked invoice that is not voided (any scope: a bookkeeping run), in pages of SYNC_PAGE, the least
    recently synced first (never synced first, then by `ledger_synced_at`, then id): its status, amounts and
    payments from the ledger. Recorded as a run (`invoice_ledger_sync_runs`) with what failed; the answer lists at
    most LIST_LIMIT failures, in the run's order. Run twice: the second changes nothing. A page the ledger refuses is
    asked again in halves (`_ask`): the invoices it refuses are failures naming them, the others are synced and the
    run goes on; a rate limit or a timeout stops the run.

    `budget` (core.timeutil.TimeBudget; the hourly job's, jobs.LEDGER_SYNC_SECONDS): no ledger call, page or half,
    is started once it is spent; the answer says `more` and the next run goes on, since the invoices this run synced
    are then the most recently synced (session 23: in id order from the first page, a run killed at its timeout
    kept nothing of its last page, and each retry and run started from the first page again). Each page's writes
    are committed by the next page's release (or the job's end).

    A `request` run (the route) leaves out the invoices read within REQUEST_SYNC_COOLDOWN_SECONDS (session 26); how
    many is not in the answer: its shape is the spec's `{ updated, errors, synced_at }` (and `more`), and counting
    them would cost a statement."""
    started = utcnow()
    # the invoices read since `read_before` are left out: those this run synced; for a request also those read
    # within the cooldown (by a sync or a detail's live read)
    read_before = started - timedelta(seconds=REQUEST_SYNC_COOLDOWN_SECONDS) if trigger == "request" else started
    errors, updated, more = [], 0, False
    try:
        ledger = ledger_of(ctx)
    except DomainError as exc:
        ledger, errors = None, [{"invoice_id": None, "invoice_number": None, "error": exc.message}]
    # keyset over (last synced, id): an invoice synced by this run (ledger_synced_at >= started) leaves the set, one
    # not synced (refused, not found) keeps its key, behind the cursor
    synced = func.coalesce(Invoice.ledger_synced_at, literal(NEVER, UTCDateTime()))
    after, split_calls = None, 0
    while ledger is not None:
        query = select(Invoice).where(Invoice.ledger_invoice_id.is_not(None), Invoice.status != "voided",
                                      or_(Invoice.ledger_synced_at.is_(None), Invoice.ledger_synced_at < read_before))
        if after is not None:
            query = query.where(tuple_(synced, Invoice.id) > tuple_(literal(after[0], UTCDateTime()), literal(after[1])))
        batch = ctx.db.scalars(query.order_by(synced, Invoice.id).limit(min(SYNC_PAGE, LIST_LIMIT))).all()
        if not batch:
            break
        if budget is not None and budget.spent():  # invoices left: the next run starts with them
            more = True
            break
        after = (batch[-1].ledger_synced_at or NEVER, batch[-1].id)
        invoices = {invoice.id: invoice for invoice in batch}
        ctx.release_connection()  # no transaction open while the ledger answers (earlier pages are committed)
        asked = utcnow()  # before the page's first call: a move written since is newer than its answers (`_apply`)
        states, answered, refused, spent, stop, cut = _ask(ledger, batch, SPLIT_CALLS - split_calls, budget)
        split_calls += spent
        if stop is not None and not answered and not refused:  # as before: nothing of the page to write
            errors.append({"invoice_id": None, "invoice_number": None, "error": stop.message})
            break
        known = {state["ledger_invoice_id"] for state in states}
        for i in batch:
            if i.id in refused:
                errors.append({"invoice_id": i.id, "invoice_number": i.invoice_number, "error": refused[i.id]})
            elif i.id in answered and i.ledger_invoice_id not in known:
                errors.append({"invoice_id": i.id, "invoice_number": i.invoice_number,
                               "error": "not found in the ledger"})
        updated += _apply(ctx, _fresh(ctx.db, invoices), states, asked, errors)
        if stop is not None:  # a rate limit or a timeout while a refused page was split: the next run goes on
            errors.append({"invoice_id": None, "invoice_number": None, "error": stop.message})
            break
        if cut:  # the budget left halves of the page unasked
            more = True
            break
    finished = utcnow()
    ctx.db.add(LedgerSyncRun(trigger=trigger, started_at=started, finished_at=finished, updated=updated,
                             errors=errors))
    ctx.db.flush()
    # the run keeps every failure; the answer lists the first LIST_LIMIT (decisions.md section 4)
    return {"updated": updated, "errors": errors[:LIST_LIMIT], "synced_at": iso(finished),
            **({"more": True} if more else {})}
