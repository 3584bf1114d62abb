"""Request and read models of the admin area (users, squads, the permission matrix, per-user overrides)."""
from __future__ import annotations

import re
from typing import Optional

from pydantic import Field, field_validator

from chalicelib.core.models import ACCESS_LEVELS
from chalicelib.core.permissions import LEVELS, TOOLS
from chalicelib.core.spelling import composed, email_key
from chalicelib.core.schemas import (CalendarDate, Flag, Flag01, Id, Input, IsoDate, IsoTimestamp, Money, Name,
                                     PageQuery, QueryFlag, Read, Search, Text, choice)

AccessLevel = choice(*ACCESS_LEVELS)
Tool = choice(*TOOLS)
Level = choice(*LEVELS)

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _clean_email(value: str) -> str:
    """Never None: the create requires the e-mail and the update refuses it null (NOT_NULL) before this runs.
    Trimmed, lower-cased and composed (Unicode NFC, session 32): "jose\u0301@x" and "jos\u00e9@x" are one address,
    which `lower()` alone, in the unique check and index, told apart (a second user was made)."""
    value = email_key(value)
    if not _EMAIL.fullmatch(value):
        raise ValueError("must be an e-mail address")
    return value


def _blank_to_none(value):
    return None if isinstance(value, str) and not value.strip() else value


class _UserFields(Input):
    squad_id: Optional[Id] = None
    manager_id: Optional[Id] = None
    job_title: Optional[Text(200)] = None
    picture: Optional[Text(2000)] = None
    phone: Optional[Text(50)] = None
    date_of_birth: CalendarDate = None
    start_date: CalendarDate = None
    end_date: CalendarDate = None
    gender: Optional[Text(50)] = None
    salary: Optional[Money] = Field(default=None, ge=0)
    location: Optional[Text(200)] = None
    employment_basis: Optional[Text(50)] = None

    _blank_ids = field_validator("squad_id", "manager_id", mode="before")(_blank_to_none)


class UserCreate(_UserFields):
    email: Text(320)
    name: Name
    access_level: AccessLevel = "employee"

    _email = field_validator("email")(_clean_email)


class UserUpdate(_UserFields):
    """Every field optional; a field sent as null is cleared (email, name, access_level, is_active
    cannot be null)."""

    NOT_NULL = frozenset({"email", "name", "access_level", "is_active"})

    email: Optional[Text(320)] = None
    name: Optional[Name] = None
    access_level: Optional[AccessLevel] = None
    is_active: Optional[Flag] = None

    _email = field_validator("email")(_clean_email)


class UserListQuery(PageQuery):
    search: Optional[Search] = None
    squad_id: Optional[Id] = None
    access_level: Optional[AccessLevel] = None
    include_inactive: QueryFlag = None

    _blank_ids = field_validator("squad_id", mode="before")(_blank_to_none)


class MatrixUpdate(Input):
    """`{ matrix: { <access_level>: { <tool>: none|view|update|manage } } }`, any subset."""

    matrix: dict[AccessLevel, dict[Tool, Level]]


class UserPermissionsUpdate(Input):
    """`{ permissions: { <tool>: none|view|update|manage|null } }`; null removes the override."""

    permissions: dict[Tool, Optional[Level]]


class SquadCreate(Input):
    name: Name
    manager_id: Optional[Id] = None
    chat_channel_id: Optional[Text(200)] = None

    _blank_ids = field_validator("manager_id", mode="before")(_blank_to_none)
    # in Unicode NFC (session 32): the unique index `lower(name)` told a composed "\u00e9" from a decomposed
    # "e\u0301", two squads of one name to whoever reads them
    _name = field_validator("name")(composed)


class SquadUpdate(Input):
    NOT_NULL = frozenset({"name"})

    name: Optional[Name] = None
    manager_id: Optional[Id] = None
    chat_channel_id: Optional[Text(200)] = None

    _blank_ids = field_validator("manager_id", mode="before")(_blank_to_none)
    _name = field_validator("name")(composed)


# --- read models ----------------------------------------------------------------------------------

Matrix = dict[str, dict[str, str]]


class UserRead(Read):
    """A user; `salary` only for holders of admin:manage (and the caller's own record at /api/me)."""
    id: str
    email: str
    name: str
    access_level: str
    squad_id: str | None
    manager_id: str | None
    job_title: str | None
    picture: str | None
    phone: str | None
    date_of_birth: IsoDate | None
    start_date: IsoDate | None
    end_date: IsoDate | None
    gender: str | None
    salary: float | None = Field(None, description="admin:manage holders only (and the caller's own record)")
    location: str | None
    employment_basis: str | None
    is_active: Flag01
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
    squad_name: str | None
    manager_name: str | None


class MeRead(Read):
    user: UserRead
    permissions: dict[str, str]


class UserDetail(Read):
    user: UserRead
    permissions: dict[str, str]
    overrides: dict[str, str]


class UserPermissionsRead(Read):
    permissions: dict[str, str]
    overrides: dict[str, str]


class MatrixRead(Read):
    matrix: Matrix


class SquadRead(Read):
    id: str
    name: str
    manager_id: str | None
    chat_channel_id: str | None
    created_at: IsoTimestamp
    manager_name: str | None
    member_count: int
