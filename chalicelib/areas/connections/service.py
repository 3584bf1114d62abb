"""Connections (executive only, document 3 and decisions.md section 5): the stored links to the accounting
ledger (Xero, OAuth 2.0), the resource planner (Productive, API token) and team chat (Slack, bot token and
channel); the calendar's status from settings; users' ids in the ledger and the planner.

Secrets (tokens) are stored encrypted with SECRETS_KEY (core.crypto: Fernet, or KMS for `kms:<key-id>`) as
one JSON document per provider, are never answered and never logged. Providers read them through
`credentials(db, provider)` (first; settings second). A token is checked against its provider before it is
stored (400 with the provider's message when refused); provider calls run with no transaction open
(`ctx.release_connection()`).
"""
from __future__ import annotations

import json
import logging
import secrets
from datetime import datetime, timedelta, timezone
from functools import partial

from sqlalchemy import delete, func, select, update

from chalicelib.core import crypto, history
from chalicelib.core.errors import BadRequest, NotFound
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_ignore, lock_key, upsert_rows
from chalicelib.core.models import HistoryEntry, User
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.serialize import value_out
from chalicelib.core.spelling import email_key

from .models import Connection, OAuthState, UserMapping

log = logging.getLogger("wms.connections")
STATE_TTL = timedelta(minutes=10)


# ---------------------------------------------------------------- for the providers

def _secrets(row: Connection) -> dict | None:
    """The row's credentials, decrypted; None (a warning logged, without the value) when the current key cannot
    read them: such a connection counts as not connected."""
    try:
        return json.loads(crypto.decrypt(row.secret))
    except (crypto.SecretUnreadable, ValueError):
        log.warning("the stored %s connection cannot be decrypted with SECRETS_KEY; treated as not connected",
                    row.provider)
        return None


def credentials(db, provider: str) -> dict | None:
    """The stored credentials of a provider, decrypted, with its non-secret ids (`tenant_id` for the ledger,
    `organization_id` for the planner, `channel_id` for chat); None when not connected or unreadable."""
    row = db.get(Connection, provider)
    if row is None:
        return None
    stored = _secrets(row)
    if stored is None:
        return None
    extra = {"ledger": "tenant_id", "planner": "organization_id"}.get(provider)
    if extra:
        stored[extra] = row.external_id
    stored.update(row.settings or {})
    return stored


def ledger_tokens_saver(db):
    """The `on_tokens` of a ledger adapter made from the stored connection as it is now (providers.ledger.get_ledger):
    `save_ledger_tokens` bound to this connection (its tenant and when it was connected), so that a refresh stores
    its rotated pair into the connection it refreshed and no other. None when nothing is stored."""
    row = db.get(Connection, "ledger")
    if row is None:
        return None
    return partial(save_ledger_tokens, tenant_id=row.external_id, connected_at=row.connected_at)


def save_ledger_tokens(fresh: dict, *, tenant_id: str | None, connected_at: datetime) -> None:
    """Store a refreshed (rotated) ledger token pair at once, in its own transaction: a request that fails
    afterwards must not lose the new refresh token (the old one no longer works).

    Only into the connection the refresh started from (session 31): an executive may have disconnected and
    connected again (another organisation, or the same one with new tokens) while the ledger answered; the
    connection stored now is then another one (another tenant, or connected at another time) and the refreshed pair,
    the old connection's, is dropped (logged, without the tokens). A refresh does not change `connected_at`, so the
    refreshes of one adapter keep storing theirs."""
    from chalicelib.core.db import unit_of_work

    with unit_of_work() as uow:
        row = uow.session.get(Connection, "ledger", with_for_update=True)
        if row is None or row.external_id != tenant_id or row.connected_at != connected_at:
            log.warning("a refreshed ledger token pair was dropped: the ledger was disconnected or connected again "
                        "while it was refreshed")
            return
        try:
            stored = json.loads(crypto.decrypt(row.secret))
        except (crypto.SecretUnreadable, ValueError):
            stored = {}
        stored.update({key: fresh[key] for key in ("access_token", "refresh_token", "expires_at") if fresh.get(key)})
        row.secret = crypto.encrypt(json.dumps(stored))
        row.token_expires_at = _expiry(fresh.get("expires_at"))
        row.updated_at = utcnow()


def _expiry(expires_at) -> datetime | None:
    return datetime.fromtimestamp(float(expires_at), tz=timezone.utc) if expires_at else None


# ---------------------------------------------------------------- reading

def _record(row: Connection) -> dict:
    return {"id": row.provider, "provider": row.provider, "org_name": row.org_name, "connected_by": row.connected_by,
            "connected_at": value_out(row.connected_at), "token_expires_at": value_out(row.token_expires_at)}


def list_connections(ctx) -> list[dict]:
    """The stored connections (at most one per provider); one whose secrets the current key cannot decrypt
    counts as not connected and is left out."""
    return [_record(row) for row in ctx.db.scalars(select(Connection).order_by(Connection.provider))
            if _secrets(row) is not None]


def calendar_status(ctx) -> bool:
    """Configured through settings, not stored (the calendar provider says: sandbox, or live with a service
    account)."""
    from chalicelib.providers.calendar import is_configured

    return is_configured()


# ---------------------------------------------------------------- writing

MAPPED = {"ledger": UserMapping.ledger_id, "planner": UserMapping.planner_id}
"""The providers whose people the user mappings name (chat has none)."""
UNKNOWN = object()


def _organisations(db, providers, rows: dict | None = None) -> dict:
    """`{provider: the organisation it was connected to last}`: the stored row's `external_id` (`rows`, else read in one
    statement), else the one its last disconnect removed (the connections' history), else UNKNOWN (not connected
    since that history was kept: nothing to compare with)."""
    if rows is None:
        rows = {row.provider: row for row in db.scalars(select(Connection).where(Connection.provider.in_(providers))
                                                         .execution_options(populate_existing=True))}
    found = {name: rows[name].external_id for name in providers if rows.get(name) is not None}
    for name in providers:
        if name in found:
            continue
        changes = db.scalar(select(HistoryEntry.changes).where(
            HistoryEntry.entity_type == "connection", HistoryEntry.entity_id == name,
            HistoryEntry.action == "disconnected").order_by(HistoryEntry.created_at.desc(), HistoryEntry.id.desc())
            .limit(1))  # one statement a provider not connected now (two providers at most)
        if isinstance(changes, dict) and isinstance(changes.get("external_id"), dict):
            found[name] = changes["external_id"].get("from")
    return {name: found.get(name, UNKNOWN) for name in providers}


def _clear_mappings(db, provider: str) -> int:
    """Clears every user's id of this provider (one UPDATE); answers how many were set."""
    column = MAPPED[provider]
    return db.execute(update(UserMapping).where(column.is_not(None)).values({column.key: None, "updated_at": utcnow()})
                      .execution_options(synchronize_session=False)).rowcount


def _store(ctx, provider: str, *, secret: dict, org_name: str | None, external_id: str | None,
           settings: dict | None = None, expires_at=None) -> dict:
    """Stores the provider's connection. Connected to another organisation than the one before (the stored row's,
    or the one last disconnected), every user's id of this provider is cleared in the same transaction: they name
    the old organisation's employees or people, and leave would post to them (session 31). The history of the
    connection (`connection`, the provider) records each connect with the organisations and the ids cleared."""
    lock_key(ctx.db, "connection", provider)  # saves take turns: two first saves cannot both insert the row
    row = ctx.db.get(Connection, provider, with_for_update=True, populate_existing=True)
    previous = _organisations(ctx.db, [provider], {provider: row})[provider]
    if row is None:
        row = Connection(provider=provider)
        ctx.db.add(row)
    row.secret = crypto.encrypt(json.dumps(secret))
    # the provider's name for its organisation is a label: kept to its column's 255 characters (session 30; a longer
    # Slack team name made the connect a 400 for a token that works)
    row.org_name, row.external_id, row.settings = org_name[:255] if org_name else org_name, external_id, settings
    row.connected_by, row.connected_at, row.updated_at = ctx.user_id, utcnow(), utcnow()
    row.token_expires_at = _expiry(expires_at)
    ctx.db.flush()
    changes = {"external_id": {"from": None if previous is UNKNOWN else previous, "to": external_id}}
    if provider in MAPPED:
        cleared = _clear_mappings(ctx.db, provider) if previous is not UNKNOWN and previous != external_id else 0
        changes["mappings_cleared"] = cleared
        if cleared:
            log.info("user mappings cleared: the provider was connected to another organisation",
                     extra={"provider": provider, "cleared": cleared})
    history.record(ctx.db, entity_type="connection", entity_id=provider, action="connected", actor_id=ctx.user_id,
                   changes=changes)
    log.info("connection stored", extra={"provider": provider})
    return _record(row)


def disconnect(ctx, provider: str) -> None:
    """Removes the stored connection (already gone: nothing to do). The user mappings stay (a reconnect to the same
    organisation is the common case); the organisation removed is kept in the connection's history, so that a
    connect to another one clears them then (session 31)."""
    lock_key(ctx.db, "connection", provider)  # after a save under way: the organisation recorded is the one stored
    gone = ctx.db.execute(delete(Connection).where(Connection.provider == provider)
                          .returning(Connection.external_id)).first()
    if gone is not None:
        history.record(ctx.db, entity_type="connection", entity_id=provider, action="disconnected",
                       actor_id=ctx.user_id, changes={"external_id": {"from": gone.external_id, "to": None}})
    log.info("connection removed", extra={"provider": provider})


def ledger_authorize_url(ctx) -> str:
    """A one-use state bound to the caller for 10 minutes, then the consent page's address carrying it."""
    from chalicelib.providers.ledger import get_ledger_auth

    auth = get_ledger_auth()
    state = secrets.token_urlsafe(32)
    ctx.db.execute(delete(OAuthState).where(OAuthState.expires_at < utcnow()))
    ctx.db.add(OAuthState(state=state, provider="ledger", user_id=ctx.user_id, expires_at=utcnow() + STATE_TTL))
    ctx.db.flush()
    return auth.authorize_url(state)


def ledger_callback(ctx, *, code: str, state: str) -> dict:
    """The state must be one this caller was handed and unexpired (400 otherwise; it is spent either way),
    then the code is exchanged (tokens, tenant), and the tokens stored encrypted."""
    from chalicelib.providers.ledger import get_ledger_auth

    auth = get_ledger_auth()
    found = ctx.db.scalar(select(OAuthState).where(OAuthState.state == state, OAuthState.provider == "ledger")
                          .with_for_update())
    if found is not None:
        ctx.db.delete(found)
        ctx.db.flush()
        # the state is spent, whatever follows; no transaction is held while the ledger answers
        ctx.release_connection()
    if found is None or found.user_id != ctx.user_id or found.expires_at < utcnow():
        raise BadRequest("The authorisation state is unknown, expired or not yours; start again",
                         details=[{"field": "state", "message": "unknown or expired"}])
    tokens = auth.exchange_code(code)
    return _store(ctx, "ledger", secret={k: tokens.get(k) for k in ("access_token", "refresh_token", "expires_at")},
                  org_name=tokens.get("org_name"), external_id=tokens.get("tenant_id"), expires_at=tokens.get("expires_at"))


def save_planner(ctx, *, api_token: str) -> dict:
    from chalicelib.providers.planner import planner_for_token

    planner = planner_for_token(api_token, db=ctx.db)
    ctx.release_connection()
    org = planner.verify()
    return _store(ctx, "planner", secret={"api_token": api_token}, org_name=org.get("org_name"),
                  external_id=org.get("organization_id"))


def save_chat(ctx, *, bot_token: str, channel_id: str) -> dict:
    from chalicelib.providers.chat import chat_for_token

    chat = chat_for_token(bot_token, db=ctx.db)
    ctx.release_connection()
    team = chat.auth_test()
    return _store(ctx, "chat", secret={"bot_token": bot_token}, org_name=team.get("team"),
                  external_id=team.get("team_id"), settings={"channel_id": channel_id})


# ---------------------------------------------------------------- user mappings

def _mapping_rows(db, user_ids=None) -> list[dict]:
    stmt = (select(User.id, User.name, User.email, UserMapping.ledger_id, UserMapping.planner_id)
            .outerjoin(UserMapping, UserMapping.user_id == User.id).where(User.is_active.is_(True)))
    if user_ids is not None:
        stmt = stmt.where(User.id.in_(user_ids))
    rows = db.execute(stmt.order_by(func.lower(User.name), User.id).limit(LIST_LIMIT)).all()
    return [{"id": row.id, "user_id": row.id, "user_name": row.name, "user_email": row.email,
             "ledger_id": row.ledger_id, "planner_id": row.planner_id} for row in rows]


def user_mappings(db, user_ids) -> dict[str, dict]:
    """`{user_id: {ledger_id, planner_id}}` of these users' stored mappings (one statement; the leave area's
    ledger and planner integrations and balances read them)."""
    ids = sorted({user_id for user_id in user_ids if user_id})
    if not ids:
        return {}
    rows = db.execute(select(UserMapping.user_id, UserMapping.ledger_id, UserMapping.planner_id)
                      .where(UserMapping.user_id.in_(ids)))
    return {row.user_id: {"ledger_id": row.ledger_id, "planner_id": row.planner_id} for row in rows}


def list_mappings(ctx) -> list[dict]:
    """Every active user (at most 500, by name) with the ids mapped to them."""
    return _mapping_rows(ctx.db)


def set_mapping(ctx, *, user_id: str, data) -> dict:
    """Sets the ids sent (null clears one); 404 when no such active user."""
    if ctx.db.scalar(select(User.id).where(User.id == user_id, User.is_active.is_(True))) is None:
        raise NotFound("User not found")
    changes = data.changes()
    if not changes:
        raise BadRequest("Send ledger_id, planner_id or both")
    insert_ignore(ctx.db, UserMapping, {"user_id": user_id}, conflict=("user_id",))
    row = ctx.db.get(UserMapping, user_id, with_for_update=True, populate_existing=True)
    for key, value in changes.items():
        setattr(row, key, value or None)
    row.updated_at = utcnow()
    ctx.db.flush()
    return _mapping_rows(ctx.db, [user_id])[0]


def sync_mappings(ctx) -> dict:
    """Match active users to ledger (Payroll) employees and planner people by e-mail, case-insensitively and in one
    Unicode form (core.spelling.email_key, as admin stores users', session 32: a provider may send an accent
    decomposed); a match sets the id, no match leaves the stored one. A provider that
    cannot be read is named in `errors` and the other still syncs. A provider connected to another organisation while
    its people were listed writes none of them and is named in `errors` (session 31)."""
    from chalicelib.core.errors import DomainError
    from chalicelib.providers.ledger import get_ledger
    from chalicelib.providers.planner import get_planner

    # the organisations connected, read first: the adapters then make themselves from these rows (the session's
    # identity map), so the organisations compared below are the ones whose people are listed
    organisations = _organisations(ctx.db, sorted(MAPPED))
    adapters, errors = {}, []
    for name, make in (("ledger", get_ledger), ("planner", get_planner)):
        try:
            adapters[name] = make(ctx.db)
        except DomainError as exc:
            errors.append(f"{name}: {exc.message}")
    ctx.release_connection()
    found = {}
    for name, adapter in adapters.items():
        try:
            people = adapter.list_employees() if name == "ledger" else adapter.list_people()
        except DomainError as exc:
            errors.append(f"{name}: {exc.message}")
            continue
        found[name] = {email_key(p["email"]): p["id"] for p in people if p.get("email")}
    # connected to another organisation while its people were listed (that connect cleared the ids): what was listed
    # names the old organisation's people and is dropped (session 31). The connection's lock, held to the commit,
    # orders this sync's writes and a connect's clearing of them.
    for name in sorted(found):
        lock_key(ctx.db, "connection", name)
    for name, now in (_organisations(ctx.db, sorted(found)) if found else {}).items():
        if now != organisations[name]:
            del found[name]
            errors.append(f"{name}: connected to another organisation during the sync; run it again")
    users = ctx.db.execute(select(User.id, User.email).where(User.is_active.is_(True))).all()
    matched = {"ledger": 0, "planner": 0}
    rows = []
    for user_id, email in users:
        values = {}
        for name, by_email in found.items():
            external = by_email.get(email_key(email))
            if external:
                values[f"{name}_id"] = external
                matched[name] += 1
        if values:
            rows.append({"user_id": user_id, **values})
    _upsert_mappings(ctx.db, rows)
    return {"mappings": _mapping_rows(ctx.db), "ledger_matched": matched["ledger"],
            "planner_matched": matched["planner"], "errors": errors}


def _upsert_mappings(db, rows: list[dict]) -> None:
    """One INSERT ... ON CONFLICT DO UPDATE per kind of row (ledger only, planner only, both: a row sets only the
    ids it carries, core.locks.upsert_rows)."""
    groups: dict[tuple, list] = {}
    for row in rows:
        groups.setdefault(tuple(sorted(row)), []).append(row)
    for group in groups.values():
        upsert_rows(db, UserMapping, group, conflict=("user_id",))
