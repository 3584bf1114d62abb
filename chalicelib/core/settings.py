"""One settings object, read from the environment once per container.

Defaults are the embedded ones of decisions.md section 1: a SQLite file, a local uploads folder,
in-process notification delivery and sandbox providers. Secrets that must persist across restarts
in development (the HS256 secret, the Fernet key) are generated once and written under `.data/`.
"""

import os
import secrets
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

PROJECT_DIR = Path(__file__).resolve().parents[2]


def data_dir() -> Path:
    path = Path(os.environ.get("WMS_DATA_DIR") or PROJECT_DIR / ".data")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _persistent_secret(name: str, make) -> str:
    path = data_dir() / name
    if path.exists():
        return path.read_text().strip()
    value = make()
    path.write_text(value)
    path.chmod(0o600)
    return value


# the default PLACES_USER_AGENT: a placeholder that identifies nobody (providers.places refuses it in live mode)
PLACES_USER_AGENT_PLACEHOLDER = "work-management-service/1.0 (ops@example.com)"


class Settings(BaseModel):
    stage: str = "dev"
    # WMS_CHECK_RESPONSES=1 (tests, fuzzing): every JSON answer is checked against the route's declared
    # read model before commit, and a mismatch is a 500 naming the field
    wms_check_responses: bool = False
    database_url: str
    database_ssl: str = "off"  # off | verify (trimmed, lower-cased; anything else is refused)
    database_ca_file: str | None = None
    auth_jwks_url: str | None = None
    auth_issuer: str | None = None
    auth_audience: str | None = None
    auth_jwt_secret: str | None = None
    auth_cookie_name: str = "wms_session"
    portal_service_token: str | None = None
    uploads_bucket: str | None = None
    uploads_dir: str | None = None  # default `.data/uploads`, used only without UPLOADS_BUCKET
    notifications_queue_url: str | None = None
    aws_endpoint_url: str | None = None
    aws_region: str = "ap-southeast-2"
    secrets_key: str | None = None
    # where the provider secrets live in production (core/secrets.py): a Secrets Manager secret, or ssm:/path/
    provider_secrets_id: str | None = None
    org_timezone: str = "Australia/Sydney"
    public_base_url: str = "http://127.0.0.1:8000"
    # origins (scheme://host[:port], comma-separated) whose pages may send cookie-authenticated writes;
    # empty means the origin of PUBLIC_BASE_URL
    allowed_origins: str = ""
    # providers: <ROLE>_MODE = sandbox | live | off
    ai_mode: str = "sandbox"
    ai_base_url: str = "https://api.openai.com/v1"
    ai_api_key: str | None = None
    ai_model: str = "gpt-4o-mini"
    ai_timeout_seconds: float = 20.0  # within a request: its 504 is answered before API Gateway gives up at 29 s
    mail_mode: str = "sandbox"
    mail_from: str = "notifications@example.com"
    chat_mode: str = "sandbox"
    chat_bot_token: str | None = None
    push_mode: str = "sandbox"
    # SMS, MMS and message app: Twilio (the message app is WhatsApp)
    sms_mode: str = "sandbox"
    twilio_account_sid: str | None = None
    twilio_auth_token: str | None = None
    twilio_from_number: str | None = None
    twilio_msgapp_from: str | None = None  # the WhatsApp sender; default twilio_from_number
    # professional-network data: People Data Labs
    enrichment_mode: str = "sandbox"
    pdl_api_key: str | None = None
    pdl_base_url: str = "https://api.peopledatalabs.com/v5"
    # website fetch for research briefs (live: plain HTTP behind core.netguard; sandbox: a storefront page)
    website_mode: str = "sandbox"
    # accounting ledger (Xero Accounting API and Payroll AU, OAuth 2.0): the app's client credentials; the
    # organisation's tokens come from the stored connection (connections area), else these two
    ledger_mode: str = "sandbox"
    ledger_client_id: str | None = None
    ledger_client_secret: str | None = None
    ledger_redirect_uri: str | None = None
    ledger_access_token: str | None = None
    ledger_tenant_id: str | None = None
    # ledger 429 answers: wait up to this many seconds (Retry-After) and retry once, else answer 503
    ledger_max_retry_wait: float = 5.0
    # resource planner (Productive): the stored connection first, else these
    planner_mode: str = "sandbox"
    planner_api_token: str | None = None
    planner_organization_id: str | None = None
    # the absence category (a Productive event) a leave booking names; none: the leave's planner booking is skipped
    # ("Not configured") in live mode; the sandbox's default is its own "Vacation" event
    planner_absence_event_id: str | None = None
    vapid_public_key: str | None = None
    vapid_private_key: str | None = None
    vapid_subject: str = "mailto:ops@example.com"
    # calendar: Google Calendar API v3 through a service account with domain-wide delegation
    calendar_mode: str = "sandbox"
    calendar_service_account_email: str | None = None
    calendar_private_key: str | None = None  # the service account's PEM private key (RS256)
    calendar_team_calendar_id: str | None = None  # the shared team calendar (sandbox default `team`)
    # place search: a Nominatim-compatible search endpoint; live mode needs PLACES_USER_AGENT set to one that
    # identifies the deployment (a contact address of its own): the default is a placeholder, refused there (503)
    places_mode: str = "sandbox"
    places_base_url: str = "https://nominatim.openstreetmap.org"
    places_user_agent: str = PLACES_USER_AGENT_PLACEHOLDER
    # meeting notes: the Fireflies GraphQL API
    meetnotes_mode: str = "sandbox"
    meetnotes_api_key: str | None = None
    meetnotes_sync_interval_minutes: int = 30
    meetnotes_sync_enabled: bool = True
    # announcements' distribution targets (sandbox defaults when unset: see docs/decisions/announcements.md)
    announcements_chat_channel: str | None = None
    announcements_email_to: str | None = None
    # the agent pipeline (docs/decisions/agents.md): the runner is reached at each project's runner_url;
    # the orchestrator at ORCHESTRATOR_URL; business agents are the registry BUSINESS_AGENTS
    # ("id=https://url,id2=https://url2"); ORCHESTRATOR_MODE picks the adapter of both
    runner_mode: str = "sandbox"
    runner_timeout_seconds: float = 10.0
    orchestrator_mode: str = "sandbox"
    orchestrator_url: str | None = None
    orchestrator_token: str | None = None
    orchestrator_timeout_seconds: float = 15.0
    business_agents: str | None = None
    # ad platforms of the client portal's results (providers/adplatforms): Google Ads API (GAQL over REST; the
    # agency's developer token and OAuth client, each client's refresh token stored with its connection),
    # Meta Marketing API insights, Shopify Admin API (orders)
    adplatforms_mode: str = "sandbox"
    google_ads_developer_token: str | None = None
    google_ads_client_id: str | None = None
    google_ads_client_secret: str | None = None
    google_ads_api_version: str = "v26"  # v23 sunsets in February 2027; Google recommends v26 to start
    meta_api_version: str = "v25.0"
    shopify_api_version: str = "2026-07"
    adplatforms_max_retry_wait: float = 5.0
    adplatforms_backfill_days: int = 400  # a new connection's first sync
    adplatforms_resync_days: int = 30  # later syncs re-read (upsert) this many days (late conversions)

    def provider_mode(self, role: str) -> str:
        return getattr(self, f"{role}_mode", "off") or "off"


def _env(name: str, default=None):
    """The variable's value trimmed, `default` when it is unset or blank. Every setting is read so: a secret store's
    or a shell's trailing newline must not make every comparison fail (the portal token), nor reach a provider's
    Authorization header (requests refuses a header value ending in a newline: every call failed) or a URL's path."""
    value = (os.environ.get(name) or "").strip()
    return value if value else default


def normalise_database_url(url: str) -> str:
    """`postgres://` and `postgresql://` (as hosting providers and psql write them) mean PostgreSQL
    through the default driver, pg8000; an explicit `postgresql+<driver>://` is kept."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+pg8000://" + url[len(prefix):]
    return url


# the stages the project runs under: .chalice/config.json's dev and prod, and the tests' test
STAGES = ("dev", "test", "prod")
PROVIDER_MODES = ("sandbox", "live", "off")
DATABASE_SSL_VALUES = ("off", "verify")


def _refuse(variable: str, message: str):
    # RuntimeError: the exception that refuses the prod stage without AUTH_JWKS_URL; never the value of a secret
    raise RuntimeError(f"{variable} {message}")


def _http_url(value: str):
    """The parts (urlsplit) of `value` when it is an http:// or https:// URL with a host part, else None: the one
    check of ALLOWED_ORIGINS' entries, AUTH_JWKS_URL and the prod stage's PUBLIC_BASE_URL."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    return parts if parts.scheme.lower() in ("http", "https") and parts.netloc else None


def _check_values(values: dict) -> None:
    """Normalise (trim, lower-case) and check the values whose typo would otherwise be accepted silently;
    a bad value refuses the settings, naming its variable (decisions.md, Core: Settings)."""
    for field in [name for name in values if name.endswith("_mode")]:
        value = str(values[field]).strip().lower()
        if value not in PROVIDER_MODES:
            _refuse(field.upper(), f"must be one of {', '.join(PROVIDER_MODES)}, not {values[field]!r}")
        values[field] = value
    if "database_ssl" in values:
        value = str(values["database_ssl"]).strip().lower() or "off"
        if value not in DATABASE_SSL_VALUES:
            _refuse("DATABASE_SSL", f"must be one of {', '.join(DATABASE_SSL_VALUES)}, not {values['database_ssl']!r}")
        values["database_ssl"] = value
    if "org_timezone" in values:
        from zoneinfo import ZoneInfo

        value = str(values["org_timezone"]).strip()
        try:
            ZoneInfo(value)
        except Exception:  # ZoneInfoNotFoundError, or ValueError for a malformed key
            _refuse("ORG_TIMEZONE", f"must name an IANA time zone such as Australia/Sydney, not {values['org_timezone']!r}")
        values["org_timezone"] = value
    stage = str(values.get("stage") or "dev").strip().lower()
    if stage not in STAGES:
        _refuse("WMS_STAGE", f"must be one of {', '.join(STAGES)}, not {values.get('stage')!r}")
    values["stage"] = stage
    if values.get("allowed_origins"):
        for item in str(values["allowed_origins"]).split(","):
            if item.strip() and _http_url(item.strip()) is None:
                _refuse("ALLOWED_ORIGINS", f"entries must be http:// or https:// origins, not {item.strip()!r}")
    if values.get("auth_jwks_url") and _http_url(values["auth_jwks_url"]) is None:
        # it was answered as every token's 401 "Invalid token" (the key set's fetch failed inside PyJWT)
        _refuse("AUTH_JWKS_URL", "must be an https:// URL of the identity provider's key set")
    pg8000 = ("postgres://", "postgresql://", "postgresql+pg8000://")  # the first two are read with pg8000
    if values.get("database_url") and str(values["database_url"]).strip().startswith(pg8000):
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        # the query as the engine reads it (SQLAlchemy's parser), not urlsplit's: a password holding "[" was a
        # ValueError there ("Invalid IPv6 URL") and one holding "#" or "?" moved the query, so sslmode went unseen
        try:
            query = make_url(str(values["database_url"]).strip()).query
        except (ArgumentError, ValueError):  # not a URL the engine can read either: create_engine names it
            query = {}
        if "sslmode" in query:  # psycopg reads it (make bench measures the app on psycopg too)
            # as hosting providers write it; pg8000 takes no sslmode, so every connection failed (a 500 a request)
            _refuse("DATABASE_URL", "carries sslmode, which the driver does not read: leave it out and set "
                                    "DATABASE_SSL=verify for TLS (or off)")
    if isinstance(values.get("secrets_key"), str):
        key = values["secrets_key"].strip()
        if key.startswith("kms:"):
            if not key[len("kms:"):].strip():
                _refuse("SECRETS_KEY", "must be kms:<key id> or a Fernet key: the KMS key id is missing")
        elif key:
            from cryptography.fernet import Fernet

            try:
                Fernet(key.encode())
            except Exception:  # not 32 url-safe base64-encoded bytes; the value itself is never repeated
                _refuse("SECRETS_KEY", "must be kms:<key id> or a Fernet key (32 url-safe base64-encoded bytes)")
        values["secrets_key"] = key or None


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "0.0.0.0")


def _check_prod(values: dict, settings: "Settings") -> None:
    """The prod stage refuses to start on a development default: each would fail quietly, request after request.

    AUTH_JWKS_URL: without it tokens would be HS256 with a generated secret. PUBLIC_BASE_URL: its default
    (http://127.0.0.1:8000) would make the cookie-write origin allow-list that address (every cookie write 403),
    and put it in the links of notices and in the agent runner's callback_url. SECRETS_KEY: a key generated per
    container would leave stored credentials unreadable on every other container.
    """
    missing = []
    if not settings.auth_jwks_url:
        missing.append("AUTH_JWKS_URL (HS256 is for development only)")
    for name in ("auth_audience", "auth_issuer"):
        if not getattr(settings, name):  # unchecked, a token the provider issued to any other application passes
            missing.append(f"{name.upper()} (without it a token the identity provider issued to another application "
                           "is accepted)")
    base = str(values.get("public_base_url") or "").strip()
    parts = _http_url(base)
    host = (parts.hostname or "").lower() if parts is not None else ""
    if not base:
        missing.append("PUBLIC_BASE_URL (the site's public address; the default http://127.0.0.1:8000 is for "
                       "development only)")
    elif not host:
        missing.append("PUBLIC_BASE_URL to be an http:// or https:// URL")
    elif host in LOOPBACK_HOSTS:
        missing.append(f"PUBLIC_BASE_URL to be the site's public address, not a local one ({host})")
    if not settings.secrets_key:
        missing.append("SECRETS_KEY (kms:<key id> or a Fernet key; a key generated per container cannot read what "
                       "another stored)")
    if missing:
        # the same exception as every refused setting (_refuse); never the value of a secret
        raise RuntimeError("the prod stage requires " + "; ".join(missing))


def load_settings() -> Settings:
    values: dict = {}
    for field in Settings.model_fields:
        value = _env(field.upper())
        if value is not None:
            values[field] = value
    # `.data/` is touched only for the embedded defaults: Lambda's code folder is read-only.
    if "database_url" not in values:
        values["database_url"] = f"sqlite:///{data_dir() / 'wms.sqlite3'}"
    if "uploads_dir" not in values and "uploads_bucket" not in values:
        values["uploads_dir"] = str(data_dir() / "uploads")
    # boto3 reads AWS_DEFAULT_REGION too (the moto server and the AWS CLI set that one)
    if "aws_region" not in values and _env("AWS_DEFAULT_REGION"):
        values["aws_region"] = _env("AWS_DEFAULT_REGION")
    if values.get("provider_secrets_id"):
        from .secrets import read_provider_secrets

        stored = read_provider_secrets(values["provider_secrets_id"], region=values.get("aws_region", "ap-southeast-2"),
                                       endpoint_url=values.get("aws_endpoint_url"))
        for name, value in stored.items():
            field = name.lower()
            if isinstance(value, str):
                value = value.strip()
            if field in Settings.model_fields and field not in values and field != "provider_secrets_id" and value != "":
                values[field] = value
    values["database_url"] = normalise_database_url(values["database_url"])
    values["stage"] = _env("WMS_STAGE", values.get("stage", "dev"))
    _check_values(values)
    settings = Settings(**values)
    if settings.stage == "prod":
        _check_prod(values, settings)
    if not settings.auth_jwks_url:
        if not settings.auth_jwt_secret:
            settings.auth_jwt_secret = _persistent_secret("jwt-secret", lambda: secrets.token_urlsafe(48))
    if not settings.secrets_key:
        from cryptography.fernet import Fernet

        settings.secrets_key = _persistent_secret("secrets-key", lambda: Fernet.generate_key().decode())
    return settings


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return load_settings()


def reset_settings() -> None:
    """Forget the cached settings (tests change the environment)."""
    get_settings.cache_clear()
