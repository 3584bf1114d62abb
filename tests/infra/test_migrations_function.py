"""The migrations function: applies Alembic migrations and always answers CloudFormation."""
from __future__ import annotations

import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from .conftest import PY, ROOT, subprocess_env

RUN = r"""
import json, sys
from chalicelib.migrations.deploy import handler
print(json.dumps(handler(json.loads(sys.argv[1]))))
"""


@pytest.fixture
def response_server():
    received = []

    class Handler(BaseHTTPRequestHandler):
        def do_PUT(self):
            received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/response", received
    server.shutdown()


def invoke(event: dict, database_url: str, data_dir) -> subprocess.CompletedProcess:
    env = subprocess_env(DATABASE_URL=database_url, WMS_DATA_DIR=str(data_dir))
    return subprocess.run([PY, "-c", RUN, json.dumps(event)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


def cfn_event(url: str, request_type: str) -> dict:
    return {"RequestType": request_type, "ResponseURL": url, "StackId": "arn:aws:cloudformation:stack/wms",
            "RequestId": "req-1", "LogicalResourceId": "Migrations", "ResourceProperties": {"Fingerprint": "x"}}


def tables(path) -> set[str]:
    import sqlite3

    with sqlite3.connect(path) as connection:
        return {row[0] for row in connection.execute("select name from sqlite_master where type='table'")}


def test_create_applies_migrations_and_reports_success(response_server, tmp_path):
    url, received = response_server
    database = tmp_path / "wms.sqlite3"
    result = invoke(cfn_event(url, "Create"), f"sqlite:///{database}", tmp_path)
    assert result.returncode == 0, result.stderr
    assert received and received[0]["Status"] == "SUCCESS", received
    assert received[0]["RequestId"] == "req-1" and received[0]["LogicalResourceId"] == "Migrations"
    assert "users" in tables(database) and "alembic_version" in tables(database)
    assert "core_0001" in received[0]["Data"]["Heads"] or received[0]["Data"]["Heads"]


def test_failure_is_reported_to_cloudformation(response_server, tmp_path):
    url, received = response_server
    result = invoke(cfn_event(url, "Update"), f"sqlite:///{tmp_path}/missing/dir/wms.sqlite3", tmp_path)
    assert result.returncode == 0, result.stderr
    assert received and received[0]["Status"] == "FAILED"
    assert received[0]["Reason"]


def test_delete_leaves_the_database_alone(response_server, tmp_path):
    url, received = response_server
    database = tmp_path / "wms.sqlite3"
    result = invoke(cfn_event(url, "Delete"), f"sqlite:///{database}", tmp_path)
    assert result.returncode == 0, result.stderr
    assert received[0]["Status"] == "SUCCESS"
    assert not database.exists() or "users" not in tables(database)


def test_direct_invocation_returns_the_heads(tmp_path):
    database = tmp_path / "wms.sqlite3"
    result = invoke({}, f"sqlite:///{database}", tmp_path)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["status"] == "ok" and answer["heads"]
    assert "users" in tables(database)
