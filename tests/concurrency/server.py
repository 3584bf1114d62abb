"""The app behind a threaded HTTP server, for the concurrency tests: `python -m tests.concurrency.server PORT`.

Chalice's own local server (`chalice local`), with a listen backlog large enough for the tests'
simultaneous connections (the standard library's default of 5 resets some of them). Settings come
from the environment the test passes (DATABASE_URL of the test's database).
"""
from __future__ import annotations

import sys

from chalice.config import Config
from chalice.local import LocalDevServer, ThreadedHTTPServer


class Server(ThreadedHTTPServer):
    request_queue_size = 128


def main() -> None:
    from app import app

    LocalDevServer(app, Config(chalice_stage="dev"), "127.0.0.1", int(sys.argv[1]), server_cls=Server).serve_forever()


if __name__ == "__main__":
    main()
