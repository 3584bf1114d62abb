"""A loopback TCP proxy in front of Postgres that counts protocol messages and round trips.

Driver-agnostic: it sees what pg8000 (pure Python) and psycopg (libpq, C) put on the wire, so the
two are counted the same way. It parses the frontend stream of the PostgreSQL protocol v3
(an untyped startup packet, then `type byte + int32 length` messages) and counts:
  * messages: every frontend message (Parse, Bind, Describe, Execute, Sync, Query, ...);
  * round trips: each time the client sends after the server has answered (a client "burst"
    following server data), which is what one network round trip to the database costs.
Use sslmode=disable / gssencmode=disable for psycopg (this proxy does not speak TLS).
"""
from __future__ import annotations

import socket
import struct
import threading
from collections import Counter

SSL_REQUEST = 80877103
GSSENC_REQUEST = 80877104


class _Connection:
    def __init__(self, proxy: "CountingProxy", client: socket.socket) -> None:
        self.proxy = proxy
        self.client = client
        self.server = socket.create_connection((proxy.target_host, proxy.target_port))
        self.last = "server"  # a new connection's first send is a round trip
        self.buffer = b""
        self.started = False

    def run(self) -> None:
        threading.Thread(target=self._pump, args=(self.client, self.server, True), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.server, self.client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, from_client: bool) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                with self.proxy.lock:
                    if from_client:
                        if self.last == "server":
                            self.proxy.round_trips += 1
                        self.last = "client"
                        self._parse(data)
                    else:
                        self.last = "server"
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _parse(self, data: bytes) -> None:
        self.buffer += data
        while True:
            if not self.started:
                if len(self.buffer) < 8:
                    return
                length, code = struct.unpack("!ii", self.buffer[:8])
                if len(self.buffer) < length:
                    return
                self.buffer = self.buffer[length:]
                self.proxy.messages["startup" if code not in (SSL_REQUEST, GSSENC_REQUEST) else "ssl/gss request"] += 1
                if code not in (SSL_REQUEST, GSSENC_REQUEST):
                    self.started = True
                continue
            if len(self.buffer) < 5:
                return
            kind = chr(self.buffer[0])
            (length,) = struct.unpack("!i", self.buffer[1:5])
            if len(self.buffer) < 1 + length:
                return
            self.buffer = self.buffer[1 + length:]
            self.proxy.messages[kind] += 1


class CountingProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target_host = target_host
        self.target_port = target_port
        self.lock = threading.Lock()
        self.messages: Counter = Counter()
        self.round_trips = 0
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stop:
            try:
                client, _addr = self.listener.accept()
            except OSError:
                return
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            _Connection(self, client).run()

    def snapshot(self) -> tuple[int, int]:
        """(round trips, frontend messages) so far, excluding connection start-up."""
        with self.lock:
            return self.round_trips, sum(n for k, n in self.messages.items() if k not in ("startup", "ssl/gss request"))

    def close(self) -> None:
        self._stop = True
        self.listener.close()
