"""Every upload served from the API's own origin (local folder storage) is sandboxed (session 22 audit): a PDF,
an audio or video file or an image opened directly cannot run script in the API's origin."""
import pytest

from tests.factories import make_user

from .test_uploads import JPEG, PDF, multipart, upload

POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"


@pytest.fixture
def user(db):
    return make_user(db)


@pytest.mark.parametrize("filename,content_type,data", [
    ("x.pdf", "application/pdf", PDF + b"<html><script>alert(1)</script></html>"),
    ("a.mp3", "audio/mpeg", b"ID3\x03\x00mp3"),
    ("v.webm", "video/webm", b"\x1aE\xdf\xa3webm"),
    ("v.mp4", "video/mp4", b"\x00\x00\x00\x18ftypmp42"),
    ("p.jpg", "image/jpeg", JPEG),
])
def test_every_locally_served_upload_is_sandboxed(api, user, filename, content_type, data):
    made = upload(api, user, multipart(filename=filename, content_type=content_type, data=data))
    assert made.status == 200, made
    served = api.get(made.json["url"], headers={"Accept": "*/*"})
    assert served.status == 200 and served.body == data
    headers = {key.lower(): value for key, value in served.headers.items()}
    assert headers["content-security-policy"] == POLICY, headers
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["content-type"] == content_type
    again = api.get(made.json["url"], headers={"Accept": "*/*", "If-None-Match": headers["etag"]})
    assert again.status == 304
    assert {k.lower(): v for k, v in again.headers.items()}["content-security-policy"] == POLICY
