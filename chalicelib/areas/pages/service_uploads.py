"""Page media uploads: multipart parsing, size and type limits, file signatures, storage and serving.

Keys are `pages/{pageId}/{uuid}.{ext}` and the public URL is `/api/pages/uploads/{key}`. The
extension comes from the accepted MIME type, never from the client's file name.
"""
from __future__ import annotations

import email.parser
import email.policy
import email.utils
import mimetypes
import re
import uuid
from dataclasses import dataclass

from chalice import Response

from chalicelib.core import storage
from chalicelib.core.errors import BadRequest, NotFound, PayloadTooLarge, UnsupportedMediaType

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
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"


@dataclass
class FormPart:
    name: str
    filename: str | None
    content_type: str | None
    body: bytes


def _boundary(content_type: str | None) -> bytes:
    if not content_type:
        raise BadRequest("Upload must be multipart/form-data")
    header = email.parser.HeaderParser(policy=email.policy.HTTP).parsestr(f"Content-Type: {content_type}\r\n\r\n")
    if header.get_content_type() != "multipart/form-data":
        raise BadRequest("Upload must be multipart/form-data")
    boundary = header.get_param("boundary")
    if not boundary or len(boundary) > 200:
        raise BadRequest("multipart/form-data needs a boundary")
    return str(boundary).encode("latin-1", "replace")


def _text(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, tuple):  # RFC 2231 (charset, language, value)
        value = email.utils.collapse_rfc2231_value(value)
    # Browsers send raw UTF-8 in quoted file names; the header parser keeps such bytes as surrogates.
    return str(value).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def parse_multipart(body: bytes, content_type: str | None) -> list[FormPart]:
    """RFC 7578 form data: each part after `--boundary`, headers up to a blank line, the body up to
    the CRLF before the next delimiter. Binary-safe: bodies are sliced from the raw bytes."""
    delimiter = b"\r\n--" + _boundary(content_type)
    data = b"\r\n" + body
    start = data.find(delimiter)
    if start < 0:
        raise BadRequest("Malformed multipart body: boundary not found")
    parts: list[FormPart] = []
    position = start + len(delimiter)
    while True:
        if data[position:position + 2] == b"--":
            break  # closing delimiter
        line_end = data.find(b"\r\n", position)
        if line_end < 0:
            raise BadRequest("Malformed multipart body")
        header_end = data.find(b"\r\n\r\n", line_end)
        if header_end < 0:
            raise BadRequest("Malformed multipart body: part headers not terminated")
        raw_headers = data[line_end + 2:header_end + 4]
        next_delimiter = data.find(delimiter, header_end + 4)
        if next_delimiter < 0:
            raise BadRequest("Malformed multipart body: closing boundary missing")
        headers = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(raw_headers, headersonly=True)
        disposition = headers.get("Content-Disposition")
        if disposition is None or headers.get_content_disposition() != "form-data":
            raise BadRequest("Malformed multipart body: each part needs Content-Disposition: form-data")
        name = _text(headers.get_param("name", header="content-disposition"))
        filename = _text(headers.get_param("filename", header="content-disposition"))
        parts.append(FormPart(name=name or "", filename=filename,
                              content_type=headers.get_content_type() if headers.get("Content-Type") else None,
                              body=data[header_end + 4:next_delimiter]))
        position = next_delimiter + len(delimiter)
    return parts


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


def _looks_like_svg(body: bytes) -> bool:
    head = body[:4096].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<?xml", b"<svg", b"<!--", b"<!doctype svg")) and b"<svg" in body[:65536].lower()


def accepted_type(part: FormPart) -> str:
    declared = (part.content_type or "").lower()
    if declared in ("", "application/octet-stream"):
        declared = (mimetypes.guess_type(part.filename or "")[0] or declared).lower()
    declared = ALIASES.get(declared, declared)
    if declared not in EXTENSIONS:
        raise UnsupportedMediaType(f"File type {declared or 'unknown'} is not allowed")
    if declared in ("image/jpeg", "image/png", "image/gif", "image/webp") and _signature_type(part.body) != declared:
        raise UnsupportedMediaType(f"File content is not a valid {declared} image")
    if declared == "image/svg+xml" and not _looks_like_svg(part.body):
        raise UnsupportedMediaType("File content is not an SVG image")
    return declared


def upload(ctx) -> dict:
    request = ctx.request
    body = request.raw_body or b""
    if isinstance(body, str):
        body = body.encode("utf-8")
    if len(body) > MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD:
        raise PayloadTooLarge("File exceeds the 10 MB upload limit")
    parts = parse_multipart(body, ctx.header("Content-Type"))
    files = [p for p in parts if p.name == "file" and p.filename is not None] or [p for p in parts if p.name == "file"]
    if not files:
        raise BadRequest("A file is required", details=[{"field": "file", "message": "Field required"}])
    part = files[0]
    if len(part.body) > MAX_UPLOAD_BYTES:
        raise PayloadTooLarge("File exceeds the 10 MB upload limit")
    if not part.body:
        raise BadRequest("The file is empty", details=[{"field": "file", "message": "File is empty"}])
    page_field = next((p for p in parts if p.name == "pageId"), None)
    page_id = page_field.body.decode("utf-8", "replace").strip() if page_field else ""
    page_id = page_id or "general"
    if not PAGE_SEGMENT.match(page_id):
        raise BadRequest("pageId may hold letters, digits, '-' and '_' only (at most 64)",
                         details=[{"field": "pageId", "message": "Invalid value"}])
    content_type = accepted_type(part)
    key = f"pages/{page_id}/{uuid.uuid4()}.{EXTENSIONS[content_type]}"
    storage.put(key, part.body, content_type)
    url = f"/api/pages/uploads/{key}"
    name = (part.filename or "").replace("\\", "/").rsplit("/", 1)[-1] or key.rsplit("/", 1)[-1]
    return {"url": url, "appUrl": url, "name": name, "size": len(part.body), "type": content_type, "key": key}


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    bare = etag.strip().removeprefix("W/")
    for candidate in header.split(","):
        candidate = candidate.strip()
        if candidate == "*" or candidate.removeprefix("W/") == bare:
            return True
    return False


def serve(ctx, *, page_id: str, file_name: str) -> Response:
    if not PAGE_SEGMENT.match(page_id) or not FILE_SEGMENT.match(file_name):
        raise NotFound("File not found")
    stored = storage.get(f"pages/{page_id}/{file_name}")
    if stored is None:
        raise NotFound("File not found")
    headers = {"Cache-Control": CACHE_CONTROL, "ETag": stored.etag, "X-Content-Type-Options": "nosniff"}
    if _etag_matches(ctx.header("If-None-Match"), stored.etag):
        return Response(body="", status_code=304, headers=headers)
    content_type = stored.content_type or "application/octet-stream"
    headers["Content-Type"] = content_type
    if content_type == "image/svg+xml":
        # An SVG opened directly could run script in the API's origin: sandbox it and download it.
        headers["Content-Security-Policy"] = SVG_POLICY
        headers["Content-Disposition"] = f'attachment; filename="{file_name}"'
    return Response(body=stored.body, status_code=200, headers=headers)
