"""multipart/form-data request bodies, parsed with python-multipart (binary-safe, streaming).

    form = read_form(ctx.request, max_bytes=...)     # in api.py: HTTP stays in the route layer
    part = form.file("file")                         # FormPart(name, filename, content_type, body)
    page_id = form.value("pageId")

Malformed bodies, a missing boundary or a body past `max_bytes` answer the decisions.md error body
(400, 413), never a 500.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import BadRequest, PayloadTooLarge

MAX_PARTS = 20


@dataclass
class FormPart:
    name: str
    filename: str | None
    content_type: str | None
    body: bytes


@dataclass
class Form:
    parts: list[FormPart] = field(default_factory=list)

    def file(self, name: str) -> FormPart | None:
        """The first part named `name` that carries a file name, else the first part of that name."""
        named = [part for part in self.parts if part.name == name]
        return next((part for part in named if part.filename is not None), named[0] if named else None)

    def value(self, name: str) -> str | None:
        part = next((part for part in self.parts if part.name == name), None)
        return None if part is None else part.body.decode("utf-8", "replace")


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("utf-8", "replace")


def parse_form(body: bytes, content_type: str | None) -> Form:
    # imported on first use: a function that never reads an upload does not load the parser (cold start)
    from python_multipart.multipart import MultipartParser, parse_options_header

    kind, options = parse_options_header(content_type or "")
    if kind != b"multipart/form-data":
        raise BadRequest("Upload must be multipart/form-data")
    boundary = options.get(b"boundary")
    if not boundary or len(boundary) > 200:
        raise BadRequest("multipart/form-data needs a boundary")

    form = Form()
    state: dict = {}

    def on_part_begin():
        state.update(headers={}, chunks=[], field=b"", value=b"")

    def on_header_field(data, start, end):
        state["field"] += data[start:end]

    def on_header_value(data, start, end):
        state["value"] += data[start:end]

    def on_header_end():
        state["headers"][state["field"].lower()] = state["value"]
        state["field"], state["value"] = b"", b""

    def on_part_data(data, start, end):
        state["chunks"].append(data[start:end])

    def on_part_end():
        disposition, params = parse_options_header(state["headers"].get(b"content-disposition", b""))
        if disposition != b"form-data":
            raise BadRequest("Malformed multipart body: each part needs Content-Disposition: form-data")
        if len(form.parts) >= MAX_PARTS:
            raise BadRequest(f"A form holds at most {MAX_PARTS} parts")
        declared = state["headers"].get(b"content-type")
        form.parts.append(FormPart(
            name=_text(params.get(b"name")) or "", filename=_text(params.get(b"filename")),
            content_type=parse_options_header(declared)[0].decode("latin-1") if declared else None,
            body=b"".join(state["chunks"])))

    parser = MultipartParser(boundary, callbacks={
        "on_part_begin": on_part_begin, "on_part_data": on_part_data, "on_part_end": on_part_end,
        "on_header_field": on_header_field, "on_header_value": on_header_value, "on_header_end": on_header_end,
    })
    try:
        parser.write(body)
        parser.finalize()
    except BadRequest:
        raise
    except Exception as exc:  # python-multipart's MultipartParseError and friends
        raise BadRequest("Malformed multipart body") from exc
    if not form.parts:
        raise BadRequest("Malformed multipart body: no parts")
    return form


def read_form(request, *, max_bytes: int) -> Form:
    """The request's multipart body, refused with 413 past `max_bytes`."""
    body = request.raw_body or b""
    if isinstance(body, str):
        body = body.encode("utf-8")
    if len(body) > max_bytes:
        raise PayloadTooLarge(f"The upload exceeds {max_bytes // (1024 * 1024)} MB")
    headers = request.headers or {}
    return parse_form(body, headers.get("content-type") or headers.get("Content-Type"))
