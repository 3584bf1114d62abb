"""Token -> principal (decisions.md section 2).

A request carries a JWT in `Authorization: Bearer <token>` or in the `AUTH_COOKIE_NAME` cookie.
Production verifies RS256/ES256 against the identity provider's JWKS (keys cached); development
and tests use HS256 with `AUTH_JWT_SECRET`. The caller is the active user whose email equals the
token's `email` claim, case-insensitively (a token whose `email_verified` is present and not true names
nobody: 401). No or bad token: 401; no active user: 403.
"""
from __future__ import annotations

import hmac
from functools import cache
import time
from dataclasses import dataclass, field

import jwt
from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session, aliased

from .errors import Forbidden, ServiceUnavailable, Unauthorized
from .models import Squad, User
from .spelling import email_key
from .permissions import allows, apply_cells, permission_cells, require
from .settings import get_settings

ASYMMETRIC_ALGORITHMS = ["RS256", "ES256"]
LEEWAY_SECONDS = 60
_jwks_clients: dict[str, jwt.PyJWKClient] = {}


@dataclass
class Principal:
    user: User
    permissions: dict[str, str] = field(default_factory=dict)
    squad_name: str | None = None  # read in the principal's one statement, so /api/me costs no second one
    manager_name: str | None = None

    @property
    def id(self) -> str:
        return self.user.id

    @property
    def access_level(self) -> str:
        return self.user.access_level

    def can(self, tool: str, level: str) -> bool:
        return allows(self.permissions, tool, level)

    def require(self, tool: str, level: str) -> None:
        require(self.permissions, tool, level)


def _header(headers, name: str) -> str | None:
    if headers is None:
        return None
    value = headers.get(name)
    if value is None:
        value = headers.get(name.lower())
    return value


def extract_token(headers) -> str | None:
    authorization = _header(headers, "Authorization")
    if authorization:
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("Malformed Authorization header")
        return token.strip()
    cookie_header = _header(headers, "Cookie")
    if cookie_header:
        return cookie_value(cookie_header, get_settings().auth_cookie_name)
    return None


def cookie_value(cookie_header: str | None, name: str) -> str | None:
    """The value of the cookie `name` in a request's Cookie header (RFC 6265: `a=b; c=d`), or None. Each pair
    is read on its own: another site cookie the browser sends beside ours (an analytics or consent cookie whose
    value holds a space, a quote or JSON) does not hide it, as it did with http.cookies.SimpleCookie, which
    stops at the first pair it cannot parse (the signed-in user was answered 401)."""
    for pair in (cookie_header or "").split(";"):
        key, sep, value = pair.partition("=")
        if sep and key.strip() == name:
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            return value or None
    return None


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _origin_of(url: str) -> str | None:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if not parts.scheme or not parts.netloc:
        return None
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def allowed_origins() -> set[str]:
    settings = get_settings()
    configured = [item for item in (settings.allowed_origins or "").split(",") if item.strip()]
    origins = {_origin_of(item) for item in configured or [settings.public_base_url]}
    return {origin for origin in origins if origin}


def check_cookie_request(headers, method: str, request_content: str | None = None) -> None:
    """A write authenticated by the cookie alone must come from one of our own pages: another site's
    form or script would carry the cookie too (CSRF). It needs `Content-Type: application/json` (a
    type no cross-site form can send; an upload route names its own) and an `Origin`, or else a
    `Referer`, in the allowed list. A request with the Authorization header is not cookie-driven."""
    if method.upper() in SAFE_METHODS or _header(headers, "Authorization"):
        return
    content_type = (_header(headers, "Content-Type") or "").split(";", 1)[0].strip().lower()
    expected = (request_content or "application/json").lower()
    if content_type != expected:
        raise Forbidden(f"A cookie-authenticated write must be sent as {expected}")
    origin = _header(headers, "Origin")
    source = _origin_of(origin) if origin and origin != "null" else None
    if source is None and not origin:
        referer = _header(headers, "Referer")
        source = _origin_of(referer) if referer else None
    if source is None or source not in allowed_origins():
        raise Forbidden("A cookie-authenticated write must come from an allowed origin")


def _jwks_client(url: str) -> jwt.PyJWKClient:
    client = _jwks_clients.get(url)
    if client is None:
        # the key set (parsed keys) is cached for an hour; no per-kid cache beside it: that LRU never expires,
        # so a key the provider withdrew (rotated after a leak) would verify tokens for the process's life
        client = jwt.PyJWKClient(url, cache_keys=False, lifespan=3600, timeout=5)
        _jwks_clients[url] = client
    return client


# Verified claims by token, for the container's later requests with the same token (a browser sends one token
# for its hour): PyJWT's decode and signature check cost about 70 us a request. An entry serves only while its
# token is unexpired (exp, without the leeway: after it the token is decoded again, with the leeway) and for
# the settings object that verified it (a changed secret, key URL, audience or issuer verifies again), and for
# at most VERIFIED_SECONDS: then the signature is checked again against the key set as it is, so a token signed by
# a key the provider has withdrawn (rotated after a leak) stops working once the key set is read again (its hour),
# instead of for the token's own lifetime, which a forger chooses (session 22's authentication audit).
_VERIFIED: dict[str, tuple[dict, object, float]] = {}
VERIFIED_CACHE = 256
VERIFIED_SECONDS = 300


def decode_token(token: str) -> dict:
    settings = get_settings()
    found = _VERIFIED.get(token)
    now = time.time()
    if found is not None and found[1] is settings and found[2] > now:
        return found[0]
    claims = _decode_token(token, settings)
    exp = claims.get("exp")
    if isinstance(exp, (int, float)) and not isinstance(exp, bool):
        if len(_VERIFIED) >= VERIFIED_CACHE:
            _VERIFIED.clear()
        _VERIFIED[token] = (claims, settings, min(exp, now + VERIFIED_SECONDS))
    return claims


def _decode_token(token: str, settings) -> dict:
    options = {"require": ["exp"], "verify_aud": bool(settings.auth_audience), "verify_iss": bool(settings.auth_issuer)}
    try:
        if settings.auth_jwks_url:
            key = _jwks_client(settings.auth_jwks_url).get_signing_key_from_jwt(token).key
            algorithms = ASYMMETRIC_ALGORITHMS
        else:
            key = settings.auth_jwt_secret
            algorithms = ["HS256"]
        return jwt.decode(
            token, key, algorithms=algorithms, leeway=LEEWAY_SECONDS, options=options,
            audience=settings.auth_audience, issuer=settings.auth_issuer,
        )
    except jwt.PyJWKClientConnectionError as exc:
        raise ServiceUnavailable("Identity provider keys could not be fetched") from exc
    except jwt.ExpiredSignatureError as exc:
        raise Unauthorized("Token expired") from exc
    except (jwt.PyJWTError, ValueError, TypeError) as exc:
        raise Unauthorized("Invalid token") from exc


@cache
def _principal_statement():
    """The user with their squad's and manager's names and every permission cell that applies to them:
    one statement, one row per cell (a user with no cell still gives one row, with nulls)."""
    cells = permission_cells()
    manager = aliased(User)
    return (
        select(User, cells.c.tool, cells.c.level, cells.c.is_override, Squad.name, manager.name)
        .outerjoin(Squad, Squad.id == User.squad_id)
        .outerjoin(manager, manager.id == User.manager_id)
        .outerjoin(cells, cells.c.user_id == User.id)
        .where(func.lower(User.email) == bindparam("email"))
    )


def _is_true(value) -> bool:
    """`email_verified` as identity providers spell it: JSON true, or the text "true" (some send strings)."""
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def authenticate(db: Session, headers, *, method: str = "GET", request_content: str | None = None) -> Principal:
    token = extract_token(headers)
    if not token:
        raise Unauthorized("Authentication required")
    claims = decode_token(token)
    check_cookie_request(headers, method, request_content)
    email = claims.get("email")
    if not isinstance(email, str) or not email:
        raise Unauthorized("Token has no email claim")
    if len(email) > 320 or any(ord(char) < 32 or ord(char) == 127 for char in email):
        raise Unauthorized("Invalid token")
    if "email_verified" in claims and not _is_true(claims["email_verified"]):
        # an identity provider with self sign-up issues tokens before the address is confirmed: whoever
        # signed up with an employee's address is not that employee
        raise Unauthorized("The token's e-mail address is not verified")
    exp = claims.get("exp")
    if isinstance(exp, bool) or not isinstance(exp, (int, float)):
        raise Unauthorized("Invalid token")
    # stored addresses are trimmed, lower-cased and composed (admin, session 32): the claim is compared the same way,
    # or " ann@x" or a decomposed "e\u0301" in a claim answered 403 for an active user; an address stored before in
    # another form (no migration) is asked for as the claim spells it, only when the composed one finds nobody
    # lower-cased, then composed, as admin and the CLI store it (the other order differs for a few letters: "J" and
    # U+030C stay two, "j" and U+030C compose into one; the second review of session 32)
    composed, given = email_key(email), email.strip().lower()
    rows = db.execute(_principal_statement(), {"email": composed}).all()
    if not rows and given != composed:
        rows = db.execute(_principal_statement(), {"email": given}).all()
    user = rows[0][0] if rows else None
    if user is None or not user.is_active:
        raise Forbidden("No active user for this token")
    cells = [(tool, level, is_override) for _user, tool, level, is_override, _s, _m in rows if tool is not None]
    return Principal(user=user, permissions=apply_cells(user.access_level, cells),
                     squad_name=rows[0][4], manager_name=rows[0][5])


def principals_of(db: Session, user_ids) -> dict[str, Principal]:
    """`{user_id: Principal}` of these active users, as `authenticate` builds a caller's (their access level's
    matrix and their overrides), in one statement: for a service that must ask what another user may see (a
    mention is told a note's text only when that user may read the note)."""
    ids = list(dict.fromkeys(user_ids))
    if not ids:
        return {}
    cells = permission_cells()
    rows = db.execute(select(User, cells.c.tool, cells.c.level, cells.c.is_override)
                      .outerjoin(cells, cells.c.user_id == User.id)
                      .where(User.id.in_(ids), User.is_active.is_(True))).all()
    users, found = {}, {}
    for user, tool, level, is_override in rows:
        users[user.id] = user
        if tool is not None:
            found.setdefault(user.id, []).append((tool, level, is_override))
    return {user_id: Principal(user=user, permissions=apply_cells(user.access_level, found.get(user_id, [])))
            for user_id, user in users.items()}


def issue_dev_token(email: str, *, ttl_seconds: int = 30 * 24 * 3600, **claims) -> str:
    """An HS256 token for development and tests (refused when JWKS is configured)."""
    settings = get_settings()
    if settings.auth_jwks_url:
        raise RuntimeError("development tokens are HS256 only; this installation uses JWKS")
    now = int(time.time())
    payload = {"email": email, "iat": now, "exp": now + ttl_seconds, "sub": email, **claims}
    if settings.auth_issuer:
        payload.setdefault("iss", settings.auth_issuer)
    if settings.auth_audience:
        payload.setdefault("aud", settings.auth_audience)
    return jwt.encode(payload, settings.auth_jwt_secret, algorithm="HS256")


def bearer_secret_matches(headers, expected: str | None) -> bool:
    """Service secrets (runner callback, portal worker), compared in constant time."""
    if not expected:
        return False
    authorization = _header(headers, "Authorization") or ""
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(token.strip().encode(), expected.encode())
