"""The endpoint decorator: validation, error mapping, one transaction per request, serialisation.

Most cases run on a small Chalice app built here (so that a handler can fail half-way); the body
parsing cases also run on a real route (POST /api/admin/users).
"""
from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Optional

import pytest
from chalice import Chalice, Response
from chalice.test import Client
from pydantic import BaseModel, Field
from sqlalchemy import func, select, text

from chalicelib.core import history, http, queue
from chalicelib.core.errors import Conflict, NotFound
from chalicelib.core.models import HistoryEntry, User
from tests.factories import make_user

from .conftest import PROJECT_DIR


class Thing(BaseModel):
    name: str
    count: int
    due: Optional[date] = None
    tags: list[str] = Field(default_factory=list)


class Paging(BaseModel):
    page: int = 1
    flag: bool = False


calls = []


def build_app() -> Chalice:
    app = Chalice(app_name="wms-http-test")
    app.api.binary_types = ["application/pdf"]

    @app.route("/t/things", methods=["POST"])
    @http.endpoint(tool="tasks", level="update", body=Thing, status=201)
    def create_thing(ctx, body: Thing):
        return {"thing": body.model_dump(), "caller": ctx.user_id}

    @app.route("/t/paging", methods=["GET"])
    @http.endpoint(query=Paging)
    def paging(ctx, query: Paging):
        return {"page": query.page, "flag": query.flag}

    @app.route("/t/write/{mode}", methods=["POST"])
    @http.endpoint()
    def write(ctx, mode: str):
        user = User(email=f"written-{mode}@agency.test", name="Written")
        ctx.db.add(user)
        ctx.db.flush()
        history.record(ctx.db, entity_type="user", entity_id=user.id, action="created", actor_id=ctx.user_id)
        ctx.after_commit(lambda: calls.append(mode))
        ctx.after_commit(lambda: queue.send("notifications", {"mode": mode}))
        if mode == "crash":
            raise RuntimeError("boom half-way")
        if mode == "conflict":
            raise Conflict("already done")
        if mode == "missing":
            raise NotFound("thing not found")
        if mode == "fk":
            ctx.db.add(User(email="fk@agency.test", name="Orphan", squad_id="no-such-squad"))
            ctx.db.flush()
        if mode == "referenced":  # a delete that a foreign key refuses
            ctx.db.execute(text("CREATE TEMPORARY TABLE t_parent (id varchar(8) PRIMARY KEY)"))
            ctx.db.execute(text("CREATE TEMPORARY TABLE t_child (parent_id varchar(8) REFERENCES t_parent (id))"))
            ctx.db.execute(text("INSERT INTO t_parent (id) VALUES ('p')"))
            ctx.db.execute(text("INSERT INTO t_child (parent_id) VALUES ('p')"))
            ctx.db.execute(text("DELETE FROM t_parent"))
        if mode == "duplicate":
            ctx.db.add(User(email=f"written-{mode}@agency.test", name="Again"))
            ctx.db.flush()
        if mode == "late":  # a history entry whose id is taken: on pg8000 its INSERT fails at the COMMIT it rode with
            entry_id = ctx.db.scalar(select(HistoryEntry.id).where(HistoryEntry.entity_id == user.id))
            ctx.db.execute(HistoryEntry.__table__.insert(), {"id": entry_id, "entity_type": "user",
                                                             "entity_id": user.id, "action": "again"})
        return {"id": user.id}

    @app.route("/t/big/{size}", methods=["POST"])
    @http.endpoint()
    def big(ctx, size: str):
        user = User(email=f"written-big-{size}@agency.test", name="Written")
        ctx.db.add(user)
        ctx.db.flush()
        return {"id": user.id, "text": "\u00e9" * int(size)}  # a non-ASCII character: 6 bytes in the runtime's JSON

    @app.route("/t/values", methods=["GET"])
    @http.endpoint(auth="public")
    def values(ctx):
        return {"at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc), "day": date(2026, 1, 2),
                "amount": Decimal("12.50"), "tags": {"only"}}

    @app.route("/t/raw", methods=["GET"])
    @http.endpoint(auth="public")
    def raw(ctx):
        return Response(body=b"%PDF-1.4", status_code=200, headers={"Content-Type": "application/pdf"})

    @app.route("/t/executives", methods=["GET"])
    @http.endpoint(access=("executive",))
    def executives_only(ctx):
        return {"ok": True}

    http.accept_any_content_type(app)
    return app


@pytest.fixture
def test_api(monkeypatch, app):
    from tests.conftest import Api

    test_app = build_app()
    monkeypatch.setattr(http, "_app", test_app)
    calls.clear()
    with Client(test_app, stage_name="dev", project_dir=str(PROJECT_DIR)) as client:
        yield Api(client)


@pytest.fixture
def user(db):
    return make_user(db, email="caller@agency.test", access_level="employee")


def written(db, mode):
    db.expire_all()
    return db.scalar(select(func.count()).select_from(User).where(User.email == f"written-{mode}@agency.test"))


# --- body and query validation -------------------------------------------------------------------

def test_valid_body_and_status(test_api, user):
    response = test_api.post("/t/things", as_=user, json={"name": "A", "count": 2, "due": "2026-03-01", "extra": 1})
    assert response.status == 201
    assert response.json == {"thing": {"name": "A", "count": 2, "due": "2026-03-01", "tags": []}, "caller": user.id}


def test_unknown_fields_are_ignored(test_api, user):
    response = test_api.post("/t/things", as_=user, json={"name": "A", "count": 1, "unknown": {"deep": True}})
    assert response.status == 201 and "unknown" not in response.json["thing"]


@pytest.mark.parametrize("raw", [b"{not json", b"name=A&count=1", b"\xff\xfe", b'{"name": "A",}'])
def test_body_not_json_is_400(test_api, user, raw):
    response = test_api.post("/t/things", as_=user, body=raw, headers={"Content-Type": "application/json"})
    assert response.status == 400
    assert set(response.json) == {"error"}


def test_body_with_another_content_type_gets_our_400_not_415(test_api, user):
    response = test_api.post("/t/things", as_=user, body=b"hello", headers={"Content-Type": "text/plain"})
    assert response.status == 400 and "error" in response.json


@pytest.mark.parametrize("payload", [[{"name": "A", "count": 1}], "text", 42, None])
def test_body_not_an_object_is_400(test_api, user, payload):
    import json

    response = test_api.post("/t/things", as_=user, body=json.dumps(payload), headers={"Content-Type": "application/json"})
    assert response.status == 400
    assert "object" in response.json["error"]


def test_wrong_types_give_details(test_api, user):
    response = test_api.post("/t/things", as_=user, json={"name": 5, "count": "many", "due": "tomorrow", "tags": "x"})
    assert response.status == 400
    details = response.json["details"]
    assert {d["field"] for d in details} == {"name", "count", "due", "tags"}
    assert all(isinstance(d["message"], str) and d["message"] for d in details)


def test_missing_required_field_gives_details(test_api, user):
    response = test_api.post("/t/things", as_=user, json={"name": "A"})
    assert response.status == 400
    assert response.json["details"] == [{"field": "count", "message": "Field required"}]


def test_empty_body_is_validated_as_empty_object(test_api, user):
    response = test_api.post("/t/things", as_=user)
    assert response.status == 400 and {d["field"] for d in response.json["details"]} == {"name", "count"}


def test_query_validation(test_api, user):
    assert test_api.get("/t/paging?page=3&flag=true&other=1", as_=user).json == {"page": 3, "flag": True}
    response = test_api.get("/t/paging?page=first", as_=user)
    assert response.status == 400 and response.json["details"][0]["field"] == "page"


def test_body_checks_run_after_auth(test_api, db):
    assert test_api.post("/t/things", body=b"{bad").status == 401
    no_tasks = make_user(db)
    from tests.factories import grant

    grant(db, no_tasks, "tasks", "view")
    assert test_api.post("/t/things", as_=no_tasks, json={"name": "A", "count": 1}).status == 403


def test_access_level_gate(test_api, db, user):
    assert test_api.get("/t/executives", as_=user).status == 403
    assert test_api.get("/t/executives", as_=make_user(db, access_level="executive")).status == 200


@pytest.mark.parametrize("raw", [b"{oops", b"[1, 2]"])
def test_real_route_rejects_bad_bodies(api, db, raw):
    executive = make_user(db, access_level="executive")
    response = api.post("/api/admin/users", as_=executive, body=raw, headers={"Content-Type": "application/json"})
    assert response.status == 400 and "error" in response.json


def test_real_route_wrong_types(api, db):
    executive = make_user(db, access_level="executive")
    response = api.post("/api/admin/users", as_=executive, json={"email": ["a@b.test"], "name": {"first": "A"}})
    assert response.status == 400
    assert {d["field"] for d in response.json["details"]} >= {"email", "name"}


# --- one transaction per request ----------------------------------------------------------------

def test_success_commits_and_runs_after_commit(test_api, db, user, monkeypatch):
    sent = []
    monkeypatch.setitem(queue._local_handlers, "notifications", sent.append)
    response = test_api.post("/t/write/ok", as_=user)
    assert response.status == 200
    assert written(db, "ok") == 1
    assert db.scalar(select(HistoryEntry).where(HistoryEntry.entity_id == response.json["id"])) is not None
    assert calls == ["ok"] and sent == [{"mode": "ok"}]


def test_exception_mid_handler_rolls_back_every_write(test_api, db, user, monkeypatch):
    sent = []
    monkeypatch.setitem(queue._local_handlers, "notifications", sent.append)
    response = test_api.post("/t/write/crash", as_=user)
    assert response.status == 500
    assert response.json == {"error": "Internal server error"}  # no internals leak
    assert written(db, "crash") == 0
    assert db.scalar(select(func.count()).select_from(HistoryEntry).where(HistoryEntry.actor_id == user.id)) == 0
    assert calls == [] and sent == []


@pytest.mark.parametrize("mode, status", [("conflict", 409), ("missing", 404)])
def test_domain_error_rolls_back_and_maps_status(test_api, db, user, mode, status):
    response = test_api.post(f"/t/write/{mode}", as_=user)
    assert response.status == status and set(response.json) == {"error"}
    assert written(db, mode) == 0 and calls == []


def test_unique_violation_is_409_and_rolled_back(test_api, db, user):
    response = test_api.post("/t/write/duplicate", as_=user)
    assert response.status == 409 and "error" in response.json
    assert written(db, "duplicate") == 0 and calls == []


def test_a_write_that_fails_at_commit_is_mapped_and_keeps_nothing(test_api, db, user, aws):
    """A write nobody reads (a history entry) leaves with the COMMIT on pg8000 (core.pg8000_driver.pipeline_pg8000); when it
    fails there, the answer is its mapped status, nothing is kept and nothing is sent after commit."""
    response = test_api.post("/t/write/late", as_=user)
    assert response.status == 409 and "error" in response.json
    assert written(db, "late") == 0 and calls == []
    assert db.scalar(select(func.count()).select_from(HistoryEntry).where(HistoryEntry.actor_id == user.id)) == 0
    messages = aws["sqs"].receive_message(QueueUrl=aws["queue_url"], MaxNumberOfMessages=10, WaitTimeSeconds=0)
    assert messages.get("Messages", []) == []
    assert test_api.post("/t/write/ok", as_=user).status == 200  # the connection serves on


def test_foreign_key_violation_is_400_and_rolled_back(test_api, db, user):
    """On Postgres the answer names the column from the server's DETAIL (pg8000 and psycopg keep it apart);
    SQLite tells no column: the general message."""
    response = test_api.post("/t/write/fk", as_=user)
    if db.get_bind().dialect.name == "postgresql":
        assert response.status == 400 and response.json == {
            "error": "squad_id does not match a record",
            "details": [{"field": "squad_id", "message": "no squads record has this id"}]}
    else:
        assert response.status == 400 and response.json == {"error": "A referenced record does not exist"}
    assert written(db, "fk") == 0 and calls == []


def test_delete_refused_by_a_foreign_key_is_409_and_rolled_back(test_api, db, user):
    """Postgres' DETAIL says the row is still referenced: a conflict naming the referring table. SQLite's error
    does not tell a delete from an insert: the general 400."""
    response = test_api.post("/t/write/referenced", as_=user)
    if db.get_bind().dialect.name == "postgresql":
        assert response.status == 409 and response.json == {"error": "The record is still referenced by t_child records"}
    else:
        assert response.status == 400 and response.json == {"error": "A referenced record does not exist"}
    assert written(db, "referenced") == 0 and calls == []


def test_failed_request_sends_no_queue_message(test_api, user, aws):
    assert test_api.post("/t/write/crash", as_=user).status == 500
    messages = aws["sqs"].receive_message(QueueUrl=aws["queue_url"], MaxNumberOfMessages=10, WaitTimeSeconds=0)
    assert messages.get("Messages", []) == []
    assert test_api.post("/t/write/sent", as_=user).status == 200
    messages = aws["sqs"].receive_message(QueueUrl=aws["queue_url"], MaxNumberOfMessages=10, WaitTimeSeconds=0)
    assert [m["Body"] for m in messages["Messages"]] == ['{"mode": "sent"}']


# --- serialisation -------------------------------------------------------------------------------

def test_serialisation(test_api):
    response = test_api.get("/t/values")
    assert response.status == 200 and response.headers["content-type"] == "application/json"
    assert response.json == {"at": "2026-01-02T03:04:05Z", "day": "2026-01-02", "amount": 12.5, "tags": ["only"]}


def test_handler_may_return_a_response(test_api):
    response = test_api.get("/t/raw", headers={"Accept": "application/pdf"})
    assert response.status == 200 and response.body == b"%PDF-1.4"
    assert response.headers["content-type"] == "application/pdf"


# --- an answer larger than a Lambda function can carry --------------------------------------------------------

def test_an_answer_past_the_lambda_payload_limit_is_a_413_and_writes_nothing(test_api, user, db):
    """A Lambda function's answer carries at most 6 MB of the runtime's JSON (ensure_ascii on python3.11: a
    non-ASCII character is 6 bytes); past it the client got API Gateway's bare 502 (no error body, no request id,
    no CORS) and a write answered so had committed (response-size audit). The service answers its own 413 before
    the commit; an answer within the limit is untouched."""
    small = test_api.post("/t/big/900000", as_=user)  # 5.4 MB of text in the runtime's JSON: carried
    assert small.status == 200 and written(db, "big-900000") == 1
    large = test_api.post("/t/big/1100000", as_=user)  # 6.6 MB: 1.1 MB in UTF-8, but not as the runtime writes it
    assert large.status == 413, large
    assert "6 MB" in large.json["error"] and large.headers.get("x-request-id")
    assert written(db, "big-1100000") == 0  # rolled back: the write is not made when its answer cannot be carried


@pytest.mark.parametrize("text", ['plain "quoted" \\ back', "caf\u00e9 \u65e5\u672c", "emoji \U0001F600 x"])
def test_the_payload_size_is_the_runtimes_json_of_the_body(monkeypatch, text):
    """lambda_payload_size is what json.dumps (ensure_ascii, as the python3.11 runtime writes the answer) makes of
    the body, less its two quotes."""
    import json

    monkeypatch.setattr(http, "LAMBDA_PAYLOAD_LIMIT", 1)  # scan every body
    body = http.dump_json({"text": text * 3})
    assert http.lambda_payload_size(body) == len(json.dumps(body, ensure_ascii=True)) - 2
