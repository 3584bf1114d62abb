"""Pages routes: the page tree, favourites, AI editing, discussions, uploads and versions."""
from chalice import Blueprint, Response

from chalicelib.core.http import endpoint, file_response, redirect_response
from chalicelib.core.multipart import read_form
from chalicelib.core.schemas import OkResponse, many, one, paged

from . import service, service_ai, service_discussions, service_uploads, service_versions
from .schemas import (AICommand, CommentCreate, CommentCreated, CommentUpdate, CopilotAnswer, CopilotRequest,
                      DiscussionCreate, DiscussionCreated, DiscussionRead, FavouriteToggled, PageCreate, PageFullRead,
                      PageListQuery, PageRead, PageUpdate, PageVersionCreated, PageVersionFullRead,
                      PageVersionListQuery, PageVersionRead, PresignRead, ResolveToggled, UploadConfirm, UploadPresign,
                      UploadRead)


bp = Blueprint(__name__)
UPLOAD_FORM = {"type": "object", "required": ["file"], "properties": {
    "file": {"type": "string", "format": "binary", "description": "the file (at most 10 MB)"},
    "pageId": {"type": "string", "maxLength": 64, "description": "the page's folder (default: general)"}}}


# --- pages -----------------------------------------------------------------------------------

@bp.route("/api/pages", methods=["GET"])
@endpoint(tool="pages", level="view", query=PageListQuery, response=paged("pages", PageRead))
def list_pages(ctx, query: PageListQuery):
    """List pages: standalone, search (at most 50 per request), favourites, an entity's pages or archived
    pages (`limit` at most 500 and `offset`, with `total`)."""
    return service.list_pages(ctx, query=query).body("pages")


@bp.route("/api/pages", methods=["POST"])
@endpoint(tool="pages", level="update", body=PageCreate, status=201, errors=(409,), response=one("page", PageFullRead))
def create_page(ctx, body: PageCreate):
    """Create a page at the next position under its parent."""
    return {"page": service.create_page(ctx, data=body)}


@bp.route("/api/pages/{page_id}", methods=["GET"])
@endpoint(tool="pages", level="view", errors=(404,), response=one("page", PageFullRead))
def get_page(ctx, page_id: str):
    """A page with its content."""
    return {"page": service.get_page(ctx, page_id=page_id)}


@bp.route("/api/pages/{page_id}", methods=["PATCH"])
@endpoint(tool="pages", level="update", body=PageUpdate, errors=(404, 409), response=one("page", PageFullRead))
def update_page(ctx, page_id: str, body: PageUpdate):
    """Change a page's content, layout flags, archive, publish, lock or place in the tree."""
    return {"page": service.update_page(ctx, page_id=page_id, data=body)}


@bp.route("/api/pages/{page_id}", methods=["DELETE"])
@endpoint(tool="pages", level="manage", errors=(404,), response=OkResponse)
def delete_page(ctx, page_id: str):
    """Archive a page; its children move to the root."""
    service.delete_page(ctx, page_id=page_id)
    return {"ok": True}


@bp.route("/api/pages/{page_id}/favourite", methods=["POST"])
@endpoint(tool="pages", level="view", errors=(404,), response=FavouriteToggled)
def toggle_favourite(ctx, page_id: str):
    """Toggle the page in the caller's favourites."""
    return {"is_favourited": service.toggle_favourite(ctx, page_id=page_id)}


# --- AI editing ------------------------------------------------------------------------------

@bp.route("/api/pages/ai/command", methods=["POST"])
@endpoint(tool="pages", level="update", body=AICommand, response_content="text/event-stream", errors=(429, 502, 503, 504))
def ai_command(ctx, body: AICommand):
    """Edit, rewrite or generate editor content; answers a UI message stream."""
    return Response(body=service_ai.command(ctx, data=body), status_code=200, headers=dict(service_ai.STREAM_HEADERS))


@bp.route("/api/pages/ai/copilot", methods=["POST"])
@endpoint(tool="pages", level="update", body=CopilotRequest, errors=(408, 429, 502, 503, 504), response=CopilotAnswer)
def ai_copilot(ctx, body: CopilotRequest):
    """A short inline completion (at most 50 tokens)."""
    return service_ai.copilot(ctx, data=body)


# --- discussions -----------------------------------------------------------------------------

@bp.route("/api/pages/{page_id}/discussions", methods=["GET"])
@endpoint(tool="pages", level="view", errors=(404,), response=many("discussions", DiscussionRead))
def list_discussions(ctx, page_id: str):
    """A page's discussions with their comments."""
    return {"discussions": service_discussions.list_discussions(ctx, page_id=page_id)}


@bp.route("/api/pages/{page_id}/discussions", methods=["POST"])
@endpoint(tool="pages", level="update", body=DiscussionCreate, status=201, errors=(404, 409),
          response=one("discussion", DiscussionCreated))
def create_discussion(ctx, page_id: str, body: DiscussionCreate):
    """Open a discussion on a passage, with its first comment when given (at most 500 per page)."""
    return {"discussion": service_discussions.create_discussion(ctx, page_id=page_id, data=body)}


@bp.route("/api/pages/{page_id}/discussions/{discussion_id}", methods=["DELETE"])
@endpoint(tool="pages", level="manage", errors=(404,), response=OkResponse)
def delete_discussion(ctx, page_id: str, discussion_id: str):
    """Delete a discussion and its comments."""
    service_discussions.delete_discussion(ctx, page_id=page_id, discussion_id=discussion_id)
    return {"ok": True}


@bp.route("/api/pages/{page_id}/discussions/{discussion_id}/resolve", methods=["POST"])
@endpoint(tool="pages", level="update", errors=(404,), response=ResolveToggled)
def resolve_discussion(ctx, page_id: str, discussion_id: str):
    """Toggle a discussion's resolved flag."""
    return {"is_resolved": service_discussions.toggle_resolved(ctx, page_id=page_id, discussion_id=discussion_id)}


@bp.route("/api/pages/{page_id}/discussions/{discussion_id}/comments", methods=["POST"])
@endpoint(tool="pages", level="update", body=CommentCreate, status=201, errors=(404, 409),
          response=one("comment", CommentCreated))
def add_comment(ctx, page_id: str, discussion_id: str, body: CommentCreate):
    """Reply in a discussion (at most 500 comments per discussion)."""
    return {"comment": service_discussions.add_comment(ctx, page_id=page_id, discussion_id=discussion_id, data=body)}


@bp.route("/api/pages/{page_id}/discussions/{discussion_id}/comments/{comment_id}", methods=["PATCH"])
@endpoint(tool="pages", level="update", body=CommentUpdate, errors=(403, 404), response=OkResponse)
def edit_comment(ctx, page_id: str, discussion_id: str, comment_id: str, body: CommentUpdate):
    """Edit a comment (marks it edited)."""
    service_discussions.edit_comment(ctx, page_id=page_id, discussion_id=discussion_id, comment_id=comment_id,
                                     data=body)
    return {"ok": True}


@bp.route("/api/pages/{page_id}/discussions/{discussion_id}/comments/{comment_id}", methods=["DELETE"])
@endpoint(tool="pages", level="manage", errors=(404,), response=OkResponse)
def delete_comment(ctx, page_id: str, discussion_id: str, comment_id: str):
    """Delete a comment."""
    service_discussions.delete_comment(ctx, page_id=page_id, discussion_id=discussion_id, comment_id=comment_id)
    return {"ok": True}


# --- uploads ---------------------------------------------------------------------------------

@bp.route("/api/pages/upload", methods=["POST"])
@endpoint(tool="pages", level="update", request_content="multipart/form-data", request_schema=UPLOAD_FORM,
          errors=(413, 415), response=UploadRead)
def upload_file(ctx):
    """Upload a media file (multipart/form-data: file, pageId)."""
    form = read_form(ctx.request, max_bytes=service_uploads.MAX_UPLOAD_BYTES + service_uploads.MULTIPART_OVERHEAD)
    return service_uploads.upload(ctx, file=form.file("file"), page_id=form.value("pageId"))


@bp.route("/api/pages/upload/presign", methods=["POST"])
@endpoint(tool="pages", level="update", body=UploadPresign, errors=(409, 413, 415), response=PresignRead)
def presign_upload(ctx, body: UploadPresign):
    """A presigned POST straight to the bucket (S3 storage), after the type and size checks."""
    return service_uploads.presign(ctx, data=body)


@bp.route("/api/pages/upload/confirm", methods=["POST"])
@endpoint(tool="pages", level="update", body=UploadConfirm, errors=(404, 413, 415), response=UploadRead)
def confirm_upload(ctx, body: UploadConfirm):
    """Confirm a direct upload: the stored object's size and signature bytes are checked."""
    return service_uploads.confirm(ctx, data=body)


@bp.route("/api/pages/uploads/pages/{page_id}/{file_name}", methods=["GET"])
@endpoint(auth="public", response_content="application/octet-stream", errors=(302, 304, 404))
def serve_upload(ctx, page_id: str, file_name: str):
    """An uploaded file (public, cached for a year); with S3 storage a redirect to a short-lived URL."""
    served = service_uploads.serve(ctx, page_id=page_id, file_name=file_name,
                                   if_none_match=ctx.header("If-None-Match"))
    if served.redirect:
        return redirect_response(served.redirect, headers=served.headers)
    return file_response(ctx.request, served.body, served.status, served.headers)


# --- versions --------------------------------------------------------------------------------

@bp.route("/api/pages/{page_id}/versions", methods=["GET"])
@endpoint(tool="pages", level="view", query=PageVersionListQuery, errors=(404,),
          response=paged("versions", PageVersionRead))
def list_versions(ctx, page_id: str, query: PageVersionListQuery):
    """A page's versions, newest first: at most 50 per request (`limit` and `offset`, with `total`)."""
    return service_versions.list_versions(ctx, page_id=page_id, query=query).body("versions")


@bp.route("/api/pages/{page_id}/versions", methods=["POST"])
@endpoint(tool="pages", level="update", status=201, errors=(404, 409), response=one("version", PageVersionCreated))
def create_version(ctx, page_id: str):
    """Snapshot the page's title and rich content."""
    return {"version": service_versions.create_version(ctx, page_id=page_id)}


@bp.route("/api/pages/{page_id}/versions/{version_id}", methods=["GET"])
@endpoint(tool="pages", level="view", errors=(404,), response=one("version", PageVersionFullRead))
def get_version(ctx, page_id: str, version_id: str):
    """A version with its rich content."""
    return {"version": service_versions.get_version(ctx, page_id=page_id, version_id=version_id)}


@bp.route("/api/pages/{page_id}/versions/{version_id}/restore", methods=["POST"])
@endpoint(tool="pages", level="update", errors=(404, 409), response=OkResponse)
def restore_version(ctx, page_id: str, version_id: str):
    """Restore a version, saving the current state as a new version first."""
    service_versions.restore_version(ctx, page_id=page_id, version_id=version_id)
    return {"ok": True}
