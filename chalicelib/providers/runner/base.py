"""The agent runner: the interface every runner adapter implements.

The request a run sends (JSON, POST to the project's runner_url, `Authorization: Bearer <runner secret>`,
`X-WMS-Run-Id: <run_id>`):
`{run_id, task_id, project_id, stage, task: {...}, agent: {...}, config: {...}, feedback, callback_url}`.
The runner answers 2xx to accept the run, then reports through POST /api/webhooks/agent-callback.
"""
from __future__ import annotations

import ipaddress
import re
import socket
from typing import Protocol
from urllib.parse import urlsplit

# AWS's instance metadata service over IPv6 (Nitro): a unique local address, which the rule below would let by
METADATA_ADDRESSES = frozenset({ipaddress.ip_address("fd00:ec2::254")})
REFUSED_RUNNER_HOST = "must not be a link-local, multicast, reserved or unspecified address"
_LEGACY_IPV4 = re.compile(r"[0-9a-fA-FxX.]+")


def _refused(address) -> bool:
    from chalicelib.core.netguard import embedded_ipv4

    address = embedded_ipv4(address) or address  # IPv4-mapped, 6to4, Teredo and NAT64 forms: the IPv4 they reach
    return (address.is_link_local or address.is_multicast or address.is_unspecified or address.is_reserved
            or address in METADATA_ADDRESSES)


def _literal(host: str):
    """The address a host written as an address names: IPv6 or dotted IPv4, and the older IPv4 forms
    (`2852039166`, `0xa9fea9fe`, `169.254.43518`, octal parts) that inet_aton, and so getaddrinfo, still read."""
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        pass
    if _LEGACY_IPV4.fullmatch(host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def runner_host_problem(url: str | None) -> str | None:
    """Why the runner URL's host is refused, or None. A runner may sit on a private network, but the cloud
    metadata service and other link-local, multicast, reserved or unspecified addresses are never a runner:
    the address written (in any form a resolver reads) or, for a name, every address it resolves to now
    (core.netguard.resolve_host). A name that does not resolve is not refused here (the call then fails)."""
    if not url:
        return None
    try:
        host = (urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return None
    if not host:
        return None
    literal = _literal(host)
    if literal is not None:
        return REFUSED_RUNNER_HOST if _refused(literal) else None
    from chalicelib.core import netguard

    try:
        addresses = netguard.resolve_host(host)
    except (OSError, UnicodeError):
        return None
    for address in addresses:
        try:
            if _refused(ipaddress.ip_address(address.split("%", 1)[0])):
                return REFUSED_RUNNER_HOST
        except ValueError:
            continue
    return None


class RunnerUnreachable(Exception):
    """The runner did not accept the run (refused, timed out, unreachable); the message says why, never the secret."""


class RunnerProvider(Protocol):
    def start_run(self, *, runner_url: str, secret: str, payload: dict) -> dict:
        """Ask the runner to start the run described by `payload`; answer the runner's JSON answer (or `{}`).
        Raises RunnerUnreachable."""
        ...
