"""The boto3 clients of core.aws wait at most 3 s to connect and 10 s for a read (botocore's 60 s outlasted the 30 s
functions, which were stopped before they could report), and SES sends a message once: botocore's standard mode
retried it after a server error or a read timeout, and SES takes no idempotency token, so the recipient could get it
twice (provider audit). Checked against a local server that answers 500 and counts what it is sent."""
from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from botocore.exceptions import ClientError

from chalicelib.core import aws


@pytest.fixture
def failing_endpoint(set_env):
    posts = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the http.server hook
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            posts.append(self.path)
            self.send_response(500)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"message": "internal failure"}')

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    set_env(AWS_ENDPOINT_URL=f"http://127.0.0.1:{server.server_port}", AWS_ACCESS_KEY_ID="test",
            AWS_SECRET_ACCESS_KEY="test")
    aws.reset_clients()
    yield posts
    server.shutdown()
    aws.reset_clients()


def test_ses_sends_once_and_other_services_keep_their_retries(failing_endpoint):
    message = {"FromEmailAddress": "a@agency.test", "Destination": {"ToAddresses": ["b@agency.test"]},
               "Content": {"Simple": {"Subject": {"Data": "Hi"}, "Body": {"Text": {"Data": "Hi"}}}}}
    with pytest.raises(ClientError):
        aws.client("sesv2").send_email(**message)
    assert len(failing_endpoint) == 1  # was 3: botocore's standard retries sent the e-mail again
    failing_endpoint.clear()
    with pytest.raises(ClientError):
        aws.client("sqs").list_queues()
    assert len(failing_endpoint) == 3


def test_the_clients_wait_seconds_not_a_minute(failing_endpoint):
    config = aws.client("s3").meta.config
    assert (config.connect_timeout, config.read_timeout) == (3, 10)
