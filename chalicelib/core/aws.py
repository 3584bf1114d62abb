"""boto3 clients, created once per container (tests clear them when moto starts)."""
from __future__ import annotations

from functools import lru_cache

from .settings import get_settings


# botocore's defaults are 60 s to connect and to read and three attempts, the later ones also after a read timeout:
# a function of 30 s was stopped before an answer it could report, and a send that timed out was sent again. A call
# here waits at most 3 s to connect and 10 s for each read; SES sends no idempotency token, so a message is sent
# once (the notification worker's own retry, `notifications-drain`, is under the delivery's claim), other services
# keep botocore's standard retries.
CONNECT_TIMEOUT, READ_TIMEOUT = 3, 10
ATTEMPTS = {"sesv2": 1, "ses": 1}


@lru_cache(maxsize=None)
def client(service: str):
    import boto3
    from botocore.config import Config

    settings = get_settings()
    config = Config(connect_timeout=CONNECT_TIMEOUT, read_timeout=READ_TIMEOUT,
                    retries={"mode": "standard", "total_max_attempts": ATTEMPTS.get(service, 3)})
    return boto3.client(service, region_name=settings.aws_region, endpoint_url=settings.aws_endpoint_url,
                        config=config)


def reset_clients() -> None:
    client.cache_clear()
