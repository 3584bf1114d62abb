"""Hourly allowances on calls that spend the agency's money (AI requests, enrichment credits, SMS): one caller
cannot spend without bound in a loop (security audit S6).

`allow(ctx, kind, per_hour)` counts the caller's uses of `kind` in the last hour under a transaction-scoped lock
on (kind, user), answers 429 `{ error, retry_after }` past `per_hour` (naming when the oldest use of the hour
leaves it), else records this use. Call it before the provider: the use is committed with the request's reads
(or its writes), so a call the provider then fails still counts. The portal's questions are counted per company
(`key`: the company id)."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, func, select

from .errors import TooManyRequests
from .ids import utcnow
from .locks import insert_rows, lock_key
from .models import ProviderUse

WINDOW = timedelta(hours=1)
# uses older than this are purged (the daily `notifications-purge` job): `allow` reads only the last WINDOW
KEEP = timedelta(days=1)
PURGE_BATCH = 10_000

# Uses an hour per user (decisions in each area's docs/decisions file)
PER_HOUR = {
    "ai_summary": 30,  # projects: a project's AI summary
    "ai_command": 60,  # pages: an AI edit or generation
    "ai_copilot": 1200,  # pages: an inline completion of 50 tokens, asked as the user types
    "research": 30,  # research: a page fetch and an AI brief
    "meeting_analysis": 30,  # meetings: a meeting's AI analysis again
    "enrichment": 50,  # deals: a People Data Labs credit (a forced enrichment)
    "message": 60,  # relationships: an SMS, MMS or WhatsApp message
    "portal_ask": 30,  # portal: a question about a company's results (keyed by company, not user)
    "mention": 300,  # notes: a user mentioned in a note (one use per recipient; notes.service counts a note's all)
    # session 26 (audit "costly calls anyone can repeat"), the portal's writes, keyed by company:
    "ad_connect": 10,  # portal: an ad account connected (a platform check and a 30-day read on the agency's quota)
    "portal_request": 30,  # portal: a client's request (a task, and its manager told by e-mail and chat)
    "portal_note": 60,  # portal: a client's note or reply (its staff told by e-mail)
    "invoice_pdf": 60,  # invoices: an invoice's PDF from the ledger (a Xero call; session 26, any employee)
}


def allow(ctx, kind: str, key: str | None = None, uses: int = 1) -> None:
    """Count `uses` uses of `kind` for `key` (default: the caller) against PER_HOUR[kind]; 429 when they would
    pass it, naming when enough of the hour's uses leave it (none recorded then). `uses` > 1: one request that
    spends several at once (a note's mentioned users). Three statements at most, whatever `uses`."""
    if uses < 1:
        return
    per_hour = PER_HOUR[kind]
    key = key or ctx.user_id
    db = ctx.db
    lock_key(db, "allowance", kind, key)
    since = utcnow() - WINDOW
    hour = (select(ProviderUse.created_at)
            .where(ProviderUse.kind == kind, ProviderUse.key == key, ProviderUse.created_at > since))
    count = db.scalar(select(func.count()).select_from(hour.subquery()))
    if count + uses > per_hour:
        # the oldest `count + uses - per_hour` uses of the hour must leave it first (all of them: more than an hour)
        leaving = (db.scalar(hour.order_by(ProviderUse.created_at).offset(count + uses - per_hour - 1).limit(1))
                   if uses <= per_hour else None)
        wait = int(WINDOW.total_seconds()) if leaving is None else max(1, int((leaving - since).total_seconds()) + 1)
        message = (f"At most {per_hour} of these an hour: try again in {wait} s" if uses == 1 else
                   f"At most {per_hour} of these an hour: this request needs {uses}, {max(0, per_hour - count)} "
                   f"remain; try again in {wait} s")
        raise TooManyRequests(message, extra={"retry_after": wait})
    insert_rows(db, ProviderUse, [{"kind": kind, "key": key} for _ in range(uses)])


def purge(db, before, *, limit: int = PURGE_BATCH) -> int:
    """Delete at most `limit` uses recorded before `before` (never one of the last WINDOW, whatever `before`): one
    DELETE of the ids of one batch. Answers how many; fewer than `limit` means none is left."""
    before = min(before, utcnow() - WINDOW)
    batch = select(ProviderUse.id).where(ProviderUse.created_at < before).limit(limit)
    return db.execute(delete(ProviderUse).where(ProviderUse.id.in_(batch))
                      .execution_options(synchronize_session=False)).rowcount
