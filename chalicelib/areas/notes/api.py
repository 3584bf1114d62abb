"""Notes on many resource types (view permission of the tool that owns the resource type, checked per type)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, many

from . import service
from .schemas import NoteCreate, NoteCreated, NoteRead, NoteUpdate

bp = Blueprint(__name__)


@bp.route("/api/notes/{resource_type}/{record_id}", methods=["GET"])
@endpoint(errors=(400, 403, 404), response=many("notes", NoteRead))
def list_notes(ctx, resource_type: str, record_id: str):
    """The notes of a record that the caller may read, newest first (at most 500)"""
    return {"notes": service.list_notes(ctx, resource_type=resource_type, resource_id=record_id)}


@bp.route("/api/notes/{resource_type}/{record_id}", methods=["POST"])
@endpoint(body=NoteCreate, status=201, errors=(400, 403, 404), response=NoteCreated)
def create_note(ctx, resource_type: str, record_id: str, body: NoteCreate):
    """Add a note (or a reply with parent_id); mentioned users are notified with a deep link"""
    return {"id": service.create_note(ctx, resource_type=resource_type, resource_id=record_id, data=body)}


@bp.route("/api/notes/{note_id}", methods=["PUT"])
@endpoint(body=NoteUpdate, errors=(403, 404), response=OkResponse)
def update_note(ctx, note_id: str, body: NoteUpdate):
    """Edit a note's content and visibility (its author or an executive)"""
    service.update_note(ctx, note_id=note_id, data=body)
    return {"ok": True}


@bp.route("/api/notes/{note_id}", methods=["DELETE"])
@endpoint(errors=(403, 404), response=OkResponse)
def delete_note(ctx, note_id: str):
    """Delete a note and its replies (its author, or a holder of manage on the record's tool)"""
    service.delete_note(ctx, note_id=note_id)
    return {"ok": True}
