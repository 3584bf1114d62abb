"""Request and read models of client profiles (unknown fields are ignored)."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import StringConstraints

from chalicelib.core.schemas import Flag, Flag01, Id, Input, IsoTimestamp, Read


class ClientProfileUpdate(Input):
    NOT_NULL = frozenset({"dashboard_enabled", "portal_visibility"})

    dashboard_enabled: Optional[Flag] = None
    delivery_manager_id: Optional[Id] = None
    onboarding_template_id: Optional[Id] = None
    portal_visibility: Optional[dict[Annotated[str, StringConstraints(max_length=100)], Flag]] = None
    client_group: Optional[Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]] = None


class ClientProfileRead(Read):
    id: str
    company_id: str
    dashboard_enabled: Flag01
    delivery_manager_id: str | None
    onboarding_template_id: str | None
    portal_visibility: dict
    client_group: str | None
    created_at: IsoTimestamp
    updated_at: IsoTimestamp
