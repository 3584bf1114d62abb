"""Health check and the OpenAPI document of the whole service (every area, whatever WMS_MODULES says)."""
from __future__ import annotations

from functools import lru_cache

from sqlalchemy import text


def health(ctx) -> dict:
    ctx.db.execute(text("SELECT 1"))
    return {"ok": True}


def full_app():
    """A Chalice app with every area registered, built on demand for the OpenAPI document."""
    from chalice import Chalice

    from chalicelib.areas import AREAS, load_blueprint

    app = Chalice(app_name="wms-openapi")
    for area in AREAS:
        app.register_blueprint(load_blueprint(area))
    return app


@lru_cache(maxsize=1)
def openapi_document() -> dict:
    from chalicelib.core.openapi import build_document

    return build_document(full_app())
