"""Outbound URLs that users give us (web push endpoints) must point at public hosts on the
internet, never at the internal network: private, loopback, link-local (the cloud metadata
service's 169.254.169.254 included), multicast, reserved and unspecified addresses are refused,
for an address written in the URL and for every address its host name resolves to.

`check_public_web_url` is the rule for fetching a page a user names (research briefs): http or https
only, on ports 80 and 443 only, to a public host. `fetch_public_page` fetches such a page with every
resolved address checked before connecting and again on each redirect (at most 3), timeouts, a byte
cap, and (when the connection exposes it) the connected peer checked before the body is read, so a
name that resolves differently on the second lookup (DNS rebinding) is refused too."""
from __future__ import annotations

import codecs
import ipaddress
import re
import socket
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

_REFUSED_SUFFIXES = (".localhost", ".local", ".internal", ".localdomain", ".home.arpa")


class UnsafeURL(ValueError):
    """The URL is not https on a public host (the message says why)."""


def resolve_host(host: str) -> list[str]:
    """Every address `host` resolves to (tests replace this function: they never reach DNS)."""
    infos = socket.getaddrinfo(host, 443, type=socket.SOCK_STREAM)
    return sorted({info[4][0] for info in infos})


_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052's well-known prefix: the IPv4 address in the last 32 bits
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215's local-use prefixes: where the IPv4 sits varies


def embedded_ipv4(ip) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for, or None: IPv4-mapped (`::ffff:a.b.c.d`), 6to4 (`2002::/16`),
    Teredo's client (`2001::/32`) and NAT64's well-known prefix (`64:ff9b::/96`). Python counts the last three as
    global whatever they embed, so `64:ff9b::a9fe:a9fe` reached 169.254.169.254 through a NAT64 gateway (session
    22's injection audit)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip in _NAT64_LOCAL:
        return False
    ip = embedded_ipv4(ip) or ip
    return ip.is_global and not ip.is_multicast


def _public_addresses(host: str | None) -> list[str]:
    """The addresses of a public host (its literal address, or every address it resolves to); UnsafeURL
    when it has none or any of them is not public."""
    if not host:
        raise UnsafeURL("must name a host")
    host = host.rstrip(".").lower()
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [host]
    else:
        if host == "localhost" or host.endswith(_REFUSED_SUFFIXES) or "." not in host:
            raise UnsafeURL("must be a public host")
        try:
            addresses = resolve_host(host)
        except (OSError, UnicodeError) as exc:
            raise UnsafeURL("host name does not resolve") from exc
        if not addresses:
            raise UnsafeURL("host name does not resolve")
    if not all(_is_public(address) for address in addresses):
        raise UnsafeURL("must be a public host (private, loopback, link-local and metadata addresses are refused)")
    return addresses


def _split(url: str):
    try:
        parts = urlsplit(url)
        parts.hostname  # noqa: B018
        port = parts.port  # raises ValueError on a malformed port
    except ValueError as exc:
        raise UnsafeURL("must be a valid URL") from exc
    if parts.username is not None or parts.password is not None:
        raise UnsafeURL("must not carry credentials")
    return parts, port


def check_public_https_url(url: str) -> str:
    """`url` unchanged when it is https on a public host; UnsafeURL otherwise."""
    parts, _port = _split(url)
    if parts.scheme != "https":
        raise UnsafeURL("must be an https URL")
    _public_addresses(parts.hostname)
    return url


WEB_PORTS = {"http": 80, "https": 443}


def check_public_web_url(url: str) -> list[str]:
    """The public addresses of an http or https URL on port 80 or 443 (the default port of either scheme);
    UnsafeURL otherwise (another scheme or port, credentials, a private, loopback, link-local, metadata or
    IPv6-equivalent address, written or resolved)."""
    if not isinstance(url, str) or len(url) > 2000 or any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise UnsafeURL("must be a valid URL")
    parts, port = _split(url)
    if parts.scheme not in WEB_PORTS:
        raise UnsafeURL("must be an http or https URL")
    if port is not None and port not in WEB_PORTS.values():
        raise UnsafeURL("must use port 80 or 443")
    return _public_addresses(parts.hostname)


class FetchFailed(Exception):
    """The page could not be fetched within the rules (too large, too many redirects, an error status, a
    timeout, a redirect to a refused address): the message says why."""


@dataclass
class FetchedPage:
    url: str  # after redirects
    status: int
    content_type: str
    text: str
    redirects: int


REDIRECTS = (301, 302, 303, 307, 308)


def _peer_is_public(response) -> bool:
    """The address actually connected to, when the connection exposes it (a real socket); True otherwise."""
    try:
        sock = response.raw._connection.sock  # urllib3's connection of a streamed response
        address = sock.getpeername()[0]
    except Exception:  # noqa: BLE001 - stubbed responses and closed sockets expose nothing to check
        return True
    return _is_public(address)


_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def page_encoding(content_type: str, body: bytes) -> str:
    """The encoding of a fetched page: the `Content-Type` charset when the header names one, else a byte order
    mark, else a `<meta charset>` (or `http-equiv` content charset) in the first 1024 bytes (the HTML prescan),
    else UTF-8. Not requests' `response.encoding`, which reads a `text/*` type without a charset as ISO-8859-1
    (RFC 2616's default): a UTF-8 page served as plain `text/html` came out as mojibake ("CafÃ©")."""
    found = _HEADER_CHARSET.search(content_type or "")
    if found:
        return found.group(1)
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name
    meta = _CHARSET.search(body[:1024])
    return meta.group(1).decode("ascii") if meta else "utf-8"


def fetch_public_page(url: str, *, max_bytes: int = 2_000_000, timeout: tuple[float, float] = (3.05, 10.0),
                      max_redirects: int = 3, user_agent: str = "WMS-research/1.0",
                      total_seconds: float = 20.0) -> FetchedPage:
    """GET a public web page: the URL and every redirect target checked (`check_public_web_url`) before
    connecting; at most `max_redirects` redirects; connect and read timeouts, and `total_seconds` for the whole
    fetch (requests' read timeout bounds each wait for data, so a site sending a byte at a time could hold it);
    the body cut off at `max_bytes` (FetchFailed beyond); the text decoded by `page_encoding`. Proxies from the
    environment are not used (the connected address is the one checked). UnsafeURL for a refused address,
    FetchFailed for other failures."""
    import requests

    deadline = time.monotonic() + total_seconds
    session = requests.Session()
    session.trust_env = False  # no HTTP(S)_PROXY: the address connected to must be the site's
    adapter = _checked_adapter()
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    try:
        return _fetch(session, url, max_bytes=max_bytes, timeout=timeout, max_redirects=max_redirects,
                      user_agent=user_agent, deadline=deadline)
    finally:
        session.close()


def _checked_adapter():
    """A requests adapter whose connections check the address they reached as soon as the TCP connection is made,
    before TLS and before a byte of the request is sent: a name that resolved to public addresses when checked
    and to another one when connecting (DNS rebinding) is refused (UnsafeURL). The response's socket, read after
    the answer, is gone once the server closes the connection with its answer (`Connection: close`)."""
    from requests.adapters import HTTPAdapter
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    def checked(sock):
        try:
            address = sock.getpeername()[0]
        except OSError as exc:
            sock.close()
            raise UnsafeURL("must be a public host (the address connected to could not be read)") from exc
        if not _is_public(address):
            sock.close()
            raise UnsafeURL("must be a public host (the connection reached a refused address)")
        return sock

    class CheckedHTTP(HTTPConnection):
        def _new_conn(self):
            return checked(super()._new_conn())

    class CheckedHTTPS(HTTPSConnection):
        def _new_conn(self):
            return checked(super()._new_conn())

    class HTTPPool(HTTPConnectionPool):
        ConnectionCls = CheckedHTTP

    class HTTPSPool(HTTPSConnectionPool):
        ConnectionCls = CheckedHTTPS

    class CheckedAdapter(HTTPAdapter):
        def init_poolmanager(self, *args, **kwargs):
            super().init_poolmanager(*args, **kwargs)
            self.poolmanager.pool_classes_by_scheme = {"http": HTTPPool, "https": HTTPSPool}

    return CheckedAdapter()


def _fetch(session, url: str, *, max_bytes: int, timeout, max_redirects: int, user_agent: str,
           deadline: float) -> FetchedPage:
    import requests

    current = url
    for hop in range(max_redirects + 1):
        check_public_web_url(current)
        # the whole fetch within `deadline`, its redirects too (session 30: each hop had its own full timeouts, so a
        # site redirecting slowly held the fetch four times over): no hop starts once it has passed, and each hop's
        # connect and read timeouts are cut to what is left
        left = deadline - time.monotonic()
        if left <= 0:
            raise FetchFailed("the site did not answer in time")
        try:
            response = session.get(current, timeout=(min(timeout[0], left), min(timeout[1], left)),
                                   allow_redirects=False, stream=True,
                                   headers={"User-Agent": user_agent, "Accept": "text/html,*/*;q=0.5"})
        except requests.Timeout as exc:
            raise FetchFailed("the site did not answer in time") from exc
        except requests.RequestException as exc:
            raise FetchFailed("the site could not be reached") from exc
        try:
            if not _peer_is_public(response):
                raise UnsafeURL("must be a public host (the connection reached a refused address)")
            if response.status_code in REDIRECTS:
                if not response.headers.get("Location"):
                    raise FetchFailed(f"the site answered HTTP {response.status_code} without a Location")
                if hop == max_redirects:
                    raise FetchFailed(f"more than {max_redirects} redirects")
                current = urljoin(current, response.headers["Location"])
                continue
            if response.status_code >= 400:
                raise FetchFailed(f"the site answered HTTP {response.status_code}")
            declared = response.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise FetchFailed(f"the page is larger than {max_bytes} bytes")
            body = bytearray()
            for chunk in response.iter_content(chunk_size=65536):
                body.extend(chunk)
                if len(body) > max_bytes:
                    raise FetchFailed(f"the page is larger than {max_bytes} bytes")
                if time.monotonic() > deadline:
                    raise FetchFailed("the site did not answer in time")
            raw = bytes(body)
            try:
                text = raw.decode(page_encoding(response.headers.get("Content-Type", ""), raw), errors="replace")
            except LookupError:  # a charset Python does not know
                text = raw.decode("utf-8", errors="replace")
            return FetchedPage(url=current, status=response.status_code,
                               content_type=response.headers.get("Content-Type", ""), text=text, redirects=hop)
        except requests.RequestException as exc:
            raise FetchFailed("the site's answer could not be read") from exc
        finally:
            response.close()
    raise FetchFailed(f"more than {max_redirects} redirects")  # unreachable: the loop returns or raises
