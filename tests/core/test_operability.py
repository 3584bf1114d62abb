"""Rough edges a new user hits (issue 10 items 1 and 6): the region from AWS_DEFAULT_REGION, a
postgres:// URL, `cli token` for an unknown or inactive user, /api/health without a database."""
from chalicelib import cli
from chalicelib.core import db as core_db
from chalicelib.core.settings import get_settings, normalise_database_url
from tests.factories import make_user


def test_region_from_aws_region_or_aws_default_region(set_env):
    set_env(AWS_REGION=None, AWS_DEFAULT_REGION="eu-west-1")
    assert get_settings().aws_region == "eu-west-1"
    set_env(AWS_REGION="us-east-2", AWS_DEFAULT_REGION="eu-west-1")
    assert get_settings().aws_region == "us-east-2"


def test_postgres_urls_mean_pg8000(set_env):
    assert normalise_database_url("postgres://u:p@h:5432/d") == "postgresql+pg8000://u:p@h:5432/d"
    assert normalise_database_url("postgresql://u:p@h/d") == "postgresql+pg8000://u:p@h/d"
    assert normalise_database_url("postgresql+psycopg://u@h/d") == "postgresql+psycopg://u@h/d"
    set_env(DATABASE_URL="postgres://u:p@db.example:5432/wms")
    assert get_settings().database_url == "postgresql+pg8000://u:p@db.example:5432/wms"


def test_cli_token_for_an_unknown_or_inactive_user_exits_1(db, capsys):
    assert cli.main(["token", "--email", "nobody@agency.test"]) == 1
    assert "no user" in capsys.readouterr().err
    make_user(db, email="gone@agency.test", is_active=False)
    assert cli.main(["token", "--email", "gone@agency.test"]) == 1
    assert "inactive" in capsys.readouterr().err
    make_user(db, email="Here@Agency.test")
    assert cli.main(["token", "--email", "here@agency.test"]) == 0
    assert capsys.readouterr().out.strip()


def test_health_is_503_with_the_error_body_while_the_database_is_unreachable(api, monkeypatch):
    assert api.get("/api/health").status == 200
    unreachable = core_db.make_engine("postgresql+pg8000://wms:wms@127.0.0.1:1/wms")
    monkeypatch.setattr(core_db, "_bind_override", None)
    monkeypatch.setattr(core_db, "_engine", unreachable)
    response = api.get("/api/health")
    assert response.status == 503, response
    assert response.json == {"error": "The database is unreachable"}
