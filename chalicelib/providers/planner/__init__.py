"""Resource planner: the Productive API (live) or a sandbox in the database.

`get_planner(db)` answers the adapter for `PLANNER_MODE` (sandbox by default). Live credentials: the stored
connection first (connections area: the API token, encrypted, and the organisation id), settings second
(`PLANNER_API_TOKEN`, `PLANNER_ORGANIZATION_ID`); none, or `off`: ServiceUnavailable (503).
`planner_for_token(token)` checks a token before the connections area stores it.
`absence_event_id()` names the absence category (a Productive event) a leave booking is made in:
`PLANNER_ABSENCE_EVENT_ID`, else in sandbox mode the sandbox's `Vacation` event, else None (live: not configured).
"""
from __future__ import annotations

from chalicelib.core.errors import ServiceUnavailable
from chalicelib.core.settings import get_settings

from .base import PlannerProvider

__all__ = ["absence_event_id", "get_planner", "planner_for_token", "PlannerProvider"]


def planner_for_token(api_token: str, organization_id: str | None = None, db=None) -> PlannerProvider:
    mode = get_settings().provider_mode("planner")
    if mode == "live":
        from .live import ProductivePlanner

        return ProductivePlanner(api_token=api_token, organization_id=organization_id)
    if mode == "sandbox":
        from .sandbox import SandboxPlanner

        return SandboxPlanner(db=db, api_token=api_token)
    raise ServiceUnavailable("The resource planner is not configured")


def get_planner(db=None) -> PlannerProvider:
    settings = get_settings()
    mode = settings.provider_mode("planner")
    if mode == "off":
        raise ServiceUnavailable("The resource planner is not configured")
    if mode == "sandbox":
        return planner_for_token("sandbox", db=db)
    from chalicelib.areas.connections import service as connections_service

    stored = connections_service.credentials(db, "planner") if db is not None else None
    if stored and stored.get("api_token"):
        return planner_for_token(stored["api_token"], stored.get("organization_id"))
    if settings.planner_api_token and settings.planner_organization_id:
        return planner_for_token(settings.planner_api_token, settings.planner_organization_id)
    raise ServiceUnavailable("The resource planner is not connected")


def absence_event_id() -> str | None:
    """The event a leave (absence) booking names: the setting, else the sandbox's Vacation in sandbox mode."""
    settings = get_settings()
    if settings.planner_absence_event_id:
        return str(settings.planner_absence_event_id)
    if settings.provider_mode("planner") == "sandbox":
        from .sandbox import SANDBOX_ABSENCE_EVENT_ID

        return SANDBOX_ABSENCE_EVENT_ID
    return None
