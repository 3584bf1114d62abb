"""Provider secrets from AWS Secrets Manager or SSM Parameter Store, read once per container.

`PROVIDER_SECRETS_ID` names where they are:
- a Secrets Manager secret (name or ARN) whose value is a JSON object of setting names to values,
  `{"AI_API_KEY": "...", "CHAT_BOT_TOKEN": "..."}`;
- or `ssm:/wms/prod/providers/`: every (SecureString) parameter under that path, named after its
  setting (`/wms/prod/providers/AI_API_KEY`).
`core.settings.load_settings` merges them under the environment's own values (an explicit variable
wins), and `get_settings` caches the result for the container's life. boto3 is imported only here,
and only when the variable is set.
"""
from __future__ import annotations

import json


def read_provider_secrets(secret_id: str, *, region: str, endpoint_url: str | None = None) -> dict[str, str]:
    """The stored values; a store that cannot be read raises RuntimeError naming it and AWS's error
    code (never a value), and is tried again by the next `get_settings()` (nothing is cached then)."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return _read(secret_id, region=region, endpoint_url=endpoint_url)
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "ClientError")
        raise RuntimeError(f"the provider secrets {secret_id} cannot be read ({code}); check PROVIDER_SECRETS_ID "
                           "and the function's permission to read it") from exc
    except BotoCoreError as exc:
        raise RuntimeError(f"the provider secrets {secret_id} cannot be read ({type(exc).__name__})") from exc


def _read(secret_id: str, *, region: str, endpoint_url: str | None) -> dict[str, str]:
    import boto3

    if secret_id.startswith("ssm:"):
        path = secret_id[len("ssm:"):].rstrip("/") + "/"
        ssm = boto3.client("ssm", region_name=region, endpoint_url=endpoint_url)
        values: dict[str, str] = {}
        for page in ssm.get_paginator("get_parameters_by_path").paginate(Path=path, WithDecryption=True):
            for parameter in page.get("Parameters", []):
                values[parameter["Name"][len(path):]] = parameter["Value"]
        return values
    client = boto3.client("secretsmanager", region_name=region, endpoint_url=endpoint_url)
    text = client.get_secret_value(SecretId=secret_id).get("SecretString") or "{}"
    try:
        values = json.loads(text)
    except ValueError as exc:
        raise RuntimeError(f"the secret {secret_id} is not a JSON object of setting names to values") from exc
    if not isinstance(values, dict):
        raise RuntimeError(f"the secret {secret_id} is not a JSON object of setting names to values")
    return {str(key): str(value) for key, value in values.items() if value is not None}
