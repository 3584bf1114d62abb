"""What the database or its driver cannot take is the caller's 400, not a 500: a statement with more than
pg8000's 65,535 parameters (an IN list of an unbounded filter), and SQLSTATE class 54, program limit exceeded (an
index row too large). A small app with routes through the real endpoint decorator stands in for an area that
forgot a bound; the areas bound their inputs (tests of each list filter), this is the core's net under them."""
from __future__ import annotations

import os

import pytest
from chalice import Chalice
from sqlalchemy import literal, select, text

from chalicelib.core import http
from tests.factories import served

pytestmark = pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite", reason="Postgres and pg8000 limits")


@pytest.fixture
def limits_api(app):
    test_app = Chalice(app_name="limits-test")

    @test_app.route("/many", methods=["GET"])
    @http.endpoint(auth="public")
    def many(ctx):
        ctx.db.execute(select(literal(1)).where(literal(1).in_(list(range(70_000)))))
        return {"ok": True}

    @test_app.route("/large", methods=["GET"])
    @http.endpoint(auth="public")
    def large(ctx):
        ctx.db.execute(text("CREATE TEMP TABLE limits_probe (value text)"))
        ctx.db.execute(text("CREATE INDEX ON limits_probe (value)"))
        # incompressible text far past a btree row's 2,704 bytes: 54000 program_limit_exceeded
        ctx.db.execute(text("INSERT INTO limits_probe SELECT string_agg(md5(n::text), '') "
                            "FROM generate_series(1, 400) AS n"))
        return {"ok": True}

    @test_app.route("/fine", methods=["GET"])
    @http.endpoint(auth="public")
    def fine(ctx):
        return {"value": ctx.db.scalar(select(literal(41) + 1))}

    with served(test_app) as call:
        yield lambda path: call("GET", path)


@pytest.mark.parametrize("path, message", [("/many", "The request names too many values"),
                                           ("/large", "A value or the request is too large for the database")])
def test_a_request_past_a_database_limit_is_a_400_and_the_next_one_works(limits_api, path, message):
    status, body, headers = limits_api(path)
    assert (status, body) == (400, {"error": message})
    assert headers.get("X-Request-Id")
    assert limits_api("/fine")[:2] == (200, {"value": 42})
