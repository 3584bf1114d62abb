"""Connected ad platforms of a client (document 3: /api/portal/connections; issue 19 item 4), their staff side
(agency-managed connections: /api/clients/:companyId/connections) and the sync of their daily metrics.

Credentials are validated per platform, TESTED against the platform before they are stored (the provider call
runs with no transaction open: `ctx.release_connection()`), stored encrypted with SECRETS_KEY (core.crypto) and
never answered. A sync reads each connection's days from the platform outside any transaction and upserts one
row per connection, campaign and day (a re-sync of the same days updates, never duplicates).
"""
from __future__ import annotations

import json
import logging
from datetime import timedelta

from sqlalchemy import and_, case, or_, select, update

from chalicelib.core import crypto
from chalicelib.core.errors import Conflict, DomainError, Forbidden, ServiceUnavailable, not_found
from chalicelib.core.ids import new_id, utcnow
from chalicelib.core.locks import lock_key
from chalicelib.core.query import LIST_LIMIT
from chalicelib.core.serialize import row_dict

from .models import AdConnection, AdDailyMetric
from .queries import company_contact

log = logging.getLogger("wms.portal")
CONNECTION_FIELDS = ("id", "company_id", "platform", "display_name", "account_id", "account_name", "currency",
                     "agency_managed", "status", "last_synced_at", "last_sync_error", "backfilled_at", "created_by",
                     "created_at", "updated_at")
UPSERT_CHUNK = 1000
# the scheduled sync starts no connection after this many seconds of its function's 120 s (infra/areas.json, jobs'
# default): one platform read may take tens of seconds (several requests, each with its own timeout)
SYNC_SECONDS = 80
METRIC_COLUMNS = ("spend", "impressions", "clicks", "conversions", "conversion_value", "orders", "revenue")


def connection_record(row: AdConnection) -> dict:
    return row_dict(row, CONNECTION_FIELDS, flags=("agency_managed",))


# what a client reads of a failure that is not the platform refusing their own credentials
CLIENT_SYNC_FAILED = "The platform could not be read this time; the next scheduled sync tries again"
CLIENT_CONNECT_FAILED = "The account could not be connected this time; try again later"


def client_connection_record(row: AdConnection) -> dict:
    """A connection as the portal shows it: no staff member's id (an agency-managed connection's `created_by`
    is null) and the failure in the client's words (`client_sync_error`), never the agency's configuration
    (setting names, the agency's OAuth client or developer token) that staff read in `last_sync_error`."""
    record = connection_record(row)
    record["last_sync_error"] = row.client_sync_error if row.last_sync_error else None
    if not (row.created_by or "").startswith("portal"):
        record["created_by"] = None
    return record


def require_dashboard(ctx) -> None:
    """The results dashboard (connections and results) is for clients whose profile enables it: 403 otherwise
    (the two GET routes answer an empty body with dashboard_enabled 0 instead)."""
    if not ctx.portal.profile.get("dashboard_enabled"):
        raise Forbidden("The results dashboard is not enabled for this client")


def _rows(db, company_id: str) -> list[AdConnection]:
    return list(db.scalars(select(AdConnection).where(AdConnection.company_id == company_id)
                           .order_by(AdConnection.created_at, AdConnection.id).limit(LIST_LIMIT)))


def list_connections(ctx) -> list[dict]:
    if not ctx.portal.profile.get("dashboard_enabled"):
        return []
    return [client_connection_record(row) for row in _rows(ctx.db, ctx.portal.company_id)]


def _load(db, company_id: str, connection_id: str) -> AdConnection:
    row = db.scalar(select(AdConnection).where(AdConnection.id == connection_id, AdConnection.company_id == company_id)
                    .with_for_update())
    if row is None:
        raise not_found("Connection")
    return row


def _refuse_connected(db, company_id: str, platform: str, account_id: str) -> None:
    """409 when the company has this account connected already, read under the account's lock (the create's)."""
    lock_key(db, "ad-connection", company_id, platform, account_id)
    exists = db.scalar(select(AdConnection.id).where(AdConnection.company_id == company_id,
                                                     AdConnection.platform == platform,
                                                     AdConnection.account_id == account_id))
    if exists:
        raise Conflict("This account is connected already")


def _connect(ctx, *, company_id: str, data, agency_managed: bool, created_by: str | None) -> AdConnection:
    """Validate the credentials, test them against the platform (no transaction open), then store them. An account
    connected already is refused (409) before the platform is asked, and again after (one connected meanwhile: the
    lock is not held across the platform call); each 409 spent a platform call (session 26)."""
    from chalicelib.providers.adplatforms import get_adplatform, parse_credentials

    credentials = parse_credentials(data.platform, data.credentials)
    account_id = credentials.account_id()
    connection_id = new_id()
    platform = get_adplatform(data.platform, credentials, seed=connection_id)  # 503 when off
    _refuse_connected(ctx.db, company_id, data.platform, account_id)
    ctx.release_connection()
    info = platform.verify()  # CredentialsRefused: 400, nothing stored
    _refuse_connected(ctx.db, company_id, data.platform, account_id)
    row = AdConnection(id=connection_id, company_id=company_id, platform=data.platform, display_name=data.display_name,
                       account_id=account_id, account_name=(info.get("account_name") or "")[:300] or None,
                       currency=(info.get("currency") or "")[:10] or None,
                       secret=crypto.encrypt(json.dumps(credentials.model_dump())), agency_managed=agency_managed,
                       status="connected", created_by=created_by)
    ctx.db.add(row)
    ctx.db.flush()
    ctx.after_commit(lambda: sync_connections(connection_id=connection_id))  # the recent days at once
    return row


def create_connection(ctx, *, data) -> dict:
    from chalicelib.core.allowance import allow
    from chalicelib.core.notify import notify  # on first use: a read request never loads notify

    from chalicelib.providers.adplatforms import PLATFORM_NAMES

    require_dashboard(ctx)
    company_id = ctx.portal.company_id
    who = f"portal:{ctx.portal.user_id}" if ctx.portal.user_id else "portal"
    from chalicelib.providers.adplatforms.base import AgencySetupError

    # each connect is a platform check and a 30-day read on the agency's quota, and a connect-disconnect loop escapes
    # the sync's cooldown (per connection row): 10 an hour per company, 429 past it (session 26; the staff route,
    # which shares _connect, is not counted). Committed before the platform call (release_connection), so a connect
    # the platform refuses counts all the same.
    allow(ctx, "ad_connect", company_id)
    try:
        row = _connect(ctx, company_id=company_id, data=data, agency_managed=False, created_by=who)
    except AgencySetupError as exc:
        # the agency's own setup is at fault (a setting missing, its OAuth client or developer token refused): the
        # client is told in its own words, never the agency's setting names or the platform's text about the
        # agency's client (session 22's portal audit); the staff route keeps the text
        log.warning("a portal connection failed on the agency's setup: %s", exc.message)
        raise ServiceUnavailable(CLIENT_CONNECT_FAILED, extra=exc.extra) from exc
    # the profile's delivery manager when active, else the company's owner: a deactivated one is told nothing, no
    # notice attempted when neither is active (session 25)
    manager = company_contact(ctx.db, company_id)
    if manager:
        from .service_connection_notices import CONNECTED_TITLE, company_readers

        # the connection's name and the company's link only to one who may read the company (review of session 25:
        # the company's owner, now told when no manager is, may not)
        named = manager in company_readers(ctx.db, {company_id: {manager}}).get(company_id, ())
        notify(ctx, user_id=manager, type="portal_connection",
               title=f"A client connected {PLATFORM_NAMES[row.platform]}: {row.display_name}" if named
               else CONNECTED_TITLE,
               resource_type="ad_connection", resource_id=row.id,
               action_url=f"/companies/{company_id}" if named else None)
    return client_connection_record(row)


def delete_connection(ctx, *, connection_id: str) -> None:
    require_dashboard(ctx)
    row = _load(ctx.db, ctx.portal.company_id, connection_id)
    if row.agency_managed:
        raise Conflict("This connection is managed by the agency and cannot be disconnected in the portal")
    ctx.db.delete(row)
    ctx.db.flush()


# A client's sync request reads again only connections not synced within this many seconds: each read spends the
# agency's platform API quota, and any collaborator may ask as often as they like
SYNC_COOLDOWN_SECONDS = 600


def _tried_since(row, fresh_after) -> bool:
    """Whether the connection was read within the cooldown: synced since, or failed since (a failed sync sets its
    status `error` and `updated_at`, not `last_synced_at`; a connection failing on every read was read again on every
    request, spending the quota the cooldown keeps)."""
    return ((row.last_synced_at is not None and row.last_synced_at > fresh_after)
            or (row.status == "error" and row.updated_at > fresh_after))


def request_sync(ctx) -> str:
    require_dashboard(ctx)
    company_id = ctx.portal.company_id
    fresh_after = utcnow() - timedelta(seconds=SYNC_COOLDOWN_SECONDS)
    rows = _rows(ctx.db, company_id)
    count = sum(1 for row in rows if not _tried_since(row, fresh_after))
    if count:
        ctx.after_commit(lambda: sync_connections(company_id=company_id, synced_before=fresh_after))
    recent = len(rows) - count
    note = f" ({recent} synced in the last {SYNC_COOLDOWN_SECONDS // 60} minutes)" if recent else ""
    return f"Sync started for {count} connected platform{'s' if count != 1 else ''}{note}"


# ---------------------------------------------------------------- staff: agency-managed connections

def _client(ctx, company_id: str) -> None:
    from chalicelib.areas.deals import service as deals_service

    if company_id not in deals_service.client_company_ids(ctx.db, [company_id]):
        raise not_found("Client")


def staff_list(ctx, *, company_id: str) -> list[dict]:
    _client(ctx, company_id)
    return [connection_record(row) for row in _rows(ctx.db, company_id)]


def staff_create(ctx, *, company_id: str, data) -> dict:
    _client(ctx, company_id)
    return connection_record(_connect(ctx, company_id=company_id, data=data, agency_managed=True,
                                      created_by=ctx.user_id))


def staff_delete(ctx, *, company_id: str, connection_id: str) -> None:
    _client(ctx, company_id)
    ctx.db.delete(_load(ctx.db, company_id, connection_id))
    ctx.db.flush()


# ---------------------------------------------------------------- sync

def _upsert(db, rows: list[dict]) -> None:
    if db.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    for start in range(0, len(rows), UPSERT_CHUNK):
        stmt = insert(AdDailyMetric).values(rows[start:start + UPSERT_CHUNK])
        stmt = stmt.on_conflict_do_update(
            index_elements=["connection_id", "campaign_id", "date"],
            set_={name: stmt.excluded[name] for name in ("campaign_name", *METRIC_COLUMNS, "synced_at")})
        db.execute(stmt)


def _window(backfill: bool) -> tuple:
    from chalicelib.core.settings import get_settings
    from chalicelib.core.timeutil import org_today

    settings = get_settings()
    until = org_today()
    days = settings.adplatforms_backfill_days if backfill else settings.adplatforms_resync_days
    return until - timedelta(days=max(0, days - 1)), until


def _unique_days(rows: list[dict]) -> list[dict]:
    """One row per (campaign, day), the later copy. The adapters answer one row per campaign and day (Google Ads
    `FROM campaign` segmented by `segments.date` only; Meta insights at level campaign with time_increment 1 and no
    breakdown; Shopify summed per day by the adapter), so a second copy is the same campaign-day answered again (a
    paged listing repeating a row across pages), not a part to add: summing it would double the day. Two copies in
    one INSERT ... ON CONFLICT DO UPDATE are refused by Postgres ("cannot affect row a second time")."""
    by_day: dict[tuple, dict] = {}
    for row in rows:
        by_day[(row["campaign_id"], row["date"])] = row
    return list(by_day.values())


def _write_failure(exc: Exception) -> str:
    """Staff's message for figures the database refused: the driver's own first line (never a parameter)."""
    orig = getattr(exc, "orig", None) or exc
    detail = orig.args[0] if getattr(orig, "args", None) else ""
    if isinstance(detail, dict):  # pg8000: the server's fields, M the message
        detail = detail.get("M") or ""
    detail = (str(detail).strip().splitlines() or [""])[0][:300]
    return f"The platform's figures could not be stored ({type(orig).__name__}{': ' + detail if detail else ''})"


def _write(conn, rows: list[dict], *, now, error, client_error, long_read) -> tuple[int, str] | None:
    """Write one connection's figures and status in a unit of work of its own: the number of rows stored and the
    connection's status before (read under the row's lock: service_connection_notices), or None when the connection was
    disconnected while its platform answered (its rows would fail on the deleted row's foreign key). Raises (rolled
    back) when the database refuses the figures."""
    from chalicelib.core.db import unit_of_work

    with unit_of_work() as uow:
        before = uow.session.execute(select(AdConnection.status).where(AdConnection.id == conn.id)
                                     .with_for_update()).first()
        if before is None:
            return None
        rows = _unique_days([{"id": new_id(), "connection_id": conn.id, "company_id": conn.company_id,
                              "platform": conn.platform, "synced_at": now, **row,
                              "campaign_name": row["campaign_name"][:300],
                              "campaign_id": row["campaign_id"][:100]} for row in rows])
        if rows:
            _upsert(uow.session, rows)
        values = ({"status": "error", "last_sync_error": error[:2000], "client_sync_error": client_error[:2000],
                   "updated_at": now} if error else
                  {"status": "connected", "last_sync_error": None, "client_sync_error": None,
                   "last_synced_at": now, "updated_at": now,
                   **({"backfilled_at": now} if long_read else {})})
        uow.session.execute(update(AdConnection).where(AdConnection.id == conn.id).values(**values))
    return len(rows), before.status


def _mark_refused(conn, *, now, error: str) -> str | None:
    """Mark the connection `error` after the database refused its figures, in a unit of work of its own: its status
    before (read under the row's lock, which the UPDATE keeps until commit: two overlapping syncs do not both see the
    change), None when it was deleted meanwhile. Two statements, the same on the SQLite default."""
    from chalicelib.core.db import unit_of_work

    with unit_of_work() as uow:
        before = uow.session.scalar(select(AdConnection.status).where(AdConnection.id == conn.id).with_for_update())
        if before is None:
            return None
        uow.session.execute(update(AdConnection).where(AdConnection.id == conn.id).values(
            status="error", last_sync_error=error[:2000], client_sync_error=CLIENT_SYNC_FAILED, updated_at=now))
        return before


def _staleness():
    """When a connection was last synced, or, in `error`, last tried (the failure's `updated_at`): never synced
    (null) first. A connection failing at every run goes behind the others rather than taking each run's start."""
    return case((AdConnection.status == "error", AdConnection.updated_at), else_=AdConnection.last_synced_at)


def sync_connections(*, company_id: str | None = None, connection_id: str | None = None,
                     backfill: bool = False, synced_before=None, seconds: float | None = None) -> dict:
    """Sync the daily metrics of one connection, of one company's connections, or (neither given) of every
    connection: the last ADPLATFORMS_RESYNC_DAYS days; with `backfill` (the scheduled job) a connection whose
    history was never read gets ADPLATFORMS_BACKFILL_DAYS days instead (a request never waits for that long
    read). Each platform is read with no transaction open; each connection's rows are written in a unit of work
    of their own, with its status (`connected`, or `error` and the message), one row per campaign-day
    (`_unique_days`); figures the database refuses (a value past its column) roll that unit back and mark the
    connection `error` in another, and the next connection goes on; a connection deleted meanwhile is left out
    (neither synced nor failed). Only the connections of companies that are clients are read: a former client's (a
    prospect again, whose portal and staff connection routes answer 404) are left as they are, their tokens unused,
    until it is a client again (session 30). Answers counts.

    The connections are taken least recently synced first (`_staleness`), and with `seconds` (the scheduled job:
    SYNC_SECONDS) no connection is started once that much time has passed (core.timeutil.TimeBudget); those not
    started are answered as `left` and come first in the next run. In (company_id, id) order with no budget, a
    run killed at the function's timeout was retried (and run the next day) from the same first connections and
    killed at the same point: the last ones were never synced (session 22's retries audit).

    The connections gone from another status to `error` in this run are told of after the loop
    (`service_connection_notices.tell_failing`, session 25); one already in `error` is not told of again."""
    from chalicelib.areas.deals import service as deals_service
    from chalicelib.core.db import unit_of_work
    from chalicelib.core.timeutil import TimeBudget
    from chalicelib.providers.adplatforms import get_adplatform, parse_credentials

    company = deals_service.company_table()
    with unit_of_work() as uow:
        stmt = select(AdConnection.id, AdConnection.company_id, AdConnection.platform, AdConnection.secret,
                      AdConnection.backfilled_at, AdConnection.display_name) \
            .join(company, and_(company.c.id == AdConnection.company_id, company.c.status == "client")) \
            .order_by(_staleness().nulls_first(), AdConnection.id)
        if connection_id:
            stmt = stmt.where(AdConnection.id == connection_id)
        if company_id:
            stmt = stmt.where(AdConnection.company_id == company_id)
        if synced_before is not None:  # a client's request: not those synced or failed since (SYNC_COOLDOWN_SECONDS)
            stmt = stmt.where(or_(AdConnection.last_synced_at.is_(None), AdConnection.last_synced_at <= synced_before),
                              or_(AdConnection.status != "error", AdConnection.updated_at <= synced_before))
        found = uow.session.execute(stmt).all()
    result = {"connections": len(found), "synced": 0, "failed": 0, "rows": 0}
    budget = TimeBudget(seconds) if seconds is not None else None
    from .service_connection_notices import failure, tell_failing

    failing: list[dict] = []  # those gone from a non-error status to `error`: told after the loop (tell_failing)
    for position, conn in enumerate(found):
        if budget is not None and budget.spent():
            result["left"] = len(found) - position
            break
        rows, error, client_error, long_read = [], None, None, False
        try:
            credentials = parse_credentials(conn.platform, json.loads(crypto.decrypt(conn.secret)))
            long_read = backfill and conn.backfilled_at is None
            since, until = _window(long_read)
            rows = get_adplatform(conn.platform, credentials, seed=conn.id).daily_metrics(since, until)
        except crypto.SecretUnreadable:
            error = "The stored credentials cannot be read (SECRETS_KEY changed); connect the account again"
            client_error = "The stored credentials can no longer be read; connect the account again"
        except DomainError as exc:
            error = exc.message
            # a 4xx is the platform refusing the client's own credentials: theirs to read and to fix
            client_error = exc.message if exc.status < 500 else CLIENT_SYNC_FAILED
        except Exception as exc:  # noqa: BLE001 - one failing platform never stops the others
            log.exception("ad platform sync failed", extra={"connection_id": conn.id})
            error, client_error = f"The sync failed ({type(exc).__name__})", CLIENT_SYNC_FAILED
        now = utcnow()
        try:
            outcome = _write(conn, rows, now=now, error=error, client_error=client_error, long_read=long_read)
        except Exception as exc:  # noqa: BLE001 - one connection's unwritable figures never stop the others
            # rolled back (a figure past its column, a row the table refuses): recorded on the connection in a unit
            # of work of its own, so that staff see it; the next connection is synced all the same
            log.exception("ad platform sync: the figures could not be stored", extra={"connection_id": conn.id})
            error = _write_failure(exc)
            before = _mark_refused(conn, now=now, error=error)
            if before is not None and before != "error":
                failing.append(failure(conn, error))
            result["failed"] += 1
            continue
        if outcome is None:  # disconnected meanwhile
            continue
        written, before = outcome
        if error and before != "error":
            failing.append(failure(conn, error))
        result["failed" if error else "synced"] += 1
        result["rows"] += written
    tell_failing(failing)
    return result

