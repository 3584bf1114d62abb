"""Health check and the OpenAPI document of the whole service (every area, whatever WMS_MODULES says)."""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

from sqlalchemy import text


def health(ctx) -> dict:
    """{"ok": true} while the database answers; 503 with the error body while it does not."""
    from sqlalchemy.exc import DBAPIError

    from chalicelib.core.errors import ServiceUnavailable

    try:
        ctx.db.execute(text("SELECT 1"))
    except (DBAPIError, OSError) as exc:
        raise ServiceUnavailable("The database is unreachable") from exc
    return {"ok": True}


def all_routes() -> dict:
    """The route table of every area: this function's own routes, plus the areas it does not serve,
    registered into a scratch app (a Chalice blueprint can be registered into one app only)."""
    from chalice import Chalice

    from chalicelib.areas import AREAS, load_blueprint, selected_areas
    from chalicelib.core.http import current_app

    app = current_app()
    if app is None:
        from app import app  # the CLI: import the whole service
    routes = {path: dict(methods) for path, methods in app.routes.items()}
    missing = [area for area in AREAS if area not in selected_areas()]
    if missing:
        scratch = Chalice(app_name="wms-openapi")
        for area in missing:
            scratch.register_blueprint(load_blueprint(area))
        for path, methods in scratch.routes.items():
            routes.setdefault(path, {}).update(methods)
    return routes


@lru_cache(maxsize=1)
def openapi_document() -> dict:
    from chalicelib.core.openapi import build_document

    return build_document(SimpleNamespace(routes=all_routes()))
