"""Cross-area side effects that later areas fill, named in one table so they are easy to follow.

`emit("project_created", ctx, project=...)` calls every handler listed for that event, importing
each lazily (so an area's function never imports another area at start-up). A handler whose area
is not built yet is skipped: the event is a no-op until its area exists. Handlers take
`(ctx, **payload)` and run inside the caller's transaction.
"""
from __future__ import annotations

import importlib
import logging

log = logging.getLogger("wms.hooks")

HANDLERS: dict[str, list[str]] = {
    # event name -> ["chalicelib.areas.<area>.service:<function>", ...]
    "task_linked_to_project": ["chalicelib.areas.sla.service:assign_for_task"],
    "project_created": [
        "chalicelib.areas.onboarding.service:complete_project_created_milestones",
        "chalicelib.areas.insights.service:refresh_capacity_cell",
    ],
    "project_updated": ["chalicelib.areas.insights.service:refresh_capacity_cell"],
    "project_completed": ["chalicelib.areas.relationships.service:create_draft_client_win"],
    "sprint_deleted": ["chalicelib.areas.tasks.service:clear_sprint"],
}


def _resolve(target: str):
    module_name, _, function = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            return None  # that area does not exist yet
        raise
    return getattr(module, function)


def emit(event: str, ctx, **payload) -> list:
    """Run the handlers of `event`; answers what each present handler returned."""
    results = []
    for target in HANDLERS.get(event, []):
        handler = _resolve(target)
        if handler is not None:
            results.append(handler(ctx, **payload))
    return results
