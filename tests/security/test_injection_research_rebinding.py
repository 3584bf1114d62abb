"""Research briefs fetch a page a user names (deals:update: employees) through core.netguard.fetch_public_page,
whose last guard against DNS rebinding is the connected peer's address, read from the response's socket before
the body is read. That socket is gone once http.client has decided the connection closes after the answer (an
HTTP/1.0 answer or `Connection: close`, as many internal services send): `_peer_is_public` then answers True
(fail open), and the internal page's title and text land in the brief.

Simulated with no network: the name passes the address check (tests.conftest resolves it to a public address),
then the connection itself is made to a server on 127.0.0.1 (the second DNS answer of a rebinding name).

core/netguard.py now checks the address each connection reached as soon as it is made (before TLS and before the
request is sent), so the socket's later fate does not matter."""
from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.areas.deals.factories import make_company

INTERNAL_PAGE = b"<html><head><title>INTERNAL-ADMIN-CONSOLE</title></head><body><h1>root</h1></body></html>"


class _Internal(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 - http.server's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(INTERNAL_PAGE)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(INTERNAL_PAGE)

    def log_message(self, *args):
        pass


@pytest.fixture
def internal_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Internal)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_port
    server.shutdown()
    server.server_close()


def test_a_rebinding_name_does_not_bring_an_internal_page_into_a_brief(api, db, employee, set_env, monkeypatch,
                                                                      internal_server):
    set_env(WEBSITE_MODE="live")
    real = socket.getaddrinfo

    def rebinding(host, port, *args, **kwargs):  # the second answer: the internal network
        if host == "rebind-shop.com":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", internal_server))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    company = make_company(db, website="http://rebind-shop.com/")
    answer = api.post("/api/research/run", as_=employee, json={"entity_type": "company", "entity_id": company.id})
    assert answer.status == 201, answer
    assert b"INTERNAL-ADMIN-CONSOLE" not in answer.body
    assert answer.json["brief"]["status"] == "failed"
