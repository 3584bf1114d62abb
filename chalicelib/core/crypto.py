"""Encryption of stored third-party credentials (decisions.md section 1, `SECRETS_KEY`).

`encrypt(text)` answers a string safe to store in a text column; `decrypt(stored)` the original text.
`SECRETS_KEY` is a Fernet key (the development default is generated once under `.data/`), or
`kms:<key-id>`: then AWS KMS encrypts and decrypts (its ciphertext is stored base64-encoded behind a
`kms:` prefix, so a stored value says which scheme wrote it). `cryptography` and boto3 are imported on
first use only (cold start). A value that cannot be decrypted (wrong key, tampered) raises
`SecretUnreadable`, never returns garbage; callers treat it as "not configured".
"""
from __future__ import annotations

import base64
from functools import lru_cache

from .settings import get_settings

_KMS = "kms:"


class SecretUnreadable(Exception):
    """A stored secret that the current key cannot decrypt."""


@lru_cache(maxsize=4)
def _fernet(key: str):
    from cryptography.fernet import Fernet

    return Fernet(key.encode())


def encrypt(text: str) -> str:
    key = get_settings().secrets_key or ""
    if key.startswith(_KMS):
        from .aws import client

        blob = client("kms").encrypt(KeyId=key[len(_KMS):], Plaintext=text.encode())["CiphertextBlob"]
        return _KMS + base64.b64encode(blob).decode()
    return _fernet(key).encrypt(text.encode()).decode()


def decrypt(stored: str) -> str:
    key = get_settings().secrets_key or ""
    try:
        if stored.startswith(_KMS):
            from .aws import client

            blob = base64.b64decode(stored[len(_KMS):])
            return client("kms").decrypt(CiphertextBlob=blob)["Plaintext"].decode()
        from cryptography.fernet import InvalidToken

        try:
            return _fernet(key).decrypt(stored.encode()).decode()
        except InvalidToken as exc:
            raise SecretUnreadable("a stored secret cannot be decrypted with SECRETS_KEY") from exc
    except SecretUnreadable:
        raise
    except Exception as exc:  # KMS refusal, bad base64, a key that is not a Fernet key
        raise SecretUnreadable(f"a stored secret cannot be decrypted ({type(exc).__name__})") from exc
