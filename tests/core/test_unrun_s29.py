"""Session 29's audit of core code no test ran: each test runs lines the coverage run left unexecuted, through the
HTTP interface where a request reaches them (the Chalice test client), else through the core function itself."""
import json

import pytest

from chalicelib.core.auth import issue_dev_token
from chalicelib.core.settings import get_settings
from tests.factories import make_user

OWN = "http://127.0.0.1:8000"  # the origin of PUBLIC_BASE_URL in tests
BOUNDARY = "----wmsUnrunBoundary29"


def _error(response) -> str:
    body = json.loads(response.body)
    assert isinstance(body.get("error"), str) and body["error"], body
    return body["error"]


# --- auth.py: the session cookie among the browser's other cookies -------------------------------------------

@pytest.fixture
def signed_in(db):
    user = make_user(db, access_level="executive", email="unrun29@agency.test")
    return user, issue_dev_token(user.email)


@pytest.mark.parametrize("others", [
    'consent={"analytics": true}',        # a JSON value (quotes, a space): SimpleCookie stopped there
    "prefs=dark mode",                    # a value with a space
    'tracker="unterminated',              # an opening quote without its end
    "caf\u00e9=1",                         # a non-ASCII name
])
def test_session_cookie_is_read_beside_other_site_cookies(client, signed_in, others):
    user, token = signed_in
    name = get_settings().auth_cookie_name
    response = client.http.get("/api/me", headers={"Cookie": f"{others}; {name}={token}; after=1"})
    assert response.status_code == 200, response.body
    assert json.loads(response.body)["user"]["email"] == user.email


def test_session_cookie_quoted_or_absent(client, signed_in):
    _user, token = signed_in
    name = get_settings().auth_cookie_name
    assert client.http.get("/api/me", headers={"Cookie": f'{name}="{token}"'}).status_code == 200
    for header in ("other=1", f"{name}=", f"x{name}={token}", "garbage"):
        response = client.http.get("/api/me", headers={"Cookie": header})
        assert response.status_code == 401, (header, response.body)
        _error(response)


@pytest.mark.parametrize("origin", ["https://[unclosed", "127.0.0.1:8000", "//127.0.0.1:8000"])
def test_cookie_write_from_a_malformed_origin_is_403(client, db, signed_in, origin):
    _user, token = signed_in
    name = get_settings().auth_cookie_name
    response = client.http.post("/api/tasks", body=b'{"title": "From nowhere"}', headers={
        "Cookie": f"{name}={token}", "Content-Type": "application/json", "Origin": origin})
    assert response.status_code == 403, response.body
    assert "origin" in _error(response)


def test_cookie_write_with_a_malformed_referer_is_403(client, signed_in):
    _user, token = signed_in
    name = get_settings().auth_cookie_name
    response = client.http.post("/api/tasks", body=b'{"title": "From nowhere"}', headers={
        "Cookie": f"{name}={token}", "Content-Type": "application/json", "Referer": "http://[::1/page"})
    assert response.status_code == 403, response.body


def test_dev_token_carries_the_configured_issuer_and_audience(client, db, set_env):
    set_env(AUTH_ISSUER="https://id.agency.test/", AUTH_AUDIENCE="wms-api")
    user = make_user(db, access_level="employee", email="claims29@agency.test")
    token = issue_dev_token(user.email)
    import jwt

    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["iss"] == "https://id.agency.test/" and claims["aud"] == "wms-api"
    response = client.http.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.body


# --- multipart.py: a malformed or oversized upload form (POST /api/pages/upload) ------------------------------

def _upload(api, user, body: bytes, content_type=f"multipart/form-data; boundary={BOUNDARY}"):
    return api.post("/api/pages/upload", as_=user, body=body, headers={"Content-Type": content_type})


def _part(headers: str, data: bytes = b"x") -> bytes:
    return f"--{BOUNDARY}\r\n{headers}\r\n\r\n".encode() + data + b"\r\n"


END = f"--{BOUNDARY}--\r\n".encode()


def test_upload_without_a_boundary_is_400(api, exec_user):
    response = _upload(api, exec_user, _part('Content-Disposition: form-data; name="file"; filename="a.png"') + END,
                       content_type="multipart/form-data")
    assert response.status == 400, response
    assert "boundary" in response.json["error"]


def test_upload_part_without_form_data_disposition_is_400(api, exec_user):
    response = _upload(api, exec_user, _part('Content-Disposition: attachment; name="file"') + END)
    assert response.status == 400, response
    assert "Content-Disposition" in response.json["error"]


def test_upload_with_too_many_parts_is_400(api, exec_user):
    from chalicelib.core.multipart import MAX_PARTS

    body = b"".join(_part(f'Content-Disposition: form-data; name="f{i}"') for i in range(MAX_PARTS + 1)) + END
    response = _upload(api, exec_user, body)
    assert response.status == 400, response
    assert f"at most {MAX_PARTS} parts" in response.json["error"]


def test_upload_without_parts_is_400(api, exec_user):
    response = _upload(api, exec_user, END)
    assert response.status == 400, response
    assert response.json["error"].startswith("Malformed multipart body")


def test_upload_past_the_form_limit_is_413(api, exec_user):
    from chalicelib.areas.pages.service_uploads import (
        MAX_UPLOAD_BYTES,
        MULTIPART_OVERHEAD,
    )

    body = _part('Content-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png',
                 b"\x89PNG\r\n\x1a\n" + b"\0" * (MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD)) + END
    response = _upload(api, exec_user, body)
    assert response.status == 413, response
    assert "MB" in response.json["error"]


# --- settings.py: values refused at the start, answered as the service error body (503) ----------------------

@pytest.mark.parametrize("password", ["pa[ss", "pa#ss", "pa?ss"])
def test_database_url_with_sslmode_is_refused_whatever_the_password_holds(set_env, api, password):
    """The sslmode check read the URL with urlsplit: a password holding "[" was its ValueError (the check skipped),
    one holding "#" or "?" moved the query away; SQLAlchemy reads all three as a password, and pg8000 then
    refuses sslmode on every connection."""
    set_env(DATABASE_URL=f"postgresql+pg8000://wms:{password}@127.0.0.1:1/wms?sslmode=require")
    response = api.get("/api/health")
    assert response.status == 503, response
    assert "DATABASE_URL" in response.json["error"] and "sslmode" in response.json["error"]
    assert password not in response.json["error"]


def test_an_allowed_origin_that_is_not_a_url_is_refused(set_env, api):
    set_env(ALLOWED_ORIGINS="https://app.agency.test, https://[unclosed")
    response = api.get("/api/health")
    assert response.status == 503, response
    assert "ALLOWED_ORIGINS" in response.json["error"]


def test_a_data_folder_that_cannot_be_written_answers_503(set_env, api, tmp_path):
    """Without SECRETS_KEY the development key is written under WMS_DATA_DIR: a folder that cannot be made
    (here a file stands in its place; Lambda's read-only code folder) is a 503 naming the error, not a 500."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    set_env(WMS_DATA_DIR=str(blocker), SECRETS_KEY=None)
    response = api.get("/api/health")
    assert response.status == 503, response
    assert response.json["error"] == "The service is misconfigured: the settings cannot be read (FileExistsError)"


# --- secrets.py: a provider secret store that cannot be used ---------------------------------------------------

@pytest.fixture
def secrets_manager(set_env):
    from moto import mock_aws

    from chalicelib.core.settings import reset_settings

    with mock_aws():
        import boto3

        yield boto3.client("secretsmanager", region_name="ap-southeast-2")
    reset_settings()


def test_a_secret_holding_a_json_list_answers_503_naming_it(secrets_manager, set_env, api):
    secrets_manager.create_secret(Name="wms/test/list", SecretString='["AI_API_KEY", "sk-x"]')
    set_env(PROVIDER_SECRETS_ID="wms/test/list")
    response = api.get("/api/health")
    assert response.status == 503, response
    assert "wms/test/list is not a JSON object" in response.json["error"]
    assert "sk-x" not in response.json["error"]


def test_a_secret_store_that_cannot_be_reached_answers_503(set_env, api, monkeypatch):
    from botocore.exceptions import EndpointConnectionError

    import chalicelib.core.secrets as module

    def unreachable(*_args, **_kwargs):
        raise EndpointConnectionError(endpoint_url="https://secretsmanager.ap-southeast-2.amazonaws.com")

    monkeypatch.setattr(module, "_read", unreachable)
    set_env(PROVIDER_SECRETS_ID="wms/test/providers")
    response = api.get("/api/health")
    assert response.status == 503, response
    assert "cannot be read (EndpointConnectionError)" in response.json["error"]


# --- netguard.py: the research fetch's failures ----------------------------------------------------------------

def test_a_url_without_a_host_is_refused():
    from chalicelib.core.netguard import (
        UnsafeURL,
        check_public_https_url,
        check_public_web_url,
    )

    for url in ("https:///path", "https://:443/"):
        with pytest.raises(UnsafeURL, match="must name a host"):
            check_public_web_url(url)
        with pytest.raises(UnsafeURL, match="must name a host"):
            check_public_https_url(url)


def test_a_site_that_cannot_be_reached_and_an_unknown_charset():
    import requests
    import responses

    from chalicelib.core.netguard import FetchFailed, fetch_public_page

    with responses.RequestsMock() as mocked:
        mocked.get("https://down.example.com/", body=requests.ConnectionError("refused"))
        with pytest.raises(FetchFailed, match="could not be reached"):
            fetch_public_page("https://down.example.com/")
        mocked.get("https://odd.example.com/", body="Caf\u00e9".encode(), content_type="text/html; charset=x-klingon")
        page = fetch_public_page("https://odd.example.com/")
        assert page.text == "Caf\u00e9" and page.status == 200


# --- logs.py: the request id ------------------------------------------------------------------------------------

def test_the_gateway_request_id_is_used_when_the_caller_sends_none_or_a_bad_one():
    from chalicelib.core.logs import request_id

    assert request_id(None, "c6af9ac6-7b61-11e6-9a41-93e8deadbeef") == "c6af9ac6-7b61-11e6-9a41-93e8deadbeef"
    assert request_id("bad id!", "gw-request-0001") == "gw-request-0001"
    assert request_id("client-req-0001", "gw-request-0001") == "client-req-0001"
    assert len(request_id("x", "y")) == 36  # neither is well formed: a new one


# --- crypto.py: a stored secret that is not even well formed --------------------------------------------------

@pytest.mark.parametrize("stored", ["kms:a", "kms:"+"\u00e9"])
def test_a_malformed_stored_secret_is_unreadable_not_an_error(stored):
    from chalicelib.core.crypto import SecretUnreadable, decrypt

    with pytest.raises(SecretUnreadable, match="cannot be decrypted"):
        decrypt(stored)


# --- openapi.py: a route written without the endpoint decorator (another Chalice app) ---------------------------

def test_a_bare_route_is_documented_with_a_plain_200():
    from chalice import Chalice

    from chalicelib.core.http import endpoint
    from chalicelib.core.openapi import build_document

    other = Chalice(app_name="bare29")

    @other.route("/api/bare/{item_id}", methods=["GET"])
    def bare(item_id):
        return {}

    @other.route("/api/wrapped", methods=["GET"])
    @endpoint()
    def wrapped(ctx):
        """Wrapped."""
        return {}

    document = build_document(other, version="test")
    operation = document["paths"]["/api/bare/{item_id}"]["get"]
    assert operation["responses"] == {"200": {"description": "OK"}}
    assert operation["parameters"] == [{"name": "item_id", "in": "path", "required": True, "schema": {"type": "string"}}]
    assert "x-auth" not in operation and document["paths"]["/api/wrapped"]["get"]["x-auth"] == "user"


# --- notify.py: SQS takes the batch but refuses some of its entries ---------------------------------------------

def test_entries_the_queue_refuses_are_logged_and_left_pending(api, db, aws, monkeypatch, caplog):
    import chalicelib.core.queue as queue_module

    real_client = queue_module.client

    class PartlyRefusing:
        def __init__(self, sqs):
            self.sqs = sqs

        def send_message_batch(self, QueueUrl, Entries):
            return {"Successful": [], "Failed": [{"Id": entry["Id"], "SenderFault": False, "Code": "InternalError"}
                                                 for entry in Entries]}

        def __getattr__(self, name):
            return getattr(self.sqs, name)

    monkeypatch.setattr(queue_module, "client",
                        lambda name: PartlyRefusing(real_client(name)) if name == "sqs" else real_client(name))
    from tests.core.test_queue_failure import assigned_while_the_queue_refuses

    assigned_while_the_queue_refuses(api, db, caplog, logged_with="refused")
