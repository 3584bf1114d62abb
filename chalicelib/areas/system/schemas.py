"""Read models of the service-level routes."""
from __future__ import annotations

from chalicelib.core.schemas import Read


class VersionRead(Read):
    version: str
    commit: str


class OpenApiDocument(Read):
    """The OpenAPI 3.1 document itself (its shape is the OpenAPI specification's)."""

    model_config = {"extra": "allow"}
    openapi: str
    info: dict
    paths: dict
    components: dict
