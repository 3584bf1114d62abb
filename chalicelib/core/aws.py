"""boto3 clients, created once per container (tests clear them when moto starts)."""
from __future__ import annotations

from functools import lru_cache

from .settings import get_settings


@lru_cache(maxsize=None)
def client(service: str):
    import boto3

    settings = get_settings()
    return boto3.client(service, region_name=settings.aws_region, endpoint_url=settings.aws_endpoint_url)


def reset_clients() -> None:
    client.cache_clear()
