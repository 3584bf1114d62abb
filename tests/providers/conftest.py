"""Fixtures of the live adapters' tests."""
import pytest

from chalicelib.providers import http as provider_http


@pytest.fixture
def waits(monkeypatch):
    """The seconds each Retry-After made an adapter wait (providers.http.sleep recorded, not slept)."""
    slept = []
    monkeypatch.setattr(provider_http, "sleep", slept.append)
    return slept
