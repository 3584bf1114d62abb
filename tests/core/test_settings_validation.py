"""Settings values whose typo used to be accepted silently (a provider always "skipped", a plaintext database
connection, a 500 on every date-aware route, a portal 401, no allowed origin, a 500 on the first credential save):
each is now trimmed and normalised, and a bad one refuses the settings with a RuntimeError naming its variable."""
import pytest
from cryptography.fernet import Fernet

from chalicelib.core.settings import Settings, load_settings

MODES = sorted(name.upper() for name in Settings.model_fields if name.endswith("_mode"))


def test_every_provider_role_has_a_mode_checked():
    assert {"MAIL_MODE", "CHAT_MODE", "PUSH_MODE", "AI_MODE", "LEDGER_MODE", "SMS_MODE", "PLANNER_MODE"} <= set(MODES)


@pytest.mark.parametrize("name", MODES)
@pytest.mark.parametrize("value", ["prod", "enabled", "true", "li ve"])
def test_provider_mode_outside_sandbox_live_off_is_refused(set_env, name, value):
    set_env(**{name: value})
    with pytest.raises(RuntimeError, match=name):
        load_settings()


@pytest.mark.parametrize("name", ["MAIL_MODE", "CHAT_MODE", "AI_MODE", "PUSH_MODE", "LEDGER_MODE"])
@pytest.mark.parametrize("value,expected", [("Live", "live"), ("live ", "live"), (" LIVE\n", "live"),
                                            ("Sandbox", "sandbox"), ("OFF", "off")])
def test_provider_mode_is_trimmed_and_lower_cased(set_env, name, value, expected):
    set_env(**{name: value})
    settings = load_settings()
    assert getattr(settings, name.lower()) == expected
    assert settings.provider_mode(name[:-len("_MODE")].lower()) == expected


@pytest.mark.parametrize("value", ["require", "true", "on", "disable", "verify-full"])
def test_database_ssl_unknown_value_is_refused(set_env, value):
    set_env(DATABASE_SSL=value)
    with pytest.raises(RuntimeError, match="DATABASE_SSL"):
        load_settings()


@pytest.mark.parametrize("value,expected", [("Verify", "verify"), (" verify\n", "verify"), ("OFF", "off"), ("off", "off")])
def test_database_ssl_documented_values_are_normalised(set_env, value, expected):
    set_env(DATABASE_SSL=value)
    assert load_settings().database_ssl == expected


def test_database_ssl_verify_in_any_case_gives_a_tls_connection(set_env, monkeypatch):
    from chalicelib.core import db as core_db

    set_env(DATABASE_SSL="Verify ")
    seen = {}

    class Stop(Exception):
        pass

    def fake_create_engine(url, connect_args, **kwargs):
        seen.update(connect_args)
        raise Stop

    monkeypatch.setattr(core_db, "create_engine", fake_create_engine)
    with pytest.raises(Stop):
        core_db.make_engine("postgresql+pg8000://u:p@db.internal:5432/wms")
    assert "ssl_context" in seen


@pytest.mark.parametrize("value", ["Sydney", "australia/sydney", "Australia/Sydnee", "../etc/passwd", "+10:00"])
def test_org_timezone_that_is_no_iana_zone_is_refused(set_env, value):
    set_env(ORG_TIMEZONE=value)
    with pytest.raises(RuntimeError, match="ORG_TIMEZONE"):
        load_settings()


@pytest.mark.parametrize("value,expected", [("Australia/Sydney ", "Australia/Sydney"), (" UTC\n", "UTC"),
                                            ("Pacific/Kiritimati", "Pacific/Kiritimati")])
def test_org_timezone_is_trimmed(set_env, value, expected):
    set_env(ORG_TIMEZONE=value)
    assert load_settings().org_timezone == expected


@pytest.mark.parametrize("stage", ["Prod", "PROD", " prod\n"])
def test_prod_stage_in_any_case_still_requires_jwks(set_env, stage):
    set_env(WMS_STAGE=stage, AUTH_JWKS_URL=None)
    with pytest.raises(RuntimeError, match="AUTH_JWKS_URL"):
        load_settings()


@pytest.mark.parametrize("stage", ["Prod", "PROD", " prod\n"])
def test_prod_stage_in_any_case_requires_public_base_url(set_env, stage):
    set_env(WMS_STAGE=stage, AUTH_JWKS_URL="https://idp.agency.test/jwks.json", SECRETS_KEY="kms:key-1",
            PUBLIC_BASE_URL=None)
    with pytest.raises(RuntimeError, match="PUBLIC_BASE_URL"):
        load_settings()


@pytest.mark.parametrize("stage", ["production", "staging", "prd"])
def test_unknown_stage_is_refused(set_env, stage):
    set_env(WMS_STAGE=stage, AUTH_JWKS_URL="https://idp.agency.test/jwks.json")
    with pytest.raises(RuntimeError, match="WMS_STAGE"):
        load_settings()


@pytest.mark.parametrize("stage,expected", [("Dev", "dev"), ("TEST ", "test"), ("Prod", "prod")])
def test_stage_is_trimmed_and_lower_cased(set_env, stage, expected):
    set_env(WMS_STAGE=stage, AUTH_JWKS_URL="https://idp.agency.test/jwks.json",
            PUBLIC_BASE_URL="https://wms.agency.test", SECRETS_KEY="kms:key-1", AUTH_AUDIENCE="wms",
            AUTH_ISSUER="https://idp.agency.test/")
    assert load_settings().stage == expected


def test_auth_and_portal_values_are_trimmed(set_env):
    set_env(PORTAL_SERVICE_TOKEN="portal-token-abcdefgh12345\n", AUTH_AUDIENCE=" wms\n",
            AUTH_ISSUER="https://idp.agency.test/\n", AUTH_JWKS_URL=" https://idp.agency.test/jwks.json\r\n")
    settings = load_settings()
    assert settings.portal_service_token == "portal-token-abcdefgh12345"
    assert settings.auth_audience == "wms"
    assert settings.auth_issuer == "https://idp.agency.test/"
    assert settings.auth_jwks_url == "https://idp.agency.test/jwks.json"


def test_portal_token_with_trailing_newline_still_matches(set_env, api):
    set_env(PORTAL_SERVICE_TOKEN="portal-token-abcdefgh12345\n")
    response = api.get("/api/portal/dashboard", headers={"Authorization": "Bearer portal-token-abcdefgh12345",
                                                         "X-Portal-Company-Id": "00000000-0000-0000-0000-000000000000"})
    assert response.status != 401, response


@pytest.mark.parametrize("value", ["app.agency.test", "https://app.agency.test, app2.agency.test", "ftp://app.agency.test",
                                   "https://"])
def test_allowed_origin_without_http_scheme_is_refused(set_env, value):
    set_env(ALLOWED_ORIGINS=value)
    with pytest.raises(RuntimeError, match="ALLOWED_ORIGINS"):
        load_settings()


def test_allowed_origins_keep_their_normalisation(set_env):
    from chalicelib.core.auth import allowed_origins

    set_env(ALLOWED_ORIGINS=" https://App.Agency.test/ , http://localhost:5173/,,")
    load_settings()
    assert allowed_origins() == {"https://app.agency.test", "http://localhost:5173"}


@pytest.mark.parametrize("value", ["changeme-please", "kms:", "kms:  ", "x" * 44])
def test_secrets_key_that_is_neither_kms_nor_fernet_is_refused(set_env, value):
    set_env(SECRETS_KEY=value)
    with pytest.raises(RuntimeError, match="SECRETS_KEY") as refused:
        load_settings()
    if len(value) > 8:
        assert value not in str(refused.value)  # the refusal never repeats a secret


@pytest.mark.parametrize("suffix", ["", "\n", " "])
def test_secrets_key_fernet_or_kms_is_accepted_trimmed(set_env, suffix):
    key = Fernet.generate_key().decode()
    set_env(SECRETS_KEY=key + suffix)
    assert load_settings().secrets_key == key
    set_env(SECRETS_KEY="kms:alias/wms-credentials" + suffix)
    assert load_settings().secrets_key == "kms:alias/wms-credentials"


# ---------------------------------------------------------------- settings that cannot load

@pytest.mark.parametrize("env,named", [({"MAIL_MODE": "Live2"}, "MAIL_MODE"), ({"AI_TIMEOUT_SECONDS": "abc"}, "AI_TIMEOUT_SECONDS"),
                                       ({"MEETNOTES_SYNC_ENABLED": "enabled"}, "MEETNOTES_SYNC_ENABLED"),
                                       ({"DATABASE_SSL": "require"}, "DATABASE_SSL")])
def test_settings_that_cannot_load_answer_the_service_error_body(set_env, api, env, named):
    set_env(**env)
    response = api.get("/api/health")
    assert response.status == 503, response
    assert response.json["error"].startswith("The service is misconfigured: ") and named in response.json["error"]


def test_a_refused_secrets_key_is_not_repeated_in_the_answer(set_env, api):
    set_env(SECRETS_KEY="changeme-please-not-a-key")
    response = api.get("/api/health")
    assert response.status == 503 and "SECRETS_KEY" in response.json["error"]
    assert "changeme-please" not in str(response.json)


def test_logging_does_not_depend_on_settings_loading(set_env):
    from chalicelib.core import logs

    set_env(AI_TIMEOUT_SECONDS="abc")
    line = logs.redact("Authorization: Bearer abc.def.ghi and a plain line")
    assert "abc.def.ghi" not in line and line.endswith("[redacted] and a plain line")


@pytest.mark.parametrize("value", ["idp.example.com/.well-known/jwks.json", "ftp://idp.example.com/jwks.json"])
def test_a_jwks_url_without_an_http_scheme_is_refused(set_env, value):
    """A key-set URL without its scheme answered every token 401 "Invalid token", the operator none the wiser."""
    set_env(AUTH_JWKS_URL=value)
    with pytest.raises(RuntimeError, match="AUTH_JWKS_URL"):
        load_settings()


def test_a_database_url_carrying_sslmode_is_refused_naming_database_ssl(set_env):
    """As hosting providers write it (postgres://...?sslmode=require): pg8000 takes no sslmode, so every
    connection failed; the settings now say to use DATABASE_SSL."""
    set_env(DATABASE_URL="postgres://user:pw@db.example.com:5432/wms?sslmode=require")
    with pytest.raises(RuntimeError, match="DATABASE_SSL") as refused:
        load_settings()
    assert "pw" not in str(refused.value)


def test_a_psycopg_database_url_may_carry_sslmode(set_env):
    """psycopg reads sslmode (make bench runs the app on psycopg too, with sslmode=disable to go through its
    counting proxy; the check refused it, and make bench stopped at its psycopg runs)."""
    url = "postgresql+psycopg://user:pw@127.0.0.1:5432/wms?sslmode=disable&gssencmode=disable"
    set_env(DATABASE_URL=url)
    assert load_settings().database_url == url


@pytest.mark.parametrize("name,value,expected", [
    ("CHAT_BOT_TOKEN", "xoxb-1\n", "xoxb-1"), ("TWILIO_AUTH_TOKEN", " auth-1\r\n", "auth-1"),
    ("LEDGER_TENANT_ID", "tenant-1\n", "tenant-1"), ("AI_API_KEY", "sk-1 ", "sk-1"),
    ("CALENDAR_TEAM_CALENDAR_ID", "team@group.calendar.google.com\n", "team@group.calendar.google.com"),
    ("AUTH_COOKIE_NAME", "  \n", "wms_session")])
def test_every_setting_is_trimmed_and_a_blank_one_is_its_default(set_env, name, value, expected):
    """Not only the portal and auth values (session 21): a provider token or id from a secret store or a shell with a
    trailing newline reached the provider's Authorization header or URL (settings audit, left alone in session 21)."""
    set_env(**{name: value})
    assert getattr(load_settings(), name.lower()) == expected


def test_a_chat_token_with_a_trailing_newline_is_sent_trimmed(set_env):
    """requests refuses a header value ending in a newline: every live chat post failed before the call was made."""
    import responses

    from chalicelib.providers.chat import get_chat

    set_env(CHAT_MODE="live", CHAT_BOT_TOKEN="xoxb-test-token\n")
    with responses.RequestsMock() as mocked:
        mocked.post("https://slack.com/api/chat.postMessage",
                    json={"ok": True, "channel": "C123ABC456", "ts": "1503435956.000247"})
        assert get_chat().post_message(channel="C123ABC456", text="Hello")["ts"] == "1503435956.000247"
        assert mocked.calls[0].request.headers["Authorization"] == "Bearer xoxb-test-token"
