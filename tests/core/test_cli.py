"""The command line: create-user and token (decisions.md section 3).

`create-user` commits through its own engine, so it runs against a fresh database (beside the test
database) named by DATABASE_URL, with the test harness's shared connection set aside.
"""
import json
import time

import jwt
import pytest
from sqlalchemy import create_engine, text

from chalicelib import cli
from chalicelib.core import db as core_db
from chalicelib.core.settings import get_settings, reset_settings
from chalicelib.migrations.runner import upgrade
from tests.factories import make_user


@pytest.fixture(scope="module")
def cli_url(module_database):
    url = module_database()
    upgrade(url)
    return url


@pytest.fixture
def cli_database(cli_url, monkeypatch):
    url = cli_url
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM users"))
    engine.dispose()
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setattr(core_db, "_bind_override", None)
    monkeypatch.setattr(core_db, "_engine", None)
    reset_settings()
    yield url
    if core_db._engine is not None:
        core_db._engine.dispose()
    monkeypatch.undo()
    reset_settings()


def rows(url: str, sql: str, **params):
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(text(sql), params).all()
    finally:
        engine.dispose()


def test_create_user_writes_to_database_url(cli_database, capsys):
    code = cli.main(["create-user", "--email", "First.Exec@Agency.TEST", "--name", "First Exec",
                     "--access-level", "executive"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["email"] == "first.exec@agency.test"
    assert printed["name"] == "First Exec" and printed["access_level"] == "executive" and printed["is_active"] == 1
    assert "salary" not in printed and printed["id"]
    stored = rows(cli_database, "SELECT id, email, access_level FROM users")
    assert [tuple(r) for r in stored] == [(printed["id"], "first.exec@agency.test", "executive")]


def test_create_user_defaults_to_employee(cli_database, capsys):
    assert cli.main(["create-user", "--email", "e@agency.test", "--name", "E"]) == 0
    assert json.loads(capsys.readouterr().out)["access_level"] == "employee"


def test_create_user_refuses_existing_email(cli_database, capsys):
    assert cli.main(["create-user", "--email", "dup@agency.test", "--name", "One"]) == 0
    capsys.readouterr()
    assert cli.main(["create-user", "--email", "DUP@agency.test", "--name", "Two"]) == 1
    assert "exists" in capsys.readouterr().err
    assert len(rows(cli_database, "SELECT id FROM users")) == 1


def test_create_user_refuses_unknown_access_level(cli_database, capsys):
    assert cli.main(["create-user", "--email", "x@agency.test", "--name", "X", "--access-level", "king"]) == 2
    assert "access level" in capsys.readouterr().err
    assert rows(cli_database, "SELECT id FROM users") == []


def test_created_user_can_sign_in_with_cli_token(cli_database, capsys):
    from app import app
    from chalice.test import Client

    from tests.conftest import PROJECT_DIR

    assert cli.main(["create-user", "--email", "boss@agency.test", "--name", "Boss", "--access-level", "executive"]) == 0
    user_id = json.loads(capsys.readouterr().out)["id"]
    assert cli.main(["token", "--email", "boss@agency.test"]) == 0
    token = capsys.readouterr().out.strip()
    with Client(app, stage_name="dev", project_dir=str(PROJECT_DIR)) as client:
        response = client.http.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    body = json.loads(response.body)
    assert body["user"]["id"] == user_id and body["permissions"]["admin"] == "manage"


def test_token_prints_a_dev_token(api, db, capsys):
    user = make_user(db, email="tok@agency.test")
    assert cli.main(["token", "--email", user.email, "--days", "2"]) == 0
    token = capsys.readouterr().out.strip()
    claims = jwt.decode(token, get_settings().auth_jwt_secret, algorithms=["HS256"])
    assert claims["email"] == "tok@agency.test"
    assert abs(claims["exp"] - (int(time.time()) + 2 * 86400)) < 60
    assert api.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json["user"]["id"] == user.id


def test_token_refused_when_jwks_configured(set_env, capsys):
    """Development tokens are HS256 only: with JWKS configured the command refuses (an error, no token)."""
    set_env(AUTH_JWKS_URL="https://idp.agency.test/.well-known/jwks.json")
    assert cli.main(["token", "--email", "x@agency.test"]) == 2
    captured = capsys.readouterr()
    assert "HS256" in captured.err
    assert captured.out == ""


def test_create_user_refuses_a_malformed_email(capsys):
    assert cli.main(["create-user", "--email", "not-an-email", "--name", "X"]) == 2
    assert "e-mail" in capsys.readouterr().err
