"""Page media uploads: size and type limits, file signatures, storage and serving.

Keys are `pages/{pageId}/{uuid}.{ext}` and the public URL is `/api/pages/uploads/{key}`. The
extension comes from the accepted MIME type, never from the client's file name. The service takes
bytes and answers data; api.py parses the form (core.multipart) and builds the HTTP answers.

With S3 storage, files never pass through a Lambda function: `presign` issues a presigned POST
after the type and size checks, `confirm` checks the stored object's signature bytes and size, and a
download is a redirect to a short-lived presigned GET. The local folder serves bytes itself.
"""
from __future__ import annotations

import mimetypes
import re
import uuid
from dataclasses import dataclass

from chalicelib.core import storage
from chalicelib.core.errors import BadRequest, Conflict, NotFound, PayloadTooLarge, UnsupportedMediaType
from chalicelib.core.multipart import FormPart

MAX_UPLOAD_BYTES = 10 * 1024 * 1024
MULTIPART_OVERHEAD = 64 * 1024  # headers and other fields allowed on top of the file
CACHE_CONTROL = "public, max-age=31536000, immutable"
EXTENSIONS = {
    "image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp", "image/svg+xml": "svg",
    "video/mp4": "mp4", "video/webm": "webm", "audio/mpeg": "mp3", "audio/wav": "wav", "audio/ogg": "ogg",
    "application/pdf": "pdf",
}
ALIASES = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg", "audio/mp3": "audio/mpeg",
           "audio/x-wav": "audio/wav", "audio/wave": "audio/wav", "audio/vnd.wave": "audio/wav"}
PAGE_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
FILE_SEGMENT = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(%s)$"
                          % "|".join(sorted(set(EXTENSIONS.values()))))
# Every file served from the API's own origin (local folder storage) is sandboxed, whatever its type: a PDF, a media
# file or an image opened directly runs no script and reaches nothing in the API's origin (session 22 audit).
SANDBOX_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
TYPE_OF_EXTENSION = {extension: content_type for content_type, extension in EXTENSIONS.items()}
KEY = re.compile(r"^pages/[A-Za-z0-9][A-Za-z0-9_-]{0,63}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
                 r"\.(?P<ext>%s)$" % "|".join(sorted(set(EXTENSIONS.values()))))


def _signature_type(body: bytes) -> str | None:
    if body.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if body.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if body[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if len(body) >= 12 and body[:4] == b"RIFF" and body[8:12] == b"WEBP":
        return "image/webp"
    return None


# An SVG's `<svg` tag must come within its first SVG_SNIFF_BYTES (after a prolog, comments, a doctype): the same
# window for POST /api/pages/upload and for confirm, which fetches that many bytes of an SVG (session 24).
SVG_SNIFF_BYTES = 64 * 1024
SIGNATURE_BYTES = 4096  # what confirm fetches of any other type (the magic numbers are in the first bytes)


def _looks_like_svg(body: bytes) -> bool:
    head = body[:4096].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<?xml", b"<svg", b"<!--", b"<!doctype svg")) and b"<svg" in body[:SVG_SNIFF_BYTES].lower()


def declared_type(content_type: str | None, filename: str | None) -> str:
    """The allowed MIME type the client declares (or its file name suggests), else 415."""
    declared = (content_type or "").lower()
    if declared in ("", "application/octet-stream"):
        declared = (mimetypes.guess_type(filename or "")[0] or declared).lower()
    declared = ALIASES.get(declared, declared)
    if declared not in EXTENSIONS:
        raise UnsupportedMediaType(f"File type {declared or 'unknown'} is not allowed")
    return declared


def check_signature(declared: str, head: bytes) -> None:
    """The file's first bytes match its type (images by magic number, SVG by its markup), else 415."""
    if declared in ("image/jpeg", "image/png", "image/gif", "image/webp") and _signature_type(head) != declared:
        raise UnsupportedMediaType(f"File content is not a valid {declared} image")
    if declared == "image/svg+xml" and not _looks_like_svg(head):
        raise UnsupportedMediaType("File content is not an SVG image")


def accepted_type(part: FormPart) -> str:
    declared = declared_type(part.content_type, part.filename)
    check_signature(declared, part.body)
    return declared


def _page_segment(page_id: str | None) -> str:
    page_id = (page_id or "").strip() or "general"
    if not PAGE_SEGMENT.fullmatch(page_id):
        raise BadRequest("pageId may hold letters, digits, '-' and '_' only (at most 64)",
                         details=[{"field": "pageId", "message": "Invalid value"}])
    return page_id


def _display_name(filename: str | None, key: str) -> str:
    return (filename or "").replace("\\", "/").rsplit("/", 1)[-1] or key.rsplit("/", 1)[-1]


def _record(key: str, name: str, size: int, content_type: str) -> dict:
    url = f"/api/pages/uploads/{key}"
    return {"url": url, "appUrl": url, "name": name, "size": size, "type": content_type, "key": key}


def upload(ctx, *, file: FormPart | None, page_id: str | None) -> dict:
    """Store an uploaded file (through the API: the local folder, or S3 for files under the gateway's
    payload limit)."""
    if file is None:
        raise BadRequest("A file is required", details=[{"field": "file", "message": "Field required"}])
    if len(file.body) > MAX_UPLOAD_BYTES:
        raise PayloadTooLarge("File exceeds the 10 MB upload limit")
    if not file.body:
        raise BadRequest("The file is empty", details=[{"field": "file", "message": "File is empty"}])
    page = _page_segment(page_id)
    content_type = accepted_type(file)
    key = f"pages/{page}/{uuid.uuid4()}.{EXTENSIONS[content_type]}"
    storage.put(key, file.body, content_type)
    return _record(key, _display_name(file.filename, key), len(file.body), content_type)


PRESIGN_SECONDS = 600
UPLOADER = "uploader"  # object metadata (x-amz-meta-uploader) naming who presigned the upload
DOWNLOAD_SECONDS = 300


def presign(ctx, *, data) -> dict:
    """A presigned POST straight to the bucket, after the same type and size checks as an upload."""
    if not storage.direct():
        raise Conflict("Direct uploads need S3 storage (UPLOADS_BUCKET); upload through POST /api/pages/upload")
    content_type = declared_type(data.content_type, data.file_name)
    if data.size > MAX_UPLOAD_BYTES:
        raise PayloadTooLarge("File exceeds the 10 MB upload limit")
    page = _page_segment(data.page_id)
    key = f"pages/{page}/{uuid.uuid4()}.{EXTENSIONS[content_type]}"
    # the uploader rides with the object (a required, signed form field): only they may confirm it (session 24)
    post = storage.presign_post(key, content_type, MAX_UPLOAD_BYTES, PRESIGN_SECONDS,
                                metadata={UPLOADER: str(ctx.user_id)})
    return {"key": key, "url": post["url"], "fields": post["fields"], "expires_in": PRESIGN_SECONDS,
            "max_bytes": MAX_UPLOAD_BYTES}


def confirm(ctx, *, data) -> dict:
    """After the browser's POST to the bucket: the object exists, is within the limit and its first bytes
    match its type (else it is deleted and 415/413); answers what an upload answers. Only the caller's own
    presigned upload: an object another user uploaded, or one with no uploader (stored by POST /api/pages/upload,
    or before session 24), is 404 and left untouched - keys are public, in every served file's URL."""
    match = KEY.match(data.key or "")
    if match is None:
        raise BadRequest("Not an upload key", details=[{"field": "key", "message": "Invalid value"}])
    content_type = TYPE_OF_EXTENSION[match.group("ext")]
    found = storage.head(data.key, SVG_SNIFF_BYTES if content_type == "image/svg+xml" else SIGNATURE_BYTES)
    if found is None:
        raise NotFound("File not found")
    size, first, _stored_type, metadata = found
    if metadata.get(UPLOADER) != str(ctx.user_id):
        raise NotFound("File not found")
    try:
        if size > MAX_UPLOAD_BYTES:
            raise PayloadTooLarge("File exceeds the 10 MB upload limit")
        if size == 0:
            raise BadRequest("The file is empty", details=[{"field": "file", "message": "File is empty"}])
        check_signature(content_type, first)
    except (PayloadTooLarge, BadRequest, UnsupportedMediaType):
        storage.delete(data.key)
        raise
    return _record(data.key, _display_name(data.file_name, data.key), size, content_type)


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    bare = etag.strip().removeprefix("W/")
    for candidate in header.split(","):
        candidate = candidate.strip()
        if candidate == "*" or candidate.removeprefix("W/") == bare:
            return True
    return False


@dataclass
class Served:
    """What a download answers: a redirect to the bucket, a 304, or the file itself."""

    status: int
    headers: dict
    body: bytes = b""
    redirect: str | None = None


def serve(ctx, *, page_id: str, file_name: str, if_none_match: str | None) -> Served:
    if not PAGE_SEGMENT.fullmatch(page_id) or not FILE_SEGMENT.fullmatch(file_name):
        raise NotFound("File not found")
    key = f"pages/{page_id}/{file_name}"
    if storage.direct():
        if storage.head(key, first_bytes=1) is None:
            raise NotFound("File not found")
        svg = file_name.endswith(".svg")  # downloaded, never rendered (and on the bucket's origin anyway)
        url = storage.presign_get(key, DOWNLOAD_SECONDS, download_name=file_name if svg else None,
                                  cache_control=CACHE_CONTROL)  # the file itself: a year, as served locally
        return Served(302, {"Location": url, "Cache-Control": f"private, max-age={DOWNLOAD_SECONDS - 60}"},
                      redirect=url)
    stored = storage.get(key)
    if stored is None:
        raise NotFound("File not found")
    headers = {"Cache-Control": CACHE_CONTROL, "ETag": stored.etag, "X-Content-Type-Options": "nosniff",
               "Content-Security-Policy": SANDBOX_POLICY}
    if _etag_matches(if_none_match, stored.etag):
        return Served(304, headers)
    content_type = stored.content_type or "application/octet-stream"
    headers["Content-Type"] = content_type
    if content_type == "image/svg+xml":
        # An SVG opened directly could run script in the API's origin: besides the sandbox, it is downloaded.
        headers["Content-Disposition"] = f'attachment; filename="{file_name}"'
    return Served(200, headers, stored.body)
