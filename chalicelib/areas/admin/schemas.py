"""Request models of the admin area (users, squads, the permission matrix, per-user overrides)."""
from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from typing import Literal, Optional

from pydantic import Field, field_validator

from chalicelib.core.models import ACCESS_LEVELS
from chalicelib.core.permissions import LEVELS, TOOLS
from chalicelib.core.schemas import Input, non_blank

AccessLevel = Literal[ACCESS_LEVELS]
Tool = Literal[TOOLS]
Level = Literal[LEVELS]

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _clean_email(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip().lower()
    if not _EMAIL.match(value):
        raise ValueError("must be an e-mail address")
    return value


def _blank_to_none(value):
    return None if isinstance(value, str) and not value.strip() else value


class _UserFields(Input):
    squad_id: Optional[str] = Field(default=None, max_length=36)
    manager_id: Optional[str] = Field(default=None, max_length=36)
    job_title: Optional[str] = Field(default=None, max_length=200)
    picture: Optional[str] = Field(default=None, max_length=2000)
    phone: Optional[str] = Field(default=None, max_length=50)
    date_of_birth: Optional[date] = None
    start_date: Optional[date] = None
    end_date: Optional[date] = None
    gender: Optional[str] = Field(default=None, max_length=50)
    salary: Optional[Decimal] = Field(default=None, ge=0, max_digits=14, decimal_places=2)
    location: Optional[str] = Field(default=None, max_length=200)
    employment_basis: Optional[str] = Field(default=None, max_length=50)

    _blank_ids = field_validator("squad_id", "manager_id", mode="before")(_blank_to_none)


class UserCreate(_UserFields):
    email: str = Field(max_length=320)
    name: str = Field(max_length=200)
    access_level: AccessLevel = "employee"

    _email = field_validator("email")(_clean_email)
    _name = field_validator("name")(non_blank)


class UserUpdate(_UserFields):
    """Every field optional; a field sent as null is cleared (email, name, access_level, is_active
    cannot be null)."""

    NOT_NULL = frozenset({"email", "name", "access_level", "is_active"})

    email: Optional[str] = Field(default=None, max_length=320)
    name: Optional[str] = Field(default=None, max_length=200)
    access_level: Optional[AccessLevel] = None
    is_active: Optional[bool] = None

    _email = field_validator("email")(_clean_email)
    _name = field_validator("name")(non_blank)


class UserQuery(Input):
    search: Optional[str] = Field(default=None, max_length=200)
    squad_id: Optional[str] = Field(default=None, max_length=36)
    access_level: Optional[AccessLevel] = None
    include_inactive: bool = False


class MatrixUpdate(Input):
    """`{ matrix: { <access_level>: { <tool>: none|view|update|manage } } }`, any subset."""

    matrix: dict[AccessLevel, dict[Tool, Level]]


class UserPermissionsUpdate(Input):
    """`{ permissions: { <tool>: none|view|update|manage|null } }`; null removes the override."""

    permissions: dict[Tool, Optional[Level]]


class SquadCreate(Input):
    name: str = Field(max_length=200)
    manager_id: Optional[str] = Field(default=None, max_length=36)
    chat_channel_id: Optional[str] = Field(default=None, max_length=200)

    _name = field_validator("name")(non_blank)
    _blank_ids = field_validator("manager_id", mode="before")(_blank_to_none)


class SquadUpdate(Input):
    NOT_NULL = frozenset({"name"})

    name: Optional[str] = Field(default=None, max_length=200)
    manager_id: Optional[str] = Field(default=None, max_length=36)
    chat_channel_id: Optional[str] = Field(default=None, max_length=200)

    _name = field_validator("name")(non_blank)
    _blank_ids = field_validator("manager_id", mode="before")(_blank_to_none)
