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

from sqlalchemy import delete, func, select

from chalicelib.core import crypto
from chalicelib.core.errors import BadRequest, NotFound
from chalicelib.core.ids import utcnow
from chalicelib.core.locks import insert_ignore, lock_key, upsert_rows
from chalicelib.core.models import User
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.serialize import value_out

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


def save_ledger_tokens(fresh: dict) -> None:
    """Store a refreshed (rotated) ledger token pair at once, in its own transaction: a request that fails
    afterwards must not lose the new refresh token (the old one no longer works)."""
    from chalicelib.core.db import unit_of_work

    with unit_of_work() as uow:
        row = uow.session.get(Connection, "ledger", with_for_update=True)
        if row is None:
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

def _store(ctx, provider: str, *, secret: dict, org_name: str | None, external_id: str | None,
           settings: dict | None = None, expires_at=None) -> dict:
    lock_key(ctx.db, "connection", provider)  # saves take turns: two first saves cannot both insert the row
    row = ctx.db.get(Connection, provider, with_for_update=True, populate_existing=True)
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
    log.info("connection stored", extra={"provider": provider})
    return _record(row)


def disconnect(ctx, provider: str) -> None:
    """Removes the stored connection (already gone: nothing to do)."""
    ctx.db.execute(delete(Connection).where(Connection.provider == provider))
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
    """Match active users to ledger (Payroll) employees and planner people by e-mail, case-insensitively;
    a match sets the id, no match leaves the stored one. A provider that cannot be read is named in
    `errors` and the other still syncs."""
    from chalicelib.core.errors import DomainError
    from chalicelib.providers.ledger import get_ledger
    from chalicelib.providers.planner import get_planner

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
        found[name] = {p["email"].lower(): p["id"] for p in people if p.get("email")}
    users = ctx.db.execute(select(User.id, User.email).where(User.is_active.is_(True))).all()
    matched = {"ledger": 0, "planner": 0}
    rows = []
    for user_id, email in users:
        values = {}
        for name, by_email in found.items():
            external = by_email.get((email or "").lower())
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
