"""Notes on many resource types (view permission of the tool that owns the resource type, checked per type)."""
from chalice import Blueprint

from chalicelib.core.http import endpoint
from chalicelib.core.schemas import OkResponse, PageQuery, paged

from . import service
from .schemas import NoteCreate, NoteCreated, NoteRead, NoteUpdate

bp = Blueprint(__name__)


@bp.route("/api/notes/{resource_type}/{record_id}", methods=["GET"])
@endpoint(query=PageQuery, errors=(400, 403, 404), response=paged("notes", NoteRead))
def list_notes(ctx, resource_type: str, record_id: str, query: PageQuery):
    """The notes of a record that the caller may read, newest first (`limit` at most 500 and `offset`, with
    `total`; a page too large for one answer is cut to the notes that fit)"""
    return service.list_notes(ctx, resource_type=resource_type, resource_id=record_id, query=query).body("notes")


@bp.route("/api/notes/{resource_type}/{record_id}", methods=["POST"])
@endpoint(body=NoteCreate, status=201, errors=(400, 403, 404, 409, 429), response=NoteCreated)
def create_note(ctx, resource_type: str, record_id: str, body: NoteCreate):
    """Add a note (or a reply with parent_id; at most 500 on a record); mentioned users are notified with a deep
    link (at most 300 mentioned users an hour per sender)"""
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
