"""Session 26 (audit "the statuses a route answers are the ones its document lists"): about 30 routes answered a
status docs/openapi.json left out (a ledger's 502 on an invoice's delete, a leave overlap's 409, an AI timeout's
504, a proxy's 202), so a client generated from the document could not read those answers. tests/conftest.py now
fails any test whose route answers an unlisted status; the builder and the check share
core.openapi.declared_statuses. These tests show the rule and that the check can fail."""
import pytest
from chalice import Chalice

from chalicelib.core.http import endpoint
from chalicelib.core.openapi import build_document, declared_statuses


def _app():
    from chalicelib.core.errors import Conflict

    app = Chalice(app_name="declared")

    @app.route("/things/{thing_id}", methods=["GET"])
    @endpoint(auth="public", errors=(502,))
    def get_thing(ctx, thing_id: str):
        if thing_id == "conflict":
            raise Conflict("taken")
        return {"id": thing_id}

    @app.route("/things", methods=["POST"])
    @endpoint(auth="public", status=201, success_also=(202,))
    def make_thing(ctx):
        raise Conflict("taken")

    return app


def test_the_document_lists_what_every_route_of_its_kind_may_answer():
    app = _app()
    spec_get = app.routes["/things/{thing_id}"]["GET"].view_function.__wms_endpoint__
    spec_post = app.routes["/things"]["POST"].view_function.__wms_endpoint__
    assert declared_statuses("GET", "/things/{thing_id}", spec_get) == {200, 400, 404, 413, 502, 503}
    assert declared_statuses("POST", "/things", spec_post) == {201, 202, 400, 409, 413, 503}
    document = build_document(app)
    assert set(document["paths"]["/things"]["post"]["responses"]) == {"201", "202", "400", "409", "413", "503"}
    assert document["paths"]["/things"]["post"]["responses"]["202"]["description"] == "Success"


@pytest.fixture
def client(monkeypatch, app):
    from chalice.test import Client

    from chalicelib.core import http
    from tests.conftest import PROJECT_DIR

    test_app = _app()
    monkeypatch.setattr(http, "_app", test_app)
    with Client(test_app, stage_name="dev", project_dir=str(PROJECT_DIR)) as test_client:
        yield test_client


def test_a_read_answering_409_is_caught_by_the_check(client):
    """A read's 409 is not in its document: the conftest hook records it (the fixture then fails the test; this one
    reads the record before the fixture sees it and clears it)."""
    from tests import conftest

    assert client.http.get("/things/conflict").status_code == 409
    assert client.http.get("/things/fine").status_code == 200
    found, conftest._UNDECLARED[:] = list(conftest._UNDECLARED), []
    assert found == ["GET /things/{thing_id} answered 409, its document lists [200, 400, 404, 413, 502, 503]"]


@pytest.mark.undeclared_status
def test_the_marker_lets_a_test_answer_an_undeclared_status(client):
    assert client.http.get("/things/conflict").status_code == 409
