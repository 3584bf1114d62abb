"""Storage adapter: the S3 uploads bucket when configured, otherwise a local folder."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .aws import client
from .settings import data_dir, get_settings


@dataclass
class StoredObject:
    key: str
    body: bytes
    content_type: str
    etag: str


def _local_path(key: str) -> Path:
    root = Path(get_settings().uploads_dir or data_dir() / "uploads").resolve()
    path = (root / key).resolve()
    if root not in path.parents:
        raise ValueError("key escapes the uploads folder")
    return path


def _etag(body: bytes) -> str:
    return '"' + hashlib.md5(body, usedforsecurity=False).hexdigest() + '"'


def put(key: str, body: bytes, content_type: str) -> StoredObject:
    settings = get_settings()
    if settings.uploads_bucket:
        result = client("s3").put_object(Bucket=settings.uploads_bucket, Key=key, Body=body, ContentType=content_type)
        return StoredObject(key, body, content_type, result.get("ETag") or _etag(body))
    path = _local_path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    path.with_name(path.name + ".content-type").write_text(content_type)
    return StoredObject(key, body, content_type, _etag(body))


def get(key: str) -> StoredObject | None:
    settings = get_settings()
    if settings.uploads_bucket:
        s3 = client("s3")
        try:
            result = s3.get_object(Bucket=settings.uploads_bucket, Key=key)
        except s3.exceptions.NoSuchKey:
            return None
        except Exception as exc:  # botocore ClientError for a 404 on some backends
            if getattr(exc, "response", {}).get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise
        body = result["Body"].read()
        return StoredObject(key, body, result.get("ContentType") or "application/octet-stream",
                            result.get("ETag") or _etag(body))
    try:
        path = _local_path(key)
    except ValueError:
        return None
    if not path.is_file():
        return None
    body = path.read_bytes()
    type_file = path.with_name(path.name + ".content-type")
    content_type = type_file.read_text() if type_file.exists() else "application/octet-stream"
    return StoredObject(key, body, content_type, _etag(body))


def delete(key: str) -> None:
    settings = get_settings()
    if settings.uploads_bucket:
        client("s3").delete_object(Bucket=settings.uploads_bucket, Key=key)
        return
    path = _local_path(key)
    path.unlink(missing_ok=True)
    path.with_name(path.name + ".content-type").unlink(missing_ok=True)
