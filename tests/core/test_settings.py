"""Settings: embedded defaults only when nothing is configured; `.data/` untouched otherwise (Lambda)."""
import pytest

from chalicelib.core.settings import load_settings


def test_configured_installation_never_touches_the_data_folder(set_env, tmp_path):
    missing = tmp_path / "not-here"
    set_env(WMS_DATA_DIR=str(missing), DATABASE_URL="postgresql+pg8000://u:p@db:5432/wms",
            UPLOADS_BUCKET="bucket", UPLOADS_DIR=None, AUTH_JWKS_URL="https://idp.test/jwks.json", SECRETS_KEY="kms:key-1",
            PUBLIC_BASE_URL="https://wms.agency.test", WMS_STAGE="prod", AUTH_AUDIENCE="wms",
            AUTH_ISSUER="https://idp.test/")
    settings = load_settings()
    assert settings.database_url.endswith("/wms") and settings.uploads_dir is None
    assert not missing.exists()


def test_embedded_defaults_live_under_the_data_folder(set_env, tmp_path):
    set_env(WMS_DATA_DIR=str(tmp_path), DATABASE_URL=None, UPLOADS_BUCKET=None, UPLOADS_DIR=None,
            AUTH_JWT_SECRET=None, SECRETS_KEY=None, AUTH_JWKS_URL=None)
    settings = load_settings()
    assert settings.database_url == f"sqlite:///{tmp_path / 'wms.sqlite3'}"
    assert settings.uploads_dir == str(tmp_path / "uploads")
    assert (tmp_path / "jwt-secret").read_text() == settings.auth_jwt_secret
    assert load_settings().auth_jwt_secret == settings.auth_jwt_secret  # written once, then reused


def test_prod_stage_refuses_to_start_without_jwks(set_env):
    set_env(WMS_STAGE="prod", AUTH_JWKS_URL=None)
    with pytest.raises(RuntimeError, match="AUTH_JWKS_URL"):
        load_settings()


# the prod stage with everything it requires; each test below takes one away
PROD = dict(WMS_STAGE="prod", AUTH_JWKS_URL="https://idp.test/jwks.json", SECRETS_KEY="kms:key-1",
            PUBLIC_BASE_URL="https://wms.agency.test", AUTH_AUDIENCE="wms", AUTH_ISSUER="https://idp.test/")


def test_prod_stage_loads_with_its_public_address(set_env):
    set_env(**PROD)
    settings = load_settings()
    assert settings.stage == "prod" and settings.public_base_url == "https://wms.agency.test"


def test_prod_stage_refuses_to_start_without_public_base_url(set_env):
    # its default (http://127.0.0.1:8000) made every cookie write 403 and every notice link point at 127.0.0.1
    set_env(**{**PROD, "PUBLIC_BASE_URL": None})
    with pytest.raises(RuntimeError, match="PUBLIC_BASE_URL"):
        load_settings()


@pytest.mark.parametrize("value", ["http://127.0.0.1:8000", "https://localhost/", "  ", "wms.agency.test"])
def test_prod_stage_refuses_a_local_or_malformed_public_base_url(set_env, value):
    set_env(**{**PROD, "PUBLIC_BASE_URL": value})
    with pytest.raises(RuntimeError, match="PUBLIC_BASE_URL"):
        load_settings()


def test_prod_stage_refuses_to_start_without_secrets_key(set_env, tmp_path):
    # the stack always sets kms:<key>; a Fernet key generated per container could not read what another stored
    set_env(**{**PROD, "SECRETS_KEY": None}, WMS_DATA_DIR=str(tmp_path))
    with pytest.raises(RuntimeError, match="SECRETS_KEY"):
        load_settings()
    assert not (tmp_path / "secrets-key").exists()


def test_dev_stage_keeps_its_local_defaults(set_env):
    set_env(WMS_STAGE="dev", PUBLIC_BASE_URL=None, SECRETS_KEY=None, AUTH_JWKS_URL=None)
    settings = load_settings()
    assert settings.public_base_url == "http://127.0.0.1:8000" and settings.secrets_key


@pytest.mark.parametrize("name", ["AUTH_AUDIENCE", "AUTH_ISSUER"])
def test_prod_stage_refuses_to_start_without_audience_or_issuer(set_env, name):
    """Unchecked, a token the identity provider issued to any other application (its own `aud`) was accepted: an
    application an employee signs into could replay their token here (session 22's authentication audit)."""
    set_env(**{**PROD, name: None})
    with pytest.raises(RuntimeError, match=name):
        load_settings()
