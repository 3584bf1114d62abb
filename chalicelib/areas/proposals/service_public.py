"""Sharing, the public viewer, view analytics, and public accept and decline (decisions.md section 5).

- The share token is 256 random bits, URL-safe (`secrets.token_urlsafe(32)`); it is kept when sharing is
  turned off and on again (the same link works again). Disabled sharing or an unknown token answers 404.
- The password is stored only as a salted scrypt hash (n=2^14, r=8, p=1), never returned.
- verify sets `proposal_session` (HttpOnly, Secure, SameSite=Lax, Path=/api/proposals/public/<token>,
  24 hours): `<expires>.<hmac>` where the HMAC-SHA256 (key derived from SECRETS_KEY) covers the share token,
  the expiry and the current password hash, so it cannot be forged, moved to another token, or outlive a
  password change.
- Wrong passwords: at most MAX_ATTEMPTS in ATTEMPT_WINDOW per proposal, then 429 until the window passes.
- The first public view of a sent proposal moves it to `viewed`. A proposal past valid_until in review,
  approved, sent or viewed is `expired` (the public viewer marks it; the daily `proposal-expiry` job too).
- Accept (from sent, viewed, approved or review) runs the onboarding automation in the request's
  transaction (service_onboarding.py); decline records the reason. A second accept, a decline after accept
  (or any answer after one) is 409.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import secrets
import time
from datetime import timedelta
from sqlalchemy import exists, func, select, update

from chalicelib.core import history
from chalicelib.core.errors import Conflict, DomainError, Unauthorized, not_found
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import lock_row
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.settings import get_settings
from chalicelib.core.timeutil import org_today

from .models import Proposal, ProposalPasswordAttempt, ProposalView
from .queries import load_proposal, pricing_sections, require_changeable

COOKIE = "proposal_session"
SESSION_SECONDS = 24 * 3600
MAX_ATTEMPTS = 10
ATTEMPT_WINDOW = timedelta(minutes=15)
ANSWERABLE = ("sent", "viewed", "approved", "review")
EXPIRABLE = ("review", "approved", "sent", "viewed")
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1}
MAX_SESSIONS = 1000  # distinct viewer sessions recorded per proposal (track); later new sessions are ignored

log = logging.getLogger("wms.proposals")


class TooManyAttempts(DomainError):
    status = 429
    default_message = "Too many wrong passwords: try again later"


# ---------------------------------------------------------------- password and session

def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hash_password(password: str) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=32, maxmem=64 * 1024 * 1024, **SCRYPT)
    return f"scrypt${SCRYPT['n']}${SCRYPT['r']}${SCRYPT['p']}${_b64(salt)}${_b64(digest)}"


def check_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        computed = hashlib.scrypt(password.encode(), salt=_unb64(salt), n=int(n), r=int(r), p=int(p), dklen=32,
                                  maxmem=64 * 1024 * 1024)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(computed, _unb64(digest))


def _mac(proposal: Proposal, expires: int) -> str:
    key = hashlib.sha256(b"proposal-session:" + (get_settings().secrets_key or "").encode()).digest()
    message = f"{proposal.share_token}|{expires}|{proposal.share_password or ''}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def session_cookie(proposal: Proposal) -> str:
    expires = int(time.time()) + SESSION_SECONDS
    value = f"{expires}.{_mac(proposal, expires)}"
    return (f"{COOKIE}={value}; Max-Age={SESSION_SECONDS}; Path=/api/proposals/public/{proposal.share_token}; "
            f"HttpOnly; Secure; SameSite=Lax")


def has_session(proposal: Proposal, cookie_header: str | None) -> bool:
    """Whether the request carries a valid, unexpired session for this proposal's token and password."""
    from chalicelib.core.auth import cookie_value

    # read pair by pair (session 29): SimpleCookie stopped at the first cookie it could not parse, so a client whose
    # browser sent an analytics cookie with a space or JSON before ours was asked for the password again
    value = cookie_value(cookie_header, COOKIE)
    if not value:
        return False
    expires, _, mac = value.partition(".")
    # A quoted cookie may spell non-ASCII characters as octal escapes ('²' is a digit to isdigit, not to
    # int; hmac compares ASCII text only), and int() refuses past 4,300 digits: such a value is no session.
    if not (expires.isascii() and expires.isdigit() and len(expires) <= 12 and mac.isascii()):
        return False
    if int(expires) < time.time():
        return False
    return hmac.compare_digest(mac, _mac(proposal, int(expires)))


# ---------------------------------------------------------------- sharing (authenticated)

def configure_sharing(ctx, *, proposal_id: str, data) -> str | None:
    load_proposal(ctx, proposal_id)
    # deleted while the lock was awaited
    proposal = lock_row(ctx.db, Proposal, proposal_id, missing="Proposal")
    require_changeable(ctx, proposal)  # a listed approver does not publish the proposal (session 29)
    # only what differs is written and recorded: the settings sent back as stored write nothing (session 25). A
    # password sent is always a change (a new salted hash, which ends the viewers' sessions); a clear only when
    # one is set.
    changes = {}
    if bool(proposal.share_enabled) != bool(data.share_enabled):
        changes["share_enabled"] = {"from": int(proposal.share_enabled), "to": int(data.share_enabled)}
        proposal.share_enabled = data.share_enabled
    if data.share_enabled and not proposal.share_token:
        proposal.share_token = secrets.token_urlsafe(32)
        changes["share_token"] = "created"
    if "share_password" in data.model_fields_set and (data.share_password or proposal.share_password):
        proposal.share_password = hash_password(data.share_password) if data.share_password else None
        changes["share_password"] = "set" if data.share_password else "cleared"
    if changes:
        proposal.updated_at = utcnow()
        history.record(ctx.db, entity_type="proposal", entity_id=proposal.id, action="sharing_changed",
                       actor_id=ctx.user_id, changes=changes)
        ctx.db.flush()
    return proposal.share_token


# ---------------------------------------------------------------- public

def _shared(ctx, share_token: str, *, lock: bool = True) -> Proposal:
    """The proposal shared under this token (locked), or 404 (unknown token or sharing disabled)."""
    if not share_token or len(share_token) > 64:
        raise not_found("Proposal")
    stmt = select(Proposal).where(Proposal.share_token == share_token, Proposal.share_enabled.is_(True))
    if lock:
        stmt = stmt.with_for_update()
    proposal = ctx.db.scalar(stmt.execution_options(populate_existing=True))
    if proposal is None:
        raise not_found("Proposal")
    return proposal


def _is_past(proposal: Proposal) -> bool:
    return proposal.valid_until is not None and proposal.valid_until < org_today()


def expire(ctx, proposal: Proposal) -> None:
    """The public viewer's expiry of one proposal past valid_until: its history entry and, as the hourly job's,
    `proposal_expired` to the owner or the reader standing in (session 25)."""
    from .service_notices import expired_body, expired_title

    history.record(ctx.db, entity_type="proposal", entity_id=proposal.id, action="expired", actor_id=None,
                   changes={"status": {"from": proposal.status, "to": "expired"},
                            "valid_until": proposal.valid_until.isoformat()})
    proposal.status = "expired"
    proposal.updated_at = utcnow()
    _notify_owner_or_reader(ctx, proposal, "proposal_expired", expired_title(proposal.title),
                            expired_body(proposal.valid_until))


def _notify_owner(ctx, proposal: Proposal, type: str, title: str, body: str | None = None) -> None:
    """The owner, while they may read the proposal (service_notices.tell_owner; no actor: the client)."""
    from .service_notices import tell_owner

    tell_owner(ctx, proposal, type, title, body)


def _notify_owner_or_reader(ctx, proposal: Proposal, type: str, title: str, body: str | None = None) -> None:
    """The owner while a reader, else the first reader among the deal's owner and the company's owner
    (service_notices.tell_owner_or_reader; session 25: an owner gone meant nobody heard of it; no actor)."""
    from .service_notices import tell_owner_or_reader

    tell_owner_or_reader(ctx, proposal, type, title, body)


def _notify_project_owner(ctx, proposal: Proposal, **notice) -> None:
    """The accept's project's owner when not the proposal's (service_notices.tell_project_owner; no actor)."""
    from .service_notices import tell_project_owner

    tell_project_owner(ctx, proposal, **notice)


def public_content(ctx, *, share_token: str, cookie: str | None) -> dict:
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.areas.pages import service as pages_service

    proposal = _shared(ctx, share_token)
    if proposal.share_password and not has_session(proposal, cookie):
        return {"password_required": True}
    if proposal.status in EXPIRABLE and _is_past(proposal):
        expire(ctx, proposal)
    elif proposal.status == "sent":
        proposal.status, proposal.viewed_at = "viewed", utcnow()
        history.record(ctx.db, entity_type="proposal", entity_id=proposal.id, action="viewed", actor_id=None,
                       changes={"status": {"from": "sent", "to": "viewed"}})
        _notify_owner_or_reader(ctx, proposal, "proposal_viewed", f"Proposal viewed: {proposal.title}")
    ctx.db.flush()
    content, content_rich = pages_service.record_page_content(ctx.db, proposal.page_id) or ("", None)
    company = deals_service.company_names(ctx.db, [proposal.company_id]).get(proposal.company_id)
    return {"proposal": {
        "title": proposal.title, "status": proposal.status, "currency": proposal.currency,
        "total_amount": float(proposal.total_amount) if proposal.total_amount is not None else None,
        "valid_until": proposal.valid_until.isoformat() if proposal.valid_until else None,
        "content": content, "content_rich": content_rich, "brand_config": proposal.brand_config,
        "company_name": company, "sections": pricing_sections(ctx.db, proposal.id, public=True)}}


def verify(ctx, *, share_token: str, password: str) -> str | None:
    """The session cookie when the password is right (or none is set); None when wrong (the attempt is
    recorded: the caller commits it). 429 once MAX_ATTEMPTS wrong ones fell within ATTEMPT_WINDOW."""
    proposal = _shared(ctx, share_token)
    since = utcnow() - ATTEMPT_WINDOW
    recent = ctx.db.scalar(select(func.count()).select_from(ProposalPasswordAttempt).where(
        ProposalPasswordAttempt.proposal_id == proposal.id, ProposalPasswordAttempt.created_at > since))
    if recent >= MAX_ATTEMPTS:
        raise TooManyAttempts()
    if proposal.share_password and not check_password(password, proposal.share_password):
        ctx.db.add(ProposalPasswordAttempt(proposal_id=proposal.id))
        ctx.db.flush()
        return None
    return session_cookie(proposal)


def _require_session(proposal: Proposal, cookie: str | None) -> None:
    if proposal.share_password and not has_session(proposal, cookie):
        raise Unauthorized("This proposal is password protected: verify the password first")


def track(ctx, *, share_token: str, data, cookie: str | None) -> None:
    """Add a duration delta to (session, slide): one upsert. At most MAX_SESSIONS distinct sessions per proposal: a
    session already recorded always tracks; a new one past the cap is accepted and ignored (the viewer's beacon
    gets its `{ ok: true }`; docs/decisions/proposals.md, Analytics). A new session counts the recorded ones under
    a lock per proposal, so concurrent new sessions cannot overshoot. Five statements at most, whatever the rows."""
    from chalicelib.core.locks import lock_key

    proposal = _shared(ctx, share_token, lock=False)
    _require_session(proposal, cookie)
    recorded = ProposalView.proposal_id == proposal.id
    known = ctx.db.scalar(select(exists().where(recorded, ProposalView.session_id == data.session_id)))
    if not known:
        lock_key(ctx.db, "proposal-view-sessions", proposal.id)
        sessions = ctx.db.scalar(select(func.count()).select_from(
            select(ProposalView.session_id).where(recorded).distinct().limit(MAX_SESSIONS).subquery()))
        if sessions >= MAX_SESSIONS:
            log.info("proposal view session ignored: cap reached",
                     extra={"proposal_id": proposal.id, "max_sessions": MAX_SESSIONS})
            return
    values = {"proposal_id": proposal.id, "session_id": data.session_id, "slide_index": data.slide_index,
              "duration_seconds": data.duration_delta, "events": 1}
    if ctx.db.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    from chalicelib.core.ids import new_id

    now = utcnow()
    stmt = insert(ProposalView).values(id=new_id(), created_at=now, updated_at=now, **values)
    stmt = stmt.on_conflict_do_update(
        index_elements=["proposal_id", "session_id", "slide_index"],
        set_={"duration_seconds": ProposalView.duration_seconds + stmt.excluded.duration_seconds,
              "events": ProposalView.events + 1, "updated_at": now})
    ctx.db.execute(stmt)


def analytics(ctx, *, proposal_id: str) -> dict:
    """Per slide (views = tracked deltas, sessions, total and average seconds per session) and per session
    (slides viewed, total seconds, first and last seen; newest first, at most LIST_LIMIT): three statements."""
    proposal = load_proposal(ctx, proposal_id)
    where = ProposalView.proposal_id == proposal.id
    slides = ctx.db.execute(select(ProposalView.slide_index, func.sum(ProposalView.events),
                                   func.count(func.distinct(ProposalView.session_id)),
                                   func.sum(ProposalView.duration_seconds))
                            .where(where).group_by(ProposalView.slide_index).order_by(ProposalView.slide_index)
                            .limit(LIST_LIMIT)).all()
    sessions = ctx.db.execute(select(ProposalView.session_id, func.count(), func.sum(ProposalView.duration_seconds),
                                     func.min(ProposalView.created_at), func.max(ProposalView.updated_at))
                              .where(where).group_by(ProposalView.session_id)
                              .order_by(func.max(ProposalView.updated_at).desc(), ProposalView.session_id)
                              .limit(LIST_LIMIT)).all()
    totals = ctx.db.execute(select(func.count(func.distinct(ProposalView.session_id)),
                                   func.coalesce(func.sum(ProposalView.duration_seconds), 0)).where(where)).one()
    from chalicelib.core.timeutil import iso

    return {
        "analytics": [{"slide_index": index, "views": int(views), "sessions": count, "total_duration": round(total, 3),
                       "average_duration": round(total / count, 3) if count else 0.0}
                      for index, views, count, total in slides],
        "sessions": [{"session_id": sid, "slides_viewed": n, "total_duration": round(total, 3),
                      "first_seen": iso(first), "last_seen": iso(last)} for sid, n, total, first, last in sessions],
        "total_sessions": totals[0], "total_duration": round(float(totals[1]), 3)}


def _answerable(proposal: Proposal, what: str) -> None:
    if proposal.status == "accepted":
        raise Conflict("This proposal has already been accepted")
    if proposal.status == "declined":
        raise Conflict("This proposal has already been declined")
    if proposal.status == "expired" or (proposal.status in EXPIRABLE and _is_past(proposal)):
        raise Conflict("This proposal has expired")
    if proposal.status not in ANSWERABLE:
        raise Conflict(f"This proposal cannot be {what} yet")


ACCEPT_TRIES = 3  # the accept's read-lock rounds: each further round needs an edit of the company or deal meanwhile


def _lock_parents(ctx, proposal: Proposal) -> tuple:
    """The rows the accept writes under (besides the proposal), locked before the proposal's row: its company FOR KEY
    SHARE (the onboarding's project, budget, invoice and contract name it), then its deal FOR UPDATE (moved to won).
    Their deletes take that row first and then, through `proposals.company_id` and `deal_id` ON DELETE SET NULL, the
    proposal's: in this order an accept and a delete wait for each other instead of deadlocking. A row deleted
    meanwhile locks nothing (the proposal re-read then names none). Answers the (company, deal) ids locked for."""
    from chalicelib.areas.deals import service as deals_service

    for model, row_id, key_share in ((deals_service.Company, proposal.company_id, True),
                                     (deals_service.Deal, proposal.deal_id, False)):
        if row_id:
            lock_row(ctx.db, model, row_id, key_share=key_share)
    return proposal.company_id, proposal.deal_id


def _lock_for_accept(ctx, share_token: str, cookie: str | None) -> Proposal:
    """The shared proposal, locked after its company and deal (docs/decisions/proposals.md, "Lock order of the public
    accept"). The proposal is read without a lock, its company and deal locked, then the proposal locked and re-read,
    all in a savepoint. When the re-read names a company or deal that was not locked (an edit of the proposal
    committed in between), taking that row now, after the proposal's, is the reverse of its delete's order (the row,
    then the proposal: a deadlock, session 23): the savepoint is rolled back instead, which lets go of the rows it
    locked, and the round runs again on the proposal as it is now. A company or deal the proposal no longer names
    (deleted or unset meanwhile) needs nothing. 409 after ACCEPT_TRIES rounds that each met such an edit."""
    where = (Proposal.share_token == share_token) & Proposal.share_enabled.is_(True)
    for _ in range(ACCEPT_TRIES):
        proposal = _shared(ctx, share_token, lock=False)
        _require_session(proposal, cookie)
        savepoint = ctx.db.begin_nested()
        company_id, deal_id = _lock_parents(ctx, proposal)
        proposal = lock_row(ctx.db, Proposal, proposal.id, missing="Proposal", where=where)
        if proposal.company_id in (None, company_id) and proposal.deal_id in (None, deal_id):
            savepoint.commit()  # RELEASE SAVEPOINT: the locks stay the transaction's
            _require_session(proposal, cookie)  # the password may have changed meanwhile
            return proposal
        savepoint.rollback()  # the proposal's lock and its old company's and deal's let go
    raise Conflict("The proposal was being changed while it was accepted: try again")


def accept(ctx, *, share_token: str, name: str, email: str, cookie: str | None) -> None:
    """The lock order (docs/decisions/proposals.md, "Concurrency"): the proposal read without a lock, its company and
    its deal locked, then the proposal locked and re-read (again, when an edit of its company or deal committed in
    between: _lock_for_accept); the proposal's row is then written once, at the end (a second UPDATE of a row the
    transaction already updated checks every foreign key again, taking the contact's, the page's and the owner's rows
    FOR KEY SHARE after the proposal's: a contact's delete waited for the accept while the accept waited for it)."""
    from .service_onboarding import run_onboarding

    proposal = _lock_for_accept(ctx, share_token, cookie)
    _answerable(proposal, "accepted")
    before = proposal.status
    accepted_at = utcnow()
    created, project_owner_id = run_onboarding(ctx, proposal, name=name, email=email, accepted_at=accepted_at)
    proposal.status, proposal.accepted_at = "accepted", accepted_at
    proposal.responder_name, proposal.responder_email = name, email
    for key in ("project_id", "budget_id", "invoice_id", "contract_id"):
        if key in created:
            setattr(proposal, key, created[key])
    history.record(ctx.db, entity_type="proposal", entity_id=proposal.id, action="accepted", actor_id=None,
                   changes={"status": {"from": before, "to": "accepted"}, "name": name, "email": email, **created})
    title, body = f"Proposal accepted: {proposal.title}", f"{name} <{email}> accepted the proposal."
    _notify_owner(ctx, proposal, "proposal_accepted", title, body)
    # the project's owner when another user (the company's: the proposal's owner is inactive; session 25)
    _notify_project_owner(ctx, proposal, owner_id=project_owner_id, project_id=created["project_id"], title=title,
                          body=body)
    ctx.db.flush()


def decline(ctx, *, share_token: str, name: str, email: str, reason: str | None, cookie: str | None) -> None:
    proposal = _shared(ctx, share_token)
    _require_session(proposal, cookie)
    _answerable(proposal, "declined")
    before = proposal.status
    proposal.status, proposal.declined_at, proposal.decline_reason = "declined", utcnow(), reason
    proposal.responder_name, proposal.responder_email = name, email
    history.record(ctx.db, entity_type="proposal", entity_id=proposal.id, action="declined", actor_id=None,
                   changes={"status": {"from": before, "to": "declined"}, "name": name, "email": email,
                            "reason": reason})
    _notify_owner_or_reader(ctx, proposal, "proposal_declined", f"Proposal declined: {proposal.title}", reason)
    ctx.db.flush()


def expire_due(ctx) -> int:
    """The hourly job: every proposal past valid_until still in review, approved, sent or viewed becomes expired
    (one history entry each), and `proposal_expired` is written for each, after that write in the job's unit of work
    (delivered after its commit), to its owner or the reader standing in (service_notices.tell_expired; session 25:
    nobody was told). A fixed number of statements whatever their number: the due rows read and locked (SKIP LOCKED:
    a proposal a request holds is left to the next run) with their owner and their deal's and company's owners, one
    UPDATE, one INSERT of their history (it was an UPDATE per proposal), then the readers (two at most) and the
    notices (notify_many). Run twice: nothing the second time (the rows are expired, so no longer due)."""
    from chalicelib.core.locks import insert_rows
    from chalicelib.core.models import HistoryEntry

    from .service_notices import stand_in_columns, tell_expired

    due = ctx.db.execute(select(Proposal.id, Proposal.status, Proposal.valid_until, Proposal.title, Proposal.owner_id,
                                *stand_in_columns())
                         .where(Proposal.status.in_(EXPIRABLE), Proposal.valid_until < org_today())
                         .with_for_update(skip_locked=True)).all()
    if not due:
        return 0
    ctx.db.execute(update(Proposal).where(Proposal.id.in_([row.id for row in due]))
                   .values(status="expired", updated_at=utcnow()).execution_options(synchronize_session=False))
    insert_rows(ctx.db, HistoryEntry, [
        {"entity_type": "proposal", "entity_id": row.id, "action": "expired", "actor_id": None,
         "changes": {"status": {"from": row.status, "to": "expired"}, "valid_until": row.valid_until.isoformat()}}
        for row in due])
    tell_expired(ctx, due)
    return len(due)