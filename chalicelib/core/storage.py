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


# --- direct transfers (S3 only): file bytes never pass through a Lambda function ----------------

def direct() -> bool:
    """Whether uploads and downloads go straight to the bucket (S3 configured), not through the API."""
    return bool(get_settings().uploads_bucket)


def presign_post(key: str, content_type: str, max_bytes: int, expires: int = 600, *,
                 metadata: dict[str, str] | None = None) -> dict:
    """A presigned POST for exactly this key and type, at most `max_bytes`: `{url, fields}`. Each `metadata` item is
    a required form field and policy condition `x-amz-meta-<name>`, stored with the object (see `head`)."""
    bucket = get_settings().uploads_bucket
    meta = {f"x-amz-meta-{name}": value for name, value in (metadata or {}).items()}
    return client("s3").generate_presigned_post(
        bucket, key, Fields={"Content-Type": content_type, **meta},
        Conditions=[{"Content-Type": content_type}, *({k: v} for k, v in meta.items()),
                    ["content-length-range", 1, max_bytes]], ExpiresIn=expires)


def presign_get(key: str, expires: int = 300, *, download_name: str | None = None,
                cache_control: str | None = None) -> str:
    """A presigned GET of the key; the bucket's answer carries `cache_control` (response-cache-control) and, with
    `download_name`, is a download of that name."""
    params = {"Bucket": get_settings().uploads_bucket, "Key": key}
    if cache_control:
        params["ResponseCacheControl"] = cache_control
    if download_name:
        params["ResponseContentDisposition"] = f'attachment; filename="{download_name}"'
    return client("s3").generate_presigned_url("get_object", Params=params, ExpiresIn=expires)


def _head_empty(s3, bucket: str, key: str) -> tuple[int, bytes, str, dict[str, str]] | None:
    """`head`'s answer for an object a range read refused (InvalidRange): its HEAD, None when it is gone."""
    try:
        result = s3.head_object(Bucket=bucket, Key=key)
    except Exception as exc:
        if getattr(exc, "response", {}).get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
            return None
        raise
    metadata = {name.lower(): value for name, value in (result.get("Metadata") or {}).items()}
    return int(result.get("ContentLength") or 0), b"", result.get("ContentType") or "", metadata


def head(key: str, first_bytes: int = 4096) -> tuple[int, bytes, str, dict[str, str]] | None:
    """(size, the first bytes, content type, user metadata) of a stored object, or None when it does not exist. The
    metadata are the object's `x-amz-meta-*` items (names lower-case, without the prefix); none in the local folder."""
    settings = get_settings()
    if settings.uploads_bucket:
        s3 = client("s3")
        try:
            result = s3.get_object(Bucket=settings.uploads_bucket, Key=key, Range=f"bytes=0-{first_bytes - 1}")
        except Exception as exc:  # NoSuchKey, or a ClientError 404 on some backends
            code = getattr(exc, "response", {}).get("Error", {}).get("Code")
            if code in ("NoSuchKey", "404"):
                return None
            if code == "InvalidRange":  # an empty object has no byte 0 to range over: it exists, of size 0 (session
                return _head_empty(s3, settings.uploads_bucket, key)  # 29: it was "not found", and never removed)
            raise
        total = result.get("ContentRange", "").rsplit("/", 1)[-1]
        size = int(total) if total.isdigit() else int(result.get("ContentLength") or 0)
        metadata = {name.lower(): value for name, value in (result.get("Metadata") or {}).items()}
        return size, result["Body"].read(), result.get("ContentType") or "", metadata
    stored = get(key)
    return None if stored is None else (len(stored.body), stored.body[:first_bytes], stored.content_type, {})
