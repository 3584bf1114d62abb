"""Service-level routes: health and the OpenAPI document."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse

from . import service
from .schemas import OpenApiDocument, VersionRead

bp = Blueprint(__name__)


@bp.route("/api/health", methods=["GET"])
@endpoint(auth="public", response=OkResponse, errors=(503,))
def health(ctx):
    """Liveness and database reachability."""
    return service.health(ctx)


@bp.route("/api/version", methods=["GET"])
@endpoint(auth="public", response=VersionRead)
def get_build_version(ctx):
    """The build's version and commit."""
    from chalicelib.core.version import build_info

    return build_info()


@bp.route("/api/openapi.json", methods=["GET"])
@endpoint(auth="public", response=OpenApiDocument)
def get_openapi_document(ctx):
    """The OpenAPI 3.1 document of every route of the service."""
    return service.openapi_document()
