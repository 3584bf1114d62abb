"""A throwaway PostgreSQL cluster for the test suite, from the machine's server binaries.

Used when TEST_DATABASE_URL is not set. Debian installs the binaries under
/usr/lib/postgresql/<version>/bin; as root the cluster runs as the `postgres` user.
"""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

INSTALL_HINT = (
    "No PostgreSQL server binaries found (initdb, pg_ctl). Install the Debian package 'postgresql' "
    "(apt-get install postgresql) or set TEST_DATABASE_URL to a server you run."
)


def find_bin_dir() -> Path | None:
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True)
    candidates += [str(Path(p).parent) for p in filter(None, [shutil.which("initdb")])]
    for directory in candidates:
        if (Path(directory) / "initdb").exists() and (Path(directory) / "pg_ctl").exists():
            return Path(directory)
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# How the tests' databases are created (`CREATE DATABASE "<name>" ` + this): byte-order collation whatever the
# server's locale, so that an ORDER BY that should fold case (`lower(name)`) is seen failing on every machine; an
# en_US collation already folds case and hid the missing `lower` (session 27's test audit). Character classes (lower,
# ILIKE on accented letters) keep the server's own LC_CTYPE.
DATABASE_OPTIONS = "TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C'"


class Cluster:
    def __init__(self) -> None:
        bin_dir = find_bin_dir()
        if bin_dir is None:
            raise RuntimeError(INSTALL_HINT)
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="wms-pg-"))
        self.port = _free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.root, "postgres")
            os.chmod(self.root, 0o700)

    def _run(self, *args: str) -> None:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def start(self) -> str:
        data = self.root / "data"
        self._run("initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync")
        self._run(
            "pg_ctl", "-D", str(data), "-l", str(self.root / "log"), "-w", "-t", "60",
            "-o", f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                  f"-c synchronous_commit=off -c full_page_writes=off -c max_connections=100",
            "start",
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    break
            time.sleep(0.2)
        return f"postgresql+pg8000://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
