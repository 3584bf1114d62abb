"""A row another request deleted while this one held it in memory: the ORM's UPDATE or DELETE matches nothing and
SQLAlchemy raises StaleDataError. The core answers 404, as a request made after the delete would, not a 500; the
areas lock the rows their writes decide on, this is the net under a write that does not."""
from __future__ import annotations

import os

import pytest
from chalice import Chalice
from sqlalchemy import delete

from chalicelib.core import http
from chalicelib.core.models import Squad
from tests.factories import served

pytestmark = pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite",
                                reason="a second writer while the request's transaction is open needs Postgres")


@pytest.fixture
def stale_api(app, database_url):
    from sqlalchemy import create_engine

    test_app = Chalice(app_name="stale-test")
    other = create_engine(database_url)

    @test_app.route("/squads/{squad_id}", methods=["PUT"])
    @http.endpoint(auth="public")
    def rename(ctx, squad_id):
        squad = ctx.db.get(Squad, squad_id)
        with other.begin() as connection:  # another request deletes it meanwhile
            connection.execute(delete(Squad).where(Squad.id == squad_id))
        squad.name = "Renamed"
        ctx.db.flush()
        return {"ok": True}

    with served(test_app) as call:
        yield call
    other.dispose()


def test_an_update_of_a_row_deleted_meanwhile_is_a_404(stale_api, database_url):
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    engine = create_engine(database_url)
    with Session(engine) as session:
        squad = Squad(name="Doomed")
        session.add(squad)
        session.commit()
        squad_id = squad.id
    engine.dispose()
    status, body, headers = stale_api("PUT", f"/squads/{squad_id}")
    assert (status, body) == (404, {"error": "The record was deleted while this request ran"})
    assert headers.get("X-Request-Id")
