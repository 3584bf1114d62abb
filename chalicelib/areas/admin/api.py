"""Admin area routes: the caller, users, squads, the permission matrix and per-user overrides."""
from chalice import Blueprint

from chalicelib.core.http import endpoint

from . import service, service_permissions, service_squads
from .schemas import MatrixUpdate, SquadCreate, SquadUpdate, UserCreate, UserPermissionsUpdate, UserQuery, UserUpdate

bp = Blueprint(__name__)


@bp.route("/api/me", methods=["GET"])
@endpoint()
def get_me(ctx):
    """The caller's user record and effective permissions."""
    return service.me(ctx)


@bp.route("/api/admin/permissions", methods=["GET"])
@endpoint(tool="admin", level="view")
def get_permission_matrix(ctx):
    """The access-level matrix: a level per tool for each access level."""
    return {"matrix": service_permissions.get_matrix(ctx)}


@bp.route("/api/admin/permissions", methods=["PUT"])
@endpoint(tool="admin", level="manage", body=MatrixUpdate)
def update_permission_matrix(ctx, body: MatrixUpdate):
    """Change any cells of the access-level matrix; answers the whole matrix."""
    return {"matrix": service_permissions.update_matrix(ctx, changes=body.matrix)}


@bp.route("/api/admin/users", methods=["GET"])
@endpoint(tool="admin", level="view", query=UserQuery)
def list_admin_users(ctx, query: UserQuery):
    """Users, filtered by search (name, email), squad, access level; active only unless asked."""
    return {"users": service.list_users(ctx, query=query)}


@bp.route("/api/admin/users", methods=["POST"])
@endpoint(tool="admin", level="manage", body=UserCreate, status=201, errors=(409,))
def create_admin_user(ctx, body: UserCreate):
    """Create a user (409 when the email exists, case-insensitively)."""
    return {"user": service.create_user(ctx, data=body)}


@bp.route("/api/admin/users/{user_id}", methods=["GET"])
@endpoint(tool="admin", level="view")
def get_admin_user(ctx, user_id: str):
    """A user with effective permissions and overrides."""
    return service_permissions.user_detail(ctx, user_id=user_id)


@bp.route("/api/admin/users/{user_id}", methods=["PUT"])
@endpoint(tool="admin", level="manage", body=UserUpdate, errors=(409,))
def update_admin_user(ctx, user_id: str, body: UserUpdate):
    """Update any field of a user, is_active included."""
    return {"user": service.update_user(ctx, user_id=user_id, data=body)}


@bp.route("/api/admin/users/{user_id}/permissions", methods=["PUT"])
@endpoint(tool="admin", level="manage", body=UserPermissionsUpdate)
def update_admin_user_permissions(ctx, user_id: str, body: UserPermissionsUpdate):
    """Set per-tool overrides for a user (null removes one); answers the effective permissions."""
    return service_permissions.set_user_permissions(ctx, user_id=user_id, levels=body.permissions)


@bp.route("/api/admin/squads", methods=["GET"])
@endpoint(tool="admin", level="view")
def list_admin_squads(ctx):
    """Squads with their manager's name and active member count."""
    return {"squads": service_squads.list_squads(ctx)}


@bp.route("/api/admin/squads", methods=["POST"])
@endpoint(tool="admin", level="manage", body=SquadCreate, status=201)
def create_admin_squad(ctx, body: SquadCreate):
    """Create a squad."""
    return {"squad": service_squads.create_squad(ctx, data=body)}


@bp.route("/api/admin/squads/{squad_id}", methods=["PUT"])
@endpoint(tool="admin", level="manage", body=SquadUpdate)
def update_admin_squad(ctx, squad_id: str, body: SquadUpdate):
    """Update a squad."""
    return {"squad": service_squads.update_squad(ctx, squad_id=squad_id, data=body)}


@bp.route("/api/admin/squads/{squad_id}", methods=["DELETE"])
@endpoint(tool="admin", level="manage")
def delete_admin_squad(ctx, squad_id: str):
    """Delete a squad; its members stay, without a squad."""
    service_squads.delete_squad(ctx, squad_id=squad_id)
    return {"ok": True}
