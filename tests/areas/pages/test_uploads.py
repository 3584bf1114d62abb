"""Uploads: multipart parsing, limits, file signatures, storage in S3 (moto), public serving and caching."""
import re
import struct
import zlib

import pytest

from tests.factories import grant, make_user

BOUNDARY = "----wmsTestBoundary7MA4YWxkTrZu0gW"
KEY = re.compile(r"^pages/(?P<page>[^/]+)/[0-9a-f-]{36}\.(?P<ext>[a-z0-9]+)$")


def png_bytes() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + bytes(range(256)) + b"\r\n--\r\n\xff\xd9"
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
SVG = b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


def multipart(*, filename="file.bin", content_type="application/octet-stream", data=b"", page_id=None,
              field="file") -> bytes:
    lines = []
    if page_id is not None:
        lines.append(f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="pageId"\r\n\r\n{page_id}\r\n'.encode())
    head = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
    if content_type:
        head += f"Content-Type: {content_type}\r\n"
    lines.append(head.encode("utf-8") + b"\r\n" + data + b"\r\n")
    lines.append(f"--{BOUNDARY}--\r\n".encode())
    return b"".join(lines)


def upload(api, user, body: bytes, *, content_type=f"multipart/form-data; boundary={BOUNDARY}"):
    return api.post("/api/pages/upload", as_=user, body=body, headers={"Content-Type": content_type})


class Followed:
    """The bucket's answer to a presigned GET (moto), shaped like an ApiResponse."""

    def __init__(self, raw) -> None:
        self.status = raw.status_code
        self.body = raw.content
        self.headers = {key.lower(): value for key, value in raw.headers.items()}


def fetch(api, url, **headers):
    """GET a served file as a browser would: a redirect to the bucket (S3 storage) is followed."""
    response = api.get(url, headers={"Accept": "*/*", **headers})
    if response.status == 302:
        import requests

        location = response.headers["location"]
        assert location.startswith("https://") and "Signature" in location or "X-Amz-Signature" in location
        return Followed(requests.get(location, timeout=10))
    return response


@pytest.fixture
def user(db):
    return make_user(db)


@pytest.mark.smoke
def test_png_upload_is_stored_and_served_publicly(api, user, aws):
    data = png_bytes()
    response = upload(api, user, multipart(filename="diagram.png", content_type="image/png", data=data,
                                           page_id="page-123"))
    assert response.status == 200, response
    out = response.json
    match = KEY.match(out["key"])
    assert match and match["page"] == "page-123" and match["ext"] == "png"
    assert out["url"] == out["appUrl"] == f"/api/pages/uploads/{out['key']}"
    assert (out["name"], out["size"], out["type"]) == ("diagram.png", len(data), "image/png")
    stored = aws["s3"].get_object(Bucket=aws["bucket"], Key=out["key"])
    assert stored["Body"].read() == data and stored["ContentType"] == "image/png"
    redirect = api.get(out["url"])  # no token: public; with S3 the bytes never pass through the API
    assert redirect.status == 302 and redirect.body == b""
    assert redirect.headers["cache-control"].startswith("private, max-age=")
    served = fetch(api, out["url"])
    assert served.status == 200 and served.body == data
    assert served.headers["cache-control"] == "public, max-age=31536000, immutable"  # the file: a year


def test_local_folder_serves_the_bytes_with_cache_headers(api, user):
    data = png_bytes()
    out = upload(api, user, multipart(filename="diagram.png", content_type="image/png", data=data)).json
    served = fetch(api, out["url"])
    assert served.status == 200
    assert served.body == data
    assert served.headers["content-type"] == "image/png"
    assert served.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert served.headers["etag"] and served.headers["x-content-type-options"] == "nosniff"
    assert served.headers["content-security-policy"] == "default-src 'none'; style-src 'unsafe-inline'; sandbox"


@pytest.mark.parametrize("accept", [None, "*/*", "application/json", "text/html,*/*;q=0.8"])
def test_a_file_is_served_whatever_the_accept_header(api, user, accept):
    data = png_bytes()
    out = upload(api, user, multipart(filename="a.png", content_type="image/png", data=data)).json
    served = api.get(out["url"], headers={} if accept is None else {"Accept": accept})
    assert served.status == 200 and served.body == data, served


def test_jpeg_upload_defaults_to_general_and_keeps_binary_intact(api, user, aws):
    response = upload(api, user, multipart(filename="photo.jpeg", content_type="image/jpeg", data=JPEG))
    assert response.status == 200, response
    assert response.json["key"].startswith("pages/general/") and response.json["key"].endswith(".jpg")
    assert response.json["type"] == "image/jpeg"
    served = fetch(api, response.json["url"])
    assert served.body == JPEG and served.headers["content-type"] == "image/jpeg"


def test_pdf_upload(api, user, aws):
    response = upload(api, user, multipart(filename="brief.pdf", content_type="application/pdf", data=PDF,
                                           page_id="general"))
    assert response.status == 200 and response.json["type"] == "application/pdf"
    assert response.json["key"].endswith(".pdf")
    served = fetch(api, response.json["url"])
    assert served.body == PDF and served.headers["content-type"] == "application/pdf"


def test_type_guessed_from_name_when_browser_sends_octet_stream(api, user, aws):
    response = upload(api, user, multipart(filename="clip.mp4", content_type="application/octet-stream",
                                           data=b"\x00\x00\x00\x18ftypmp42"))
    assert response.status == 200 and response.json["type"] == "video/mp4"


def test_cached_refetch_with_etag_is_304(api, user):
    url = upload(api, user, multipart(filename="a.png", content_type="image/png", data=png_bytes())).json["url"]
    etag = fetch(api, url).headers["etag"]
    again = fetch(api, url, **{"If-None-Match": etag})
    assert again.status == 304 and again.body == b""
    assert again.headers["etag"] == etag
    assert again.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert fetch(api, url, **{"If-None-Match": '"other", W/' + etag}).status == 304
    assert fetch(api, url, **{"If-None-Match": '"stale"'}).status == 200


def test_svg_from_the_bucket_is_a_download(api, user, aws):
    response = upload(api, user, multipart(filename="logo.svg", content_type="image/svg+xml", data=SVG))
    location = api.get(response.json["url"]).headers["location"]
    assert "response-content-disposition=attachment" in location
    assert fetch(api, response.json["url"]).body == SVG


def test_svg_is_served_so_it_cannot_run_script(api, user):
    response = upload(api, user, multipart(filename="logo.svg", content_type="image/svg+xml", data=SVG))
    assert response.status == 200 and response.json["key"].endswith(".svg")
    served = fetch(api, response.json["url"])
    assert served.status == 200 and served.body == SVG
    assert served.headers["content-type"] == "image/svg+xml"
    assert served.headers["content-security-policy"] == "default-src 'none'; style-src 'unsafe-inline'; sandbox"
    assert served.headers["content-disposition"].startswith("attachment")
    assert served.headers["x-content-type-options"] == "nosniff"


def test_oversized_file_is_413(api, user, aws):
    data = b"\x89PNG\r\n\x1a\n" + b"\x00" * (10 * 1024 * 1024)
    response = upload(api, user, multipart(filename="big.png", content_type="image/png", data=data))
    assert response.status == 413 and "error" in response.json


def test_file_of_exactly_10_mb_is_accepted(api, user, aws):
    data = b"%PDF-" + b"\x00" * (10 * 1024 * 1024 - 5)
    response = upload(api, user, multipart(filename="max.pdf", content_type="application/pdf", data=data))
    assert response.status == 200 and response.json["size"] == 10 * 1024 * 1024


@pytest.mark.parametrize("filename,content_type", [
    ("page.html", "text/html"), ("run.exe", "application/octet-stream"), ("doc.txt", "text/plain"),
])
def test_refused_type_is_415(api, user, aws, filename, content_type):
    response = upload(api, user, multipart(filename=filename, content_type=content_type, data=b"<b>hi</b>"))
    assert response.status == 415 and "error" in response.json


def test_png_name_over_non_image_bytes_is_refused(api, user, aws):
    response = upload(api, user, multipart(filename="evil.png", content_type="image/png",
                                           data=b"<html><script>alert(1)</script></html>"))
    assert response.status == 415
    jpeg_as_png = upload(api, user, multipart(filename="x.png", content_type="image/png", data=JPEG))
    assert jpeg_as_png.status == 415
    fake_svg = upload(api, user, multipart(filename="x.svg", content_type="image/svg+xml", data=b"\x00\x01binary"))
    assert fake_svg.status == 415


def test_malformed_uploads_are_400(api, user, aws):
    assert upload(api, user, b"no multipart here").status == 400
    assert upload(api, user, multipart(data=PDF), content_type="application/json").status == 400
    assert upload(api, user, multipart(filename="a.pdf", content_type="application/pdf", data=PDF,
                                       field="other")).status == 400
    assert upload(api, user, multipart(filename="a.pdf", content_type="application/pdf", data=PDF,
                                       page_id="../../etc")).status == 400
    assert upload(api, user, multipart(filename="a.pdf", content_type="application/pdf", data=b"")).status == 400


def test_missing_file_is_404(api, aws):
    response = fetch(api, "/api/pages/uploads/pages/general/00000000-0000-0000-0000-000000000000.png")
    assert response.status == 404 and response.json == {"error": "File not found"}
    assert fetch(api, "/api/pages/uploads/pages/general/not-a-key.png").status == 404


def test_upload_to_local_folder_without_bucket(api, user):
    response = upload(api, user, multipart(filename="a.gif", content_type="image/gif", data=b"GIF89a\x01\x00"))
    assert response.status == 200 and response.json["type"] == "image/gif"
    served = fetch(api, response.json["url"])
    assert served.body == b"GIF89a\x01\x00" and served.headers["content-type"] == "image/gif"


def test_upload_needs_pages_update_and_a_token(api, db, aws):
    viewer = make_user(db)
    grant(db, viewer, "pages", "view")
    body = multipart(filename="a.pdf", content_type="application/pdf", data=PDF)
    assert upload(api, viewer, body).status == 403
    response = api.post("/api/pages/upload", body=body,
                        headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
    assert response.status == 401


@pytest.mark.parametrize("content_type,data,ext", [
    ("image/webp", b"RIFF\x1a\x00\x00\x00WEBPVP8 ", "webp"),
    ("video/webm", b"\x1aE\xdf\xa3webm", "webm"),
    ("audio/mpeg", b"ID3\x03\x00mp3", "mp3"),
    ("audio/x-wav", b"RIFF\x00\x00\x00\x00WAVEfmt ", "wav"),
    ("audio/ogg", b"OggS\x00ogg", "ogg"),
])
def test_every_allowed_type_gets_its_extension(api, user, aws, content_type, data, ext):
    response = upload(api, user, multipart(filename="media", content_type=content_type, data=data))
    assert response.status == 200, response
    assert response.json["key"].endswith("." + ext)
    assert fetch(api, response.json["url"]).body == data


def test_non_ascii_file_name_is_returned(api, user, aws):
    response = upload(api, user, multipart(filename="résumé 2026.pdf", content_type="application/pdf", data=PDF))
    assert response.status == 200 and response.json["name"] == "résumé 2026.pdf"


# --- direct uploads to the bucket (issue 10 item 7) ----------------------------------------------

def post_to_bucket(presigned: dict, data: bytes, content_type: str) -> int:
    import requests

    answer = requests.post(presigned["url"], data=presigned["fields"],
                           files={"file": ("upload", data, content_type)}, timeout=10)
    return answer.status_code


def test_direct_upload_presign_post_then_confirm(api, user, aws):
    data = png_bytes()
    presign = api.post("/api/pages/upload/presign", as_=user,
                       json={"file_name": "big.png", "content_type": "image/png", "size": len(data), "page_id": "p-1"})
    assert presign.status == 200, presign
    out = presign.json
    assert KEY.match(out["key"]) and out["key"].startswith("pages/p-1/") and out["key"].endswith(".png")
    assert out["fields"]["Content-Type"] == "image/png" and out["fields"]["key"] == out["key"]
    assert out["max_bytes"] == 10 * 1024 * 1024 and out["expires_in"] > 0
    assert post_to_bucket(out, data, "image/png") in (200, 201, 204)
    confirmed = api.post("/api/pages/upload/confirm", as_=user, json={"key": out["key"], "file_name": "big.png"})
    assert confirmed.status == 200, confirmed
    assert confirmed.json == {"url": f"/api/pages/uploads/{out['key']}", "appUrl": f"/api/pages/uploads/{out['key']}",
                              "name": "big.png", "size": len(data), "type": "image/png", "key": out["key"]}
    assert fetch(api, confirmed.json["url"]).body == data


def test_presign_makes_the_upload_checks_first(api, user, aws):
    def presign(**body):
        return api.post("/api/pages/upload/presign", as_=user,
                        json={"content_type": "image/png", "size": 10, **body})

    assert presign(content_type="application/x-msdownload", file_name="x.exe").status == 415
    assert presign(size=10 * 1024 * 1024 + 1).status == 413
    assert presign(size=0).status == 400
    assert presign(page_id="../../etc").status == 400


def test_confirm_refuses_and_removes_an_object_whose_bytes_are_not_its_type(api, user, aws):
    out = api.post("/api/pages/upload/presign", as_=user,
                   json={"file_name": "fake.png", "content_type": "image/png", "size": 20}).json
    assert post_to_bucket(out, b"MZ\x90\x00 not an image at all", "image/png") in (200, 201, 204)
    refused = api.post("/api/pages/upload/confirm", as_=user, json={"key": out["key"]})
    assert refused.status == 415
    assert api.post("/api/pages/upload/confirm", as_=user, json={"key": out["key"]}).status == 404  # deleted


def test_confirm_of_a_key_never_uploaded_or_not_an_upload_key(api, user, aws):
    missing = "pages/general/00000000-0000-4000-8000-000000000000.png"
    assert api.post("/api/pages/upload/confirm", as_=user, json={"key": missing}).status == 404
    assert api.post("/api/pages/upload/confirm", as_=user, json={"key": "../secrets.txt"}).status == 400


def test_direct_uploads_need_s3_storage(api, user):
    response = api.post("/api/pages/upload/presign", as_=user, json={"content_type": "image/png", "size": 10})
    assert response.status == 409 and "UPLOADS_BUCKET" in response.json["error"]


def test_direct_uploads_need_pages_update(api, db, aws):
    viewer = make_user(db)
    grant(db, viewer, "pages", "view")
    response = api.post("/api/pages/upload/presign", as_=viewer, json={"content_type": "image/png", "size": 10})
    assert response.status == 403


@pytest.mark.parametrize("filename,content_type,data", [
    ("photo.jpg", "image/jpeg", b"<html>not a jpeg</html>"),
    ("anim.gif", "image/gif", b"GIF00a not a gif"),
    ("pic.webp", "image/webp", b"RIFF\x1a\x00\x00\x00WAVEfmt "),
    ("gif-named.gif", "application/octet-stream", png_bytes()),
])
def test_every_image_type_is_checked_against_its_file_signature(api, user, aws, filename, content_type, data):
    """Document 3, Limits: image content is also checked against its file signature (JPEG, GIF and WebP as well
    as PNG; a type guessed from the name is checked too)."""
    response = upload(api, user, multipart(filename=filename, content_type=content_type, data=data))
    assert response.status == 415 and "error" in response.json
