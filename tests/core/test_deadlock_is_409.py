"""Two requests that lock the same rows in opposite orders: Postgres breaks the deadlock by failing one of them
(SQLSTATE 40P01). That one answered 500; the core answers 409, nothing kept, a retry may pass (decisions.md section
4: "500 never on purpose"). The areas take their rows in one order so that it does not happen (an audit of state
machines found three that did not, since fixed); this is the net under any other."""
from __future__ import annotations

import os
import threading
import time
import uuid

import pytest
from chalice import Chalice
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from chalicelib.core import http
from chalicelib.core.models import Squad
from tests.factories import served

pytestmark = pytest.mark.skipif(os.environ.get("WMS_TEST_DB") == "sqlite",
                                reason="a second writer while the request's transaction is open needs Postgres")


def test_the_request_a_deadlock_fails_answers_409_and_keeps_nothing(app, database_url):
    engine = create_engine(database_url)
    tag = uuid.uuid4().hex[:8]
    with Session(engine) as session:
        squads = [Squad(name=f"Deadlock A {tag}"), Squad(name=f"Deadlock B {tag}")]
        session.add_all(squads)
        session.commit()
        first, second = (squad.id for squad in squads)
    other = engine.connect()
    other_transaction = other.begin()
    other.execute(select(Squad.id).where(Squad.id == second).with_for_update())  # the other request holds B
    test_app = Chalice(app_name="deadlock-test")

    @test_app.route("/swap", methods=["POST"])
    @http.endpoint(auth="public")
    def swap(ctx):
        ctx.db.get(Squad, first, with_for_update=True).name = "Renamed by the request"
        ctx.db.flush()  # holds A
        # the other request asks for A a moment after this one starts waiting for B: this one waited first, so its
        # deadlock check finds the cycle and Postgres fails it
        threading.Thread(target=lambda: (time.sleep(0.3), other.execute(
            select(Squad.id).where(Squad.id == first).with_for_update())), daemon=True).start()
        ctx.db.get(Squad, second, with_for_update=True)
        return {"ok": True}

    try:
        with served(test_app) as call:
            status, body, _headers = call("POST", "/swap")
    finally:
        time.sleep(0.5)
        other_transaction.commit()
        other.close()
    assert (status, body["error"].startswith("The request met another")) == (409, True), body
    with engine.begin() as connection:
        names = set(connection.execute(select(Squad.name).where(Squad.id.in_([first, second]))).scalars())
        assert names == {f"Deadlock A {tag}", f"Deadlock B {tag}"}  # nothing the failed request wrote is kept
        connection.execute(Squad.__table__.delete().where(Squad.id.in_([first, second])))
    engine.dispose()
