"""Admin area routes: the caller, users, squads, the permission matrix and per-user overrides."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, many, one, paged

from . import service, service_permissions, service_squads
from .schemas import (MatrixRead, MatrixUpdate, MeRead, SquadCreate, SquadRead, SquadUpdate, UserCreate, UserDetail,
                      UserPermissionsRead, UserPermissionsUpdate, UserListQuery, UserRead, UserUpdate)

bp = Blueprint(__name__)


@bp.route("/api/me", methods=["GET"])
@endpoint(response=MeRead)
def get_me(ctx):
    """The caller's user record and effective permissions."""
    user, permissions = service.me(ctx)
    return {"user": user, "permissions": permissions}


@bp.route("/api/admin/permissions", methods=["GET"])
@endpoint(tool="admin", level="view", response=MatrixRead)
def get_permission_matrix(ctx):
    """The access-level matrix: a level per tool for each access level."""
    return {"matrix": service_permissions.get_matrix(ctx)}


@bp.route("/api/admin/permissions", methods=["PUT"])
@endpoint(tool="admin", level="manage", body=MatrixUpdate, response=MatrixRead)
def update_permission_matrix(ctx, body: MatrixUpdate):
    """Change any cells of the access-level matrix; answers the whole matrix."""
    return {"matrix": service_permissions.update_matrix(ctx, changes=body.matrix)}


@bp.route("/api/admin/users", methods=["GET"])
@endpoint(tool="admin", level="view", query=UserListQuery, response=paged("users", UserRead))
def list_admin_users(ctx, query: UserListQuery):
    """Users, filtered by search (name, email), squad, access level; active only unless asked (`limit` at
    most 500 and `offset`, with `total`)."""
    return service.list_users(ctx, query=query).body("users")


@bp.route("/api/admin/users", methods=["POST"])
@endpoint(tool="admin", level="manage", body=UserCreate, status=201, errors=(409,), response=one("user", UserRead))
def create_admin_user(ctx, body: UserCreate):
    """Create a user (409 when the email exists, case-insensitively)."""
    return {"user": service.create_user(ctx, data=body)}


@bp.route("/api/admin/users/{user_id}", methods=["GET"])
@endpoint(tool="admin", level="view", errors=(404,), response=UserDetail)
def get_admin_user(ctx, user_id: str):
    """A user with effective permissions and overrides."""
    user, permissions, overrides = service_permissions.user_detail(ctx, user_id=user_id)
    return {"user": user, "permissions": permissions, "overrides": overrides}


@bp.route("/api/admin/users/{user_id}", methods=["PUT"])
@endpoint(tool="admin", level="manage", body=UserUpdate, errors=(404, 409), response=one("user", UserRead))
def update_admin_user(ctx, user_id: str, body: UserUpdate):
    """Update any field of a user, is_active included."""
    return {"user": service.update_user(ctx, user_id=user_id, data=body)}


@bp.route("/api/admin/users/{user_id}/permissions", methods=["PUT"])
@endpoint(tool="admin", level="manage", body=UserPermissionsUpdate, errors=(404, 409),
          response=UserPermissionsRead)
def update_admin_user_permissions(ctx, user_id: str, body: UserPermissionsUpdate):
    """Set per-tool overrides for a user (null removes one); answers the effective permissions."""
    permissions, overrides = service_permissions.set_user_permissions(ctx, user_id=user_id, levels=body.permissions)
    return {"permissions": permissions, "overrides": overrides}


@bp.route("/api/admin/squads", methods=["GET"])
@endpoint(tool="admin", level="view", response=many("squads", SquadRead))
def list_admin_squads(ctx):
    """Squads with their manager's name and active member count (at most 500 squads exist)."""
    return {"squads": service_squads.list_squads(ctx)}


@bp.route("/api/admin/squads", methods=["POST"])
@endpoint(tool="admin", level="manage", body=SquadCreate, status=201, errors=(409,), response=one("squad", SquadRead))
def create_admin_squad(ctx, body: SquadCreate):
    """Create a squad."""
    return {"squad": service_squads.create_squad(ctx, data=body)}


@bp.route("/api/admin/squads/{squad_id}", methods=["PUT"])
@endpoint(tool="admin", level="manage", body=SquadUpdate, errors=(404, 409), response=one("squad", SquadRead))
def update_admin_squad(ctx, squad_id: str, body: SquadUpdate):
    """Update a squad."""
    return {"squad": service_squads.update_squad(ctx, squad_id=squad_id, data=body)}


@bp.route("/api/admin/squads/{squad_id}", methods=["DELETE"])
@endpoint(tool="admin", level="manage", errors=(404,), response=OkResponse)
def delete_admin_squad(ctx, squad_id: str):
    """Delete a squad; its members stay, without a squad."""
    service_squads.delete_squad(ctx, squad_id=squad_id)
    return {"ok": True}
