"""Cross-area side effects that later areas fill, named in one table so they are easy to follow.

`emit("project_created", ctx, project=...)` calls every handler listed for that event, importing
each lazily (so an area's function never imports another area at start-up). A handler whose area
is not built yet is skipped: the event is a no-op until its area exists. Handlers take
`(ctx, **payload)` and run inside the caller's transaction.
"""
from __future__ import annotations

import importlib
import sys


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


_absent: set[str] = set()


def optional_module(name: str):
    """The module, or None while its area does not exist yet. A miss is remembered: looking for a
    missing module searches the import path, which would cost every request (the code bundle does
    not change while a container lives). A module put into sys.modules is always found."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    if name in _absent:
        return None
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            _absent.add(name)
            return None
        raise


def _resolve(target: str):
    module_name, _, function = target.partition(":")
    module = optional_module(module_name)
    return None if module is None else getattr(module, function)


def emit(event: str, ctx, **payload) -> list:
    """Run the handlers of `event`; answers what each present handler returned."""
    results = []
    for target in HANDLERS.get(event, []):
        handler = _resolve(target)
        if handler is not None:
            results.append(handler(ctx, **payload))
    return results
