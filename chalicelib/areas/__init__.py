"""The areas of the service. Each is a package with `api.py` exposing a Chalice `Blueprint` as `bp`.

`WMS_MODULES` (comma-separated) selects the areas one Lambda function serves; unset means all.
Nothing here imports an area until it is selected.
"""
from __future__ import annotations

import importlib
import os

AREAS = (
    "system",
    "admin",
    "config_lists",
    "notifications",
    "tasks",
    "projects",
    "deals",
    "sprints",
    "timesheets",
    "pages",
    "budgets",
    "roadmaps",
    "action_items",
    "sla",
    "notes",
    "announcements",
    "calendar",
    "clients",
    "relationships",
    "research",
    "meetings",
    "agents",
    "invoices",
    "connections",
    "performance",
    "leave",
    "insights",
    "proposals",
    "onboarding",
    "portal",
)


def selected_areas(value: str | None = None) -> list[str]:
    value = os.environ.get("WMS_MODULES") if value is None else value
    if not value or not value.strip():
        return list(AREAS)
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in AREAS]
    if unknown:
        raise RuntimeError(f"WMS_MODULES names unknown areas: {', '.join(unknown)}")
    return names


def load_blueprint(area: str):
    return importlib.import_module(f"chalicelib.areas.{area}.api").bp
