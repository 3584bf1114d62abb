"""Request models of the notifications area (unknown fields are ignored)."""
from __future__ import annotations

import base64
import binascii
from typing import Literal

from pydantic import BaseModel, Field, field_validator


class NotificationListQuery(BaseModel):
    filter: Literal["all", "unread", "archived"] = "all"
    limit: int = Field(50, ge=1, le=100)
    offset: int = Field(0, ge=0)


class PreferenceEntry(BaseModel):
    notification_type: str = Field(min_length=1, max_length=100)
    channel_in_app: bool | None = None
    channel_email: bool | None = None
    channel_chat: bool | None = None
    channel_push: bool | None = None


class PreferencesUpdate(BaseModel):
    preferences: list[PreferenceEntry] = Field(max_length=500)


def _b64url_bytes(value: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValueError("must be base64url") from exc


class PushKeys(BaseModel):
    p256dh: str = Field(min_length=1, max_length=200)
    auth: str = Field(min_length=1, max_length=100)

    @field_validator("p256dh")
    @classmethod
    def _p256dh(cls, value: str) -> str:
        raw = _b64url_bytes(value)
        if len(raw) != 65 or raw[0] != 4:
            raise ValueError("must be a base64url uncompressed P-256 public key (65 bytes)")
        return value

    @field_validator("auth")
    @classmethod
    def _auth(cls, value: str) -> str:
        if len(_b64url_bytes(value)) != 16:
            raise ValueError("must be a base64url 16-byte authentication secret")
        return value


class PushSubscribe(BaseModel):
    endpoint: str = Field(min_length=9, max_length=1000)
    keys: PushKeys
    user_agent: str | None = Field(None, max_length=500)

    @field_validator("endpoint")
    @classmethod
    def _endpoint(cls, value: str) -> str:
        from chalicelib.core.netguard import UnsafeURL, check_public_https_url

        try:
            return check_public_https_url(value)
        except UnsafeURL as exc:
            raise ValueError(str(exc)) from exc


class PushUnsubscribe(BaseModel):
    endpoint: str = Field(min_length=1, max_length=1000)


class SquadConfigEntry(BaseModel):
    notification_type: str = Field(min_length=1, max_length=100)
    chat_channel_id: str | None = Field(None, max_length=200)
    email_group: str | None = Field(None, max_length=320)
    enabled: bool = True

    @field_validator("email_group")
    @classmethod
    def _email(cls, value: str | None) -> str | None:
        if value is not None and value.strip() and "@" not in value:
            raise ValueError("must be an e-mail address")
        return (value.strip() or None) if value is not None else None

    @field_validator("chat_channel_id")
    @classmethod
    def _channel(cls, value: str | None) -> str | None:
        return (value.strip() or None) if value is not None else None


class SquadConfigUpdate(BaseModel):
    config: list[SquadConfigEntry] = Field(max_length=500)


class UsageQuery(BaseModel):
    days: int = Field(7, ge=1, le=365)
