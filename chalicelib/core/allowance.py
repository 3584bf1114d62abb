"""Hourly allowances on calls that spend the agency's money (AI requests, enrichment credits, SMS): one caller
cannot spend without bound in a loop (security audit S6).

`allow(ctx, kind, per_hour)` counts the caller's uses of `kind` in the last hour under a transaction-scoped lock
on (kind, user), answers 429 `{ error, retry_after }` past `per_hour` (naming when the oldest use of the hour
leaves it), else records this use. Call it before the provider: the use is committed with the request's reads
(or its writes), so a call the provider then fails still counts. The portal's questions are counted per company
(`key`: the company id)."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from .errors import TooManyRequests
from .ids import utcnow
from .locks import lock_key
from .models import ProviderUse

WINDOW = timedelta(hours=1)

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
}


def allow(ctx, kind: str, key: str | None = None) -> None:
    """Count one use of `kind` for `key` (default: the caller) against PER_HOUR[kind]; 429 past it."""
    per_hour = PER_HOUR[kind]
    key = key or ctx.user_id
    db = ctx.db
    lock_key(db, "allowance", kind, key)
    since = utcnow() - WINDOW
    count, oldest = db.execute(select(func.count(), func.min(ProviderUse.created_at))
                               .where(ProviderUse.kind == kind, ProviderUse.key == key,
                                      ProviderUse.created_at > since)).one()
    if count >= per_hour:
        wait = max(1, int((oldest - since).total_seconds()) + 1)
        raise TooManyRequests(f"At most {per_hour} of these an hour: try again in {wait} s",
                              extra={"retry_after": wait})
    db.add(ProviderUse(kind=kind, key=key))
    db.flush()
