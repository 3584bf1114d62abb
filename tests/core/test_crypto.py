"""Stored credentials: Fernet by default, KMS when SECRETS_KEY is kms:<key-id>."""
import boto3
import pytest
from cryptography.fernet import Fernet
from moto import mock_aws

from chalicelib.core import aws, crypto
from chalicelib.core.settings import get_settings


@pytest.fixture
def key(monkeypatch):
    def use(value):
        monkeypatch.setenv("SECRETS_KEY", value)
        get_settings.cache_clear()
    yield use
    get_settings.cache_clear()
    aws.reset_clients()


def test_fernet_round_trip_and_ciphertext_hides_the_value(key):
    key(Fernet.generate_key().decode())
    stored = crypto.encrypt("xoxb-secret-token")
    assert "xoxb" not in stored
    assert crypto.decrypt(stored) == "xoxb-secret-token"


def test_a_value_written_under_another_key_is_unreadable(key):
    key(Fernet.generate_key().decode())
    stored = crypto.encrypt("token")
    key(Fernet.generate_key().decode())
    with pytest.raises(crypto.SecretUnreadable):
        crypto.decrypt(stored)
    with pytest.raises(crypto.SecretUnreadable):
        crypto.decrypt("not a token")


def test_kms_key(key, monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-2")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    aws.reset_clients()
    with mock_aws():
        key_id = boto3.client("kms", region_name="ap-southeast-2").create_key()["KeyMetadata"]["KeyId"]
        key(f"kms:{key_id}")
        stored = crypto.encrypt("refresh-token")
        assert stored.startswith("kms:") and "refresh-token" not in stored
        assert crypto.decrypt(stored) == "refresh-token"
