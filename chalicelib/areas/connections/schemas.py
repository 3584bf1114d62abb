"""Request and read models of connections (executive only). Secrets come in, never go out."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import Field, StringConstraints

from chalicelib.core.schemas import Input, IsoTimestamp, Read

Secret = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=4000)]
Short = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
ExternalId = Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)]


class LedgerCallback(Input):
    code: Secret
    state: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]


class PlannerSave(Input):
    api_token: Secret


class ChatSave(Input):
    bot_token: Secret
    channel_id: Short


class UserMappingSet(Input):
    ledger_id: Optional[ExternalId] = None
    planner_id: Optional[ExternalId] = None


class ConnectionRead(Read):
    id: str = Field(description="the provider")
    provider: str
    org_name: str | None
    connected_by: str | None
    connected_at: IsoTimestamp
    token_expires_at: IsoTimestamp | None


class ConnectionList(Read):
    connections: list[ConnectionRead]


class AuthorizeUrl(Read):
    url: str


class CalendarStatus(Read):
    configured: bool


class UserMappingRead(Read):
    id: str = Field(description="the user's id")
    user_id: str
    user_name: str
    user_email: str
    ledger_id: str | None
    planner_id: str | None


class UserMappingSyncRead(Read):
    mappings: list[UserMappingRead]
    ledger_matched: int
    planner_matched: int
    errors: list[str] = Field(description="a provider that could not be read (not connected, refused), by name")
