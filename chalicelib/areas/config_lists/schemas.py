"""Request models of the config lists area."""
from __future__ import annotations

import re
from typing import Optional

from pydantic import Field, field_validator

from chalicelib.core.schemas import Input, non_blank

_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")


def _hex_color(value: str | None) -> str | None:
    if value is None or value == "":
        return None
    if not _HEX.match(value):
        raise ValueError("must be a hex colour such as #3b82f6")
    return value.lower()


class _ItemFields(Input):
    color: Optional[str] = Field(default=None, max_length=20)
    icon: Optional[str] = Field(default=None, max_length=100)
    stage_type: Optional[str] = Field(default=None, max_length=50)
    probability: Optional[float] = Field(default=None, ge=0, le=100)
    email_template_id: Optional[str] = Field(default=None, max_length=36)

    _color = field_validator("color")(_hex_color)


class ConfigItemCreate(_ItemFields):
    label: str = Field(max_length=200)
    value: str = Field(max_length=200)
    is_default: bool = False
    position: int = Field(default=99, ge=0, le=1_000_000)
    email_trigger_active: bool = False

    _text = field_validator("label", "value")(non_blank)


class ConfigItemUpdate(_ItemFields):
    NOT_NULL = frozenset({"label", "value", "is_default", "position", "email_trigger_active"})

    label: Optional[str] = Field(default=None, max_length=200)
    value: Optional[str] = Field(default=None, max_length=200)
    is_default: Optional[bool] = None
    position: Optional[int] = Field(default=None, ge=0, le=1_000_000)
    email_trigger_active: Optional[bool] = None

    _text = field_validator("label", "value")(non_blank)


class ListQuery(Input):
    key: Optional[str] = Field(default=None, max_length=100)


class Reorder(Input):
    item_ids: list[str] = Field(min_length=1, max_length=500)
