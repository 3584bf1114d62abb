"""Provider secrets come from Secrets Manager or SSM Parameter Store in production, read once per
container (issue 10 item 9)."""
import json

import pytest
from moto import mock_aws

from chalicelib.core.settings import get_settings, reset_settings


@pytest.fixture
def aws_secrets(set_env):
    with mock_aws():
        import boto3

        yield boto3.client("secretsmanager", region_name="ap-southeast-2"), boto3.client("ssm", region_name="ap-southeast-2")
    reset_settings()


def test_settings_read_the_secret_once_and_the_environment_wins(aws_secrets, set_env, monkeypatch):
    secrets, _ssm = aws_secrets
    arn = secrets.create_secret(Name="wms/test/providers", SecretString=json.dumps(
        {"AI_API_KEY": "sk-from-secret", "CHAT_BOT_TOKEN": "xoxb-from-secret", "MAIL_FROM": "ops@agency.test",
         "NOT_A_SETTING": "ignored"}))["ARN"]
    set_env(PROVIDER_SECRETS_ID=arn, CHAT_BOT_TOKEN="xoxb-from-env", AI_API_KEY="")
    calls = []
    import chalicelib.core.secrets as module

    real = module.read_provider_secrets
    monkeypatch.setattr(module, "read_provider_secrets", lambda *a, **k: calls.append(a) or real(*a, **k))
    reset_settings()
    settings = get_settings()
    assert settings.ai_api_key == "sk-from-secret"
    assert settings.chat_bot_token == "xoxb-from-env"  # an explicit variable wins
    assert settings.mail_from == "ops@agency.test"
    assert not hasattr(settings, "not_a_setting")
    get_settings(), get_settings()
    assert len(calls) == 1  # once per container


def test_parameters_under_an_ssm_path(aws_secrets, set_env):
    _secrets, ssm = aws_secrets
    ssm.put_parameter(Name="/wms/test/providers/AI_API_KEY", Value="sk-from-ssm", Type="SecureString")
    ssm.put_parameter(Name="/wms/test/providers/VAPID_PRIVATE_KEY", Value="vapid-from-ssm", Type="SecureString")
    set_env(PROVIDER_SECRETS_ID="ssm:/wms/test/providers", AI_API_KEY="")
    reset_settings()
    settings = get_settings()
    assert (settings.ai_api_key, settings.vapid_private_key) == ("sk-from-ssm", "vapid-from-ssm")


def test_a_secret_that_is_not_a_json_object_stops_the_start_with_a_clear_message(aws_secrets, set_env):
    secrets, _ssm = aws_secrets
    secrets.create_secret(Name="wms/test/bad", SecretString="just-a-string")
    set_env(PROVIDER_SECRETS_ID="wms/test/bad")
    reset_settings()
    with pytest.raises(RuntimeError, match="JSON object"):
        get_settings()


def test_without_the_setting_nothing_is_fetched(set_env, monkeypatch):
    import chalicelib.core.secrets as module

    monkeypatch.setattr(module, "read_provider_secrets", lambda *a, **k: pytest.fail("fetched"))
    set_env(PROVIDER_SECRETS_ID="")
    reset_settings()
    get_settings()
    reset_settings()


def test_a_secret_that_cannot_be_read_is_named_with_the_aws_error_and_read_again_next_time(aws_secrets, set_env):
    secrets, _ssm = aws_secrets
    set_env(PROVIDER_SECRETS_ID="wms/test/missing")
    reset_settings()
    with pytest.raises(RuntimeError, match=r"wms/test/missing cannot be read \(ResourceNotFoundException\)"):
        get_settings()
    secrets.create_secret(Name="wms/test/missing", SecretString=json.dumps({"AI_API_KEY": "sk-now-there"}))
    assert get_settings().ai_api_key == "sk-now-there"  # a failed read is not cached


def test_stored_values_are_trimmed_and_a_blank_one_left_unset(aws_secrets, set_env):
    secrets, _ssm = aws_secrets
    arn = secrets.create_secret(Name="wms/test/trimmed", SecretString=json.dumps(
        {"AI_API_KEY": "sk-from-secret\n", "CHAT_BOT_TOKEN": " \n"}))["ARN"]
    set_env(PROVIDER_SECRETS_ID=arn, AI_API_KEY="", CHAT_BOT_TOKEN="")
    reset_settings()
    settings = get_settings()
    assert (settings.ai_api_key, settings.chat_bot_token) == ("sk-from-secret", None)
