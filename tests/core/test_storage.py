"""Storage adapter: the S3 uploads bucket (moto) or the local folder."""
from pathlib import Path

import pytest

from chalicelib.core import storage
from chalicelib.core.settings import get_settings


@pytest.fixture
def local(set_env, tmp_path):
    set_env(UPLOADS_BUCKET=None, UPLOADS_DIR=str(tmp_path / "uploads"))
    return tmp_path / "uploads"


def test_local_put_get_delete(local):
    stored = storage.put("pages/p1/image.png", b"\x89PNG data", "image/png")
    assert stored.key == "pages/p1/image.png" and stored.etag.startswith('"')
    assert (local / "pages/p1/image.png").read_bytes() == b"\x89PNG data"
    fetched = storage.get("pages/p1/image.png")
    assert (fetched.body, fetched.content_type, fetched.etag) == (b"\x89PNG data", "image/png", stored.etag)
    storage.delete("pages/p1/image.png")
    assert storage.get("pages/p1/image.png") is None
    assert not (local / "pages/p1/image.png").exists()
    storage.delete("pages/p1/image.png")  # deleting twice is fine


def test_local_missing_key_is_none(local):
    assert storage.get("nothing/here.txt") is None


def test_local_overwrite_keeps_latest(local):
    storage.put("a.txt", b"one", "text/plain")
    storage.put("a.txt", b"two", "text/markdown")
    fetched = storage.get("a.txt")
    assert (fetched.body, fetched.content_type) == (b"two", "text/markdown")


@pytest.mark.parametrize("key", ["../escape.txt", "a/../../escape.txt", "/etc/passwd", "..", "a/../.."])
def test_local_path_traversal_refused(local, key):
    with pytest.raises(ValueError):
        storage.put(key, b"x", "text/plain")
    assert storage.get(key) is None
    with pytest.raises(ValueError):
        storage.delete(key)
    assert not (local.parent / "escape.txt").exists()


def test_local_is_used_when_no_bucket(local):
    assert get_settings().uploads_bucket is None
    assert Path(get_settings().uploads_dir) == local


def test_s3_put_get_delete(aws):
    stored = storage.put("pages/p1/doc.pdf", b"%PDF-1.4 body", "application/pdf")
    assert stored.etag
    head = aws["s3"].head_object(Bucket=aws["bucket"], Key="pages/p1/doc.pdf")
    assert head["ContentType"] == "application/pdf"
    fetched = storage.get("pages/p1/doc.pdf")
    assert (fetched.body, fetched.content_type) == (b"%PDF-1.4 body", "application/pdf")
    storage.delete("pages/p1/doc.pdf")
    assert storage.get("pages/p1/doc.pdf") is None
    assert aws["s3"].list_objects_v2(Bucket=aws["bucket"]).get("KeyCount") == 0


def test_s3_missing_key_is_none(aws):
    assert storage.get("nothing/here") is None


def test_s3_does_not_touch_local_folder(aws, tmp_path):
    storage.put("only-in-s3.txt", b"x", "text/plain")
    assert not (Path(get_settings().uploads_dir) / "only-in-s3.txt").exists()
