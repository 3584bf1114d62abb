"""Outbound URLs that users give us (web push endpoints) must point at public hosts on the
internet, never at the internal network: private, loopback, link-local (the cloud metadata
service's 169.254.169.254 included), multicast, reserved and unspecified addresses are refused,
for an address written in the URL and for every address its host name resolves to."""
from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

_REFUSED_SUFFIXES = (".localhost", ".local", ".internal", ".localdomain", ".home.arpa")


class UnsafeURL(ValueError):
    """The URL is not https on a public host (the message says why)."""


def resolve_host(host: str) -> list[str]:
    """Every address `host` resolves to (tests replace this function: they never reach DNS)."""
    infos = socket.getaddrinfo(host, 443, type=socket.SOCK_STREAM)
    return sorted({info[4][0] for info in infos})


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def check_public_https_url(url: str) -> str:
    """`url` unchanged when it is https on a public host; UnsafeURL otherwise."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as exc:
        raise UnsafeURL("must be a valid URL") from exc
    if parts.scheme != "https":
        raise UnsafeURL("must be an https URL")
    if not host:
        raise UnsafeURL("must name a host")
    if parts.username is not None or parts.password is not None:
        raise UnsafeURL("must not carry credentials")
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
    return url
